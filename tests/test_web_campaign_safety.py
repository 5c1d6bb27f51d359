"""A campaign that cannot go wrong quietly (issue 33): a topic set takes only completed topics and its
topics file always validates; a tie in a dispute has no default; a refused run lists every problem in
one pass; a TREC RAG answer file of another team_id says what it was stored as; "release now" with a
preview of what each team will see."""
from __future__ import annotations

import re

from click.testing import CliRunner
from sqlalchemy import delete, update

from campaign_helpers import schedule
from web_helpers import browser_for, make_topic

from sepia.cli import main
from sepia.store.models import Topic, TopicText

CS1, CS2, CS3 = "ACLIA2-CS-0001", "ACLIA2-CS-0002", "ACLIA2-CS-0003"


def _set_id(page: str) -> str:
    return re.search(r'id="set-(\d+)"', page).group(1)


def test_a_topic_set_takes_only_completed_topics_and_its_topics_file_validates(app, web_store, tmp_path):
    make_topic(web_store, CS1)
    make_topic(web_store, CS2, completed=False)
    make_topic(web_store, CS3)
    with web_store.transaction() as session:  # as the issue saw it: in progress, without a question
        session.execute(delete(TopicText).where(TopicText.topic_id == CS2))
    org = browser_for(app, "org")
    org.post("/campaign/schedule", {"name": "Formal run"})
    set_id = _set_id(org.get("/campaign/schedule").get_data(as_text=True))
    page = org.post(f"/campaign/schedule/{set_id}/topics", {"topics": "ACLIA2-CS-*"},
                    follow_redirects=True).get_data(as_text=True)
    assert f"Left out, not completed (or without a question): {CS2}." in page
    assert "2 topic(s) now belong to" in page and '<span class="count">2 topics</span>' in page
    refused = org.post(f"/campaign/schedule/{set_id}/topics", {"topics": CS2}, follow_redirects=True)
    assert "flash-error" in refused.get_data(as_text=True) and "now belong" not in refused.get_data(as_text=True)

    # A topic reopened after it joined the set: the schedule names it, the file leaves it out.
    with web_store.transaction() as session:
        session.execute(update(Topic).where(Topic.id == CS3).values(status="in_progress"))
    assert f"Not completed, so not in the topics file: {CS3}." in org.get("/campaign/schedule").get_data(as_text=True)
    data = org.get(f"/downloads/topics/{set_id}.xml").data
    (tmp_path / "topics.xml").write_bytes(data)
    assert CS1.encode() in data and CS2.encode() not in data and CS3.encode() not in data
    result = CliRunner().invoke(main, ["validate", "--format", "topic", str(tmp_path / "topics.xml")])
    assert result.exit_code == 0, result.output
