"""What participants download as the topics: the questions only. The answer type is what Question
Analysis runs are scored against, and the narrative, memo and status are the developers' and the
assessors'; none of them may leave with the topics."""
from __future__ import annotations

from lxml import etree

from campaign_helpers import move_window
from test_web_participate import campaign
from web_helpers import browser_for

from sepia.store.models import Topic, TopicText


def test_participants_receive_the_questions_and_nothing_else(app, web_store):
    set_id = campaign(web_store, qa=(1, 2, None), cclqa=(3, 4, None))
    with web_store.transaction() as session:
        for topic in session.query(Topic):
            topic.memo = "SECRET MEMO: the answer is in XIN_CMN_20080301.0001"
            topic.texts.append(TopicText(kind="narrative", lang="EN", text="SECRET NARRATIVE", position=9))
    move_window(web_store, set_id, "qa", -1, 2, None)
    for role in ("par", "org"):  # organisers download what participants get; the store has the rest
        data = browser_for(app, role).get(f"/downloads/topics/{set_id}.xml").data
        root = etree.fromstring(data)
        topics = root.findall("TOPIC")
        assert topics and all(t.get("ANSWER_TYPE") is None and t.get("STATUS") is None for t in topics)
        assert {child.tag for t in topics for child in t} == {"QUESTION"}
        assert b"SECRET" not in data and b"DEFINITION" not in data
        assert {q.get("LANG") for q in root.iter("QUESTION")} == {"CS", "EN"}
