"""A campaign that cannot go wrong quietly (issue 33): a topic set takes only completed topics and its
topics file always validates; a tie in a dispute has no default; a refused run lists every problem in
one pass; a TREC RAG answer file of another team_id says what it was stored as; "release now" with a
preview of what each team will see."""
from __future__ import annotations

import html
import io
import re

from click.testing import CliRunner
from sqlalchemy import delete, func, select, update

from campaign_helpers import run_xml, schedule
from web_helpers import browser_for, make_topic

from sepia.cli import main
from sepia.store.models import Submission, Topic, TopicText

CS1, CS2, CS3 = "ACLIA2-CS-0001", "ACLIA2-CS-0002", "ACLIA2-CS-0003"
DOC, DOC2 = "XIN_CMN_20080101.0001", "XIN_CMN_20080102.0002"


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


def _broken_run() -> bytes:
    """An IR4QA run with one problem of every kind: a schema error (an attribute the XSD does not
    allow), a repeated rank, a topic outside the campaign, a document the collection lacks, and
    another team's run ID."""
    data = run_xml("ir4qa", "TEAMA-CS-CS-01-T", {CS1: [DOC, DOC2], "ACLIA2-CS-0099": [DOC]})
    return (data.replace(b'RANK="2"', b'RANK="1"', 1).replace(DOC2.encode(), b"NOPE_999")
            .replace(b"<DESCRIPTION>", b'<DESCRIPTION BOGUS="1">'))


def _check_every_problem(problems: list[str]) -> None:
    text = "\n".join(problems)
    assert re.search(r"^\d+:\d+: .*BOGUS", text, re.M), text                # schema
    assert re.search(r"^\d+:\d+: .*rank 1 is repeated", text, re.M), text   # ranks
    assert re.search(r"^\d+:\d+: document NOPE_999 is not in the CS collection", text, re.M), text  # DOCIDs
    assert "Not topics of this campaign: ACLIA2-CS-0099." in problems, text  # the campaign's topics
    assert any(p.startswith("The run ID TEAMA-CS-CS-01-T names team TEAMA; you submit for team TEAMX") for p in problems)


def test_a_refused_run_lists_every_problem_in_one_pass_on_the_page_the_api_and_sepia_submit(app, web_store, tmp_path):
    import threading

    from werkzeug.serving import make_server

    make_topic(web_store, CS1)
    schedule(web_store, "Formal run", [CS1], {"ir4qa": (-1, 2, None)})
    par = browser_for(app, "par")
    data = _broken_run()
    page = par.client.post("/me/runs", data={"csrf_token": par.token, "run": (io.BytesIO(data), "broken.xml")},
                           content_type="multipart/form-data")
    assert page.status_code == 422
    listed = re.findall(r"<li>(?:<code>broken\.xml:)?(.*?)(?:</code>)?</li>",
                        page.get_data(as_text=True).split('id="problems"')[1].split("</ul>")[0])
    _check_every_problem([html.unescape(p) for p in listed])
    token = re.search(r'<code id="new-token" class="token">([^<]+)</code>',
                      par.post("/me/tokens", {"name": "cli"}).get_data(as_text=True)).group(1)
    answer = app.test_client().post("/api/runs", data=data, headers={"Authorization": f"Bearer {token}"},
                                    content_type="application/xml")
    assert answer.status_code == 422
    _check_every_problem(answer.get_json()["problems"])
    (tmp_path / "broken.xml").write_bytes(data)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        result = CliRunner().invoke(main, ["submit", str(tmp_path / "broken.xml"), "--server",
                                           f"http://127.0.0.1:{server.server_port}"], env={"SEPIA_TOKEN": token})
    finally:
        server.shutdown()
    assert result.exit_code == 1
    prefix = f"{tmp_path / 'broken.xml'}"
    _check_every_problem([line[len(prefix) + 1:].strip() for line in result.output.splitlines()])
    with web_store.transaction() as session:
        assert session.scalar(select(func.count()).select_from(Submission)) == 0


def _team_sections(page: str) -> list[str]:
    return re.findall(r'<section class="card" id="mine-\w+">.*?</section>', page, re.S)


def test_release_now_after_a_preview_of_exactly_what_each_team_will_see(app, web_store):
    from test_web_results import OWN, expected, sample_campaign

    from campaign_helpers import move_window

    set_id, par = sample_campaign(app, web_store)
    org = browser_for(app, "org")
    org.post("/results/score")
    still_open = org.post(f"/campaign/schedule/{set_id}/release/cclqa", follow_redirects=True).get_data(as_text=True)
    assert "still open for runs" in still_open and "released now" not in still_open
    move_window(web_store, set_id, "cclqa", -3, -1, None)  # the deadline passes; no release moment set
    schedule_page = org.get("/campaign/schedule").get_data(as_text=True)
    assert "Release now" in schedule_page and f"/campaign/schedule/{set_id}/preview" in schedule_page

    preview = org.get(f"/campaign/schedule/{set_id}/preview").get_data(as_text=True)
    topics_file = org.get(f"/downloads/topics/{set_id}.xml").get_data(as_text=True)
    shown = re.search(r'<section class="card" id="topics-file">.*?<pre[^>]*>(.*?)</pre>', preview, re.S).group(1)
    assert html.unescape(shown) == topics_file  # the very file the teams download
    assert "Team TEAMX" in preview and "TEAMA-CS-CS-01-T" not in preview  # TEAMX's view: no other team's runs
    for matcher in ("human", "binarized"):
        assert f'<td class="docid">{OWN}</td><td class="num">{expected(matcher)[OWN]["score"]:.4f}</td>' in preview
    assert "No results are released" in par.get("/results/mine").get_data(as_text=True)  # a preview releases nothing
    for role in ("par", "dev", "as1"):  # organisers only
        other = browser_for(app, role)
        assert other.get(f"/campaign/schedule/{set_id}/preview").status_code == 403
        assert other.post(f"/campaign/schedule/{set_id}/release/cclqa").status_code == 403

    released = org.post(f"/campaign/schedule/{set_id}/release/cclqa", follow_redirects=True).get_data(as_text=True)
    assert "CCLQA results of &#39;Formal run&#39; released now" in released
    mine = par.get("/results/mine").get_data(as_text=True)
    assert _team_sections(mine) and _team_sections(mine) == _team_sections(preview)
    again = org.post(f"/campaign/schedule/{set_id}/release/cclqa", follow_redirects=True).get_data(as_text=True)
    assert "are out already" in again


def test_enter_in_a_schedule_field_saves_the_schedule_and_never_releases(app, web_store):
    """Release now is a form of its own: the windows form's first submit button stays Save."""
    make_topic(web_store, CS1)
    set_id = schedule(web_store, "Formal run", [CS1], {"cclqa": (-3, -1, None)})
    page = browser_for(app, "org").get("/campaign/schedule").get_data(as_text=True)
    windows_form = re.search(r'<form method="post" action="/campaign/schedule/\d+/windows".*?</form>', page, re.S).group(0)
    # The default button (Enter) is the first submit button whose form is this one: not one with form="...".
    own = [label for attributes, label in re.findall(r"<button([^>]*)>([^<]*)</button>", windows_form)
           if "form=" not in attributes]
    assert own[0] == "Save schedule of Formal run"
    assert f'form="release-{set_id}-cclqa"' in windows_form and f'id="release-{set_id}-cclqa"' in page
