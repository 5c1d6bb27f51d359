"""The relevance screen marks the question's words in the document judged (issue 21, item 3): for a
CS, CT or JA topic the question is any of its content words, no longer one phrase that no document
contains; with the real search engine, both kinds."""
from __future__ import annotations

import pytest
from test_web_judging import DOC, TOPIC, build_and_assign, campaign
from web_helpers import browser_for

from sepia.search import open_engine
from sepia.search.engine import ENGINES
from sepia.services.indexing import StoredDocuments
from sepia.store.models import Topic, TopicText
from sepia.web.search_pane import question_query


@pytest.mark.parametrize("engine_name", ENGINES)
def test_a_chinese_question_marks_its_words(app, web_store, tmp_path, engine_name):
    campaign(web_store)  # question 什么是禽流感？; DOC's text has 禽流感 once
    engine = open_engine(tmp_path / "index", engine_name)
    engine.build(StoredDocuments(web_store), "CS", procs=1, progress=False)
    app.config["SEARCH_ENGINE"] = engine
    # today's reading, the whole question as one phrase, marks nothing
    assert engine.document("CS", DOC, '"什么是禽流感？"').spans == []
    org, as1 = browser_for(app, "org"), browser_for(app, "as1")
    pool_id = build_and_assign(org, kind="ir4qa")
    seen = set()
    for _ in range(2):
        page = as1.get(f"/judge/{pool_id}/{TOPIC}").get_data(as_text=True)
        docid = page.split('<h2>Document <span class="docid">')[1].split("<")[0]
        seen.add(docid)
        if docid == DOC:
            assert "<mark>禽流感</mark>是一种" in page and "<mark>什么" not in page
        action = page.split('action="/judge/')[1].split('"')[0]
        as1.post(f"/judge/{action}", {"action": "save", "level": "1"})
    assert DOC in seen


def test_question_syntax_is_read_as_words():
    assert question_query('什么是"禽流感"?') == "什么是 禽流感?"
    assert question_query("title:bird flu OR (vaccine*)").split() == ["bird", "flu", "vaccine"]
    # the final question mark is kept: an English question is then read as one (any of its words)
    from sepia.search.natural import is_question

    assert question_query('Tell me about "bird flu"?') == "Tell me about  bird flu?"
    assert is_question("EN", question_query('Tell me about "bird flu"?'))


def test_the_question_sent_is_the_topics_own_language(web_store):
    from sepia.web.judging.screen import _question_words

    topic = Topic(id="ACLIA2-JA-0001", lang="JA", texts=[
        TopicText(kind="question", lang="JA", text="はやぶさの打ち上げは「いつ」?"),
        TopicText(kind="question", lang="EN", text="When was Hayabusa launched?")])
    assert _question_words(topic) == "はやぶさの打ち上げは「いつ」?"
