"""Topic development: topic list and creation, editing with optimistic locking, the search pane
through the engine adapter, documents with hit offsets, and answer texts checked against documents."""
from __future__ import annotations

import re

from web_helpers import DOCUMENTS, FakeEngine, browser_for, make_topic

from sepia.formats.validate import validate_bytes
from sepia.formats.write import to_xml
from sepia.store.exchange.topics import export_topics
from sepia.store.models import AnswerText, Topic, TopicText
from sepia.web.search_pane import safe_snippet

CS_DOC = DOCUMENTS[0][4]


def topic_in(store, topic_id):
    with store.transaction() as session:
        topic = session.get(Topic, topic_id)
        return topic, {(t.kind, t.lang): t.text for t in topic.texts}, list(topic.answer_texts)


def form_of(page: str) -> dict:
    """The topic form's fields as the page shows them."""
    values = dict(re.findall(r'<textarea name="(\w+)"[^>]*>([^<]*)</textarea>', page))
    values["version"] = re.search(r'name="version" value="(\d+)"', page).group(1)
    values["answer_type"] = (re.search(r'<option value="(\w+)" selected>', page) or [None, ""])[1]
    return values


def test_create_topics_with_given_and_next_ids(app):
    dev = browser_for(app, "dev")
    response = dev.post("/topics/", {"lang": "CS", "topic_id": "ACLIA2-CS-0007"})
    assert response.status_code == 302 and response.headers["Location"].endswith("/topics/ACLIA2-CS-0007")
    response = dev.post("/topics/", {"lang": "CS", "topic_id": ""})
    assert response.headers["Location"].endswith("/topics/ACLIA2-CS-0008")
    response = dev.post("/topics/", {"lang": "JA", "topic_id": ""})
    assert response.headers["Location"].endswith("/topics/ACLIA2-JA-0001")
    for bad, message in (("ACLIA2-CS-0007", "exists already"), ("ACLIA2-JA-0002", "names language JA"),
                         ("bird flu", "is not a topic ID")):
        dev.post("/topics/", {"lang": "CS", "topic_id": bad})
        assert message in dev.get("/topics/").get_data(as_text=True), bad
    listing = dev.get("/topics/?lang=CS").get_data(as_text=True)
    assert "ACLIA2-CS-0008" in listing and "ACLIA2-JA-0001" not in listing


def test_topic_list_marks_completed_topics(app, web_store):
    make_topic(web_store, "ACLIA2-CS-0001", completed=True)
    make_topic(web_store, "ACLIA2-CS-0002", completed=False)
    page = browser_for(app, "dev").get("/topics/").get_data(as_text=True)
    rows = dict(re.findall(r'<tr class="(\w+)">\s*<td><a href="/topics/([\w-]+)"', page))
    assert rows == {"completed": "ACLIA2-CS-0001", "in_progress": "ACLIA2-CS-0002"}
    assert "✓ completed" in page


def test_edit_and_save_a_topic(app, web_store):
    dev = browser_for(app, "dev")
    dev.post("/topics/", {"lang": "CS", "topic_id": "ACLIA2-CS-0001"})
    fields = form_of(dev.get("/topics/ACLIA2-CS-0001").get_data(as_text=True))
    fields.update(question_target="什么是禽流感？", question_en="What is bird flu?", answer_type="DEFINITION",
                  narrative_en="The user wants a definition.", memo="2008 news")
    assert dev.post("/topics/ACLIA2-CS-0001", fields).status_code == 302
    topic, texts, _ = topic_in(web_store, "ACLIA2-CS-0001")
    assert texts == {("question", "CS"): "什么是禽流感？", ("question", "EN"): "What is bird flu?",
                     ("narrative", "EN"): "The user wants a definition."}
    assert (topic.answer_type, topic.memo, topic.status, topic.updated_by) == ("DEFINITION", "2008 news",
                                                                               "in_progress", "dev")
    assert topic.version == int(fields["version"]) + 1
    page = dev.get("/topics/ACLIA2-CS-0001").get_data(as_text=True)
    assert form_of(page)["question_target"] == "什么是禽流感？"


def test_completing_needs_question_type_and_an_answer_text(app, web_store):
    dev = browser_for(app, "dev")
    dev.post("/topics/", {"lang": "CS", "topic_id": "ACLIA2-CS-0001"})
    fields = form_of(dev.get("/topics/ACLIA2-CS-0001").get_data(as_text=True))
    response = dev.post("/topics/ACLIA2-CS-0001", {**fields, "completed": "1"})
    assert response.status_code == 422
    text = response.get_data(as_text=True)
    assert "a question in the target language" in text and "an answer type" in text and "answer text" in text
    assert topic_in(web_store, "ACLIA2-CS-0001")[0].status == "in_progress"


def stale_save(app, store, field: str, theirs_value: str, mine_value: str):
    """Two people open a topic; the second saves `theirs_value` in `field`, then the first, from the
    older version, `mine_value`: the first's browser, form and answer."""
    make_topic(store, "ACLIA2-CS-0001", completed=False)
    first, second = browser_for(app, "dev"), browser_for(app, "org")
    mine = form_of(first.get("/topics/ACLIA2-CS-0001").get_data(as_text=True))
    theirs = form_of(second.get("/topics/ACLIA2-CS-0001").get_data(as_text=True))
    assert second.post("/topics/ACLIA2-CS-0001", {**theirs, field: theirs_value}).status_code == 302
    return first, mine, first.post("/topics/ACLIA2-CS-0001", {**mine, field: mine_value})


def test_stale_save_is_a_conflict_showing_both_versions(app, web_store):
    first, mine, response = stale_save(app, web_store, "memo", "their memo", "my memo")
    assert response.status_code == 409
    page = response.get_data(as_text=True)
    assert "my memo" in page and "their memo" in page and "Nothing was overwritten" in page
    assert topic_in(web_store, "ACLIA2-CS-0001")[0].memo == "their memo"
    # "Save mine over theirs" carries the current version: now it saves.
    version = re.search(r'name="version" value="(\d+)"', page).group(1)
    assert first.post("/topics/ACLIA2-CS-0001", {**mine, "memo": "my memo", "version": version}).status_code == 302
    assert topic_in(web_store, "ACLIA2-CS-0001")[0].memo == "my memo"


def test_gold_key_terms_are_written_in_the_topic_form_and_exported(app, web_store):
    make_topic(web_store, "ACLIA2-CS-0001", completed=False)
    with web_store.transaction() as session:  # an imported key term in a language the form does not show
        session.add(TopicText(topic_id="ACLIA2-CS-0001", kind="key_term", lang="JA", text="鳥インフル", position=9))
    dev = browser_for(app, "dev")
    fields = form_of(dev.get("/topics/ACLIA2-CS-0001").get_data(as_text=True))
    assert fields["key_terms_target"] == fields["key_terms_en"] == ""
    fields.update(key_terms_target="禽流感\r\n  ＣＺ－３Ａ \n\n禽流感\n", key_terms_en="bird flu")
    assert dev.post("/topics/ACLIA2-CS-0001", fields).status_code == 302
    shown = form_of(dev.get("/topics/ACLIA2-CS-0001").get_data(as_text=True))
    assert (shown["key_terms_target"], shown["key_terms_en"]) == ("禽流感\nＣＺ－３Ａ", "bird flu")
    with web_store.transaction() as session:
        exported = to_xml(export_topics(session, topic_ids=["ACLIA2-CS-0001"]))
    topic, problems = validate_bytes(exported, "topics.xml")
    assert problems == [] and [(k.lang, k.text) for k in topic.topics[0].key_terms] == [
        ("JA", "鳥インフル"), ("CS", "禽流感"), ("CS", "ＣＺ－３Ａ"), ("EN", "bird flu")]
    # Saving again with one term changed keeps the others' rows; emptied, a language's terms go.
    before = {t.text: t.id for t in topic_in_texts(web_store)}
    fields = form_of(dev.get("/topics/ACLIA2-CS-0001").get_data(as_text=True))
    assert dev.post("/topics/ACLIA2-CS-0001", {**fields, "key_terms_target": "ＣＺ－３Ａ\n甲型", "key_terms_en": ""}).status_code == 302
    after = {t.text: t.id for t in topic_in_texts(web_store)}
    assert set(after) == {"鳥インフル", "ＣＺ－３Ａ", "甲型"} and after["ＣＺ－３Ａ"] == before["ＣＺ－３Ａ"]
    fields = form_of(dev.get("/topics/ACLIA2-CS-0001").get_data(as_text=True))
    response = dev.post("/topics/ACLIA2-CS-0001", {**fields, "key_terms_en": "\n".join(map(str, range(101)))})
    assert response.status_code == 422 and "at most 100 key terms" in response.get_data(as_text=True)
    assert set(t.text for t in topic_in_texts(web_store)) == {"鳥インフル", "ＣＺ－３Ａ", "甲型"}


def topic_in_texts(store):
    with store.transaction() as session:
        return [t for t in session.get(Topic, "ACLIA2-CS-0001").texts if t.kind == "key_term"]


def test_key_terms_go_through_a_conflict_line_by_line(app, web_store):
    first, _mine, response = stale_save(app, web_store, "key_terms_target", "禽流感", "甲型\n流感")
    page = response.get_data(as_text=True)
    carried = dict(re.findall(r'<textarea name="(\w+)" hidden>([^<]*)</textarea>', page))
    assert carried["key_terms_target"] == "甲型\n流感" and "Key terms (target language)" in page
    version = re.search(r'name="version" value="(\d+)"', page).group(1)
    assert first.post("/topics/ACLIA2-CS-0001", {**carried, "version": version}).status_code == 302
    assert [t.text for t in topic_in_texts(web_store)] == ["甲型", "流感"]


def test_search_fragment_lists_hits_with_safe_snippets(app, web_store):
    make_topic(web_store, "ACLIA2-CS-0001", completed=False)
    dev = browser_for(app, "dev")
    page = dev.get("/topics/ACLIA2-CS-0001/search?q=禽流感").get_data(as_text=True)
    assert 'data-docid="XIN_CMN_20080101.0001"' in page and "禽流感新闻" in page
    assert "<mark>禽流感</mark>" in page and "data-start" not in page  # attributes are dropped
    page = dev.get("/topics/ACLIA2-CS-0001/search?q=北京晴").get_data(as_text=True)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "<script>alert" not in page
    assert "No document matches" in dev.get("/topics/ACLIA2-CS-0001/search?q=台风").get_data(as_text=True)
    assert app.config["SEARCH_ENGINE"].calls[0] == ("search", "CS", "禽流感", 1)


def test_search_pages_through_results(app, web_store):
    make_topic(web_store, "ACLIA2-CS-0001", completed=False)
    many = [(f"DOC.{i:02d}", "CS", f"新闻 {i}", "2008-01-01", "病毒 " * (i + 1)) for i in range(23)]
    app.config["SEARCH_ENGINE"] = FakeEngine(many)
    dev = browser_for(app, "dev")
    page = dev.get("/topics/ACLIA2-CS-0001/search?q=病毒&page=3").get_data(as_text=True)
    assert "23 documents" in page and "page 3 of 3" in page and '<ol class="hits" start="21">' in page
    assert 'data-page="2"' in page and 'data-page="4"' not in page


def test_search_failure_is_shown_not_raised_and_names_no_server_path(app, web_store, caplog):
    class Broken(FakeEngine):
        def search(self, *args, **kwargs):
            raise RuntimeError("no index in /srv/sepia/index/CS")

        def generate_query(self, *args, **kwargs):
            raise OSError("cannot read /srv/sepia/index/CS/_MAIN_1.toc")

    make_topic(web_store, "ACLIA2-CS-0001", completed=False)
    app.config["SEARCH_ENGINE"] = Broken()
    dev = browser_for(app, "dev")
    page = dev.get("/topics/ACLIA2-CS-0001/search?q=病毒").get_data(as_text=True)
    assert "The search failed" in page and "/srv/" not in page
    response = dev.post_json("/topics/ACLIA2-CS-0001/generate-query", {"key_terms": "禽流感"})
    assert response.status_code == 503 and "/srv/" not in response.get_data(as_text=True)
    assert "/srv/sepia/index/CS" in caplog.text  # the cause is in the server's log


def test_generate_query_from_key_terms(app, web_store):
    make_topic(web_store, "ACLIA2-CS-0001", completed=False)
    dev = browser_for(app, "dev")
    response = dev.post_json("/topics/ACLIA2-CS-0001/generate-query", {"key_terms": "禽流感，病毒, 人"})
    assert response.get_json() == {"query": "禽流感 病毒 人"}
    response = dev.post_json("/topics/ACLIA2-CS-0001/generate-query", {"key_terms": " , "})
    assert response.status_code == 422 and "key terms" in response.get_json()["error"]


def test_document_json_has_exact_text_and_code_point_hits(app, web_store):
    make_topic(web_store, "ACLIA2-CS-0001", completed=False)
    dev = browser_for(app, "dev")
    data = dev.get("/topics/ACLIA2-CS-0001/documents/XIN_CMN_20080101.0001?q=病毒 禽流感").get_json()
    assert data["text"] == CS_DOC
    # 𠀀 is one code point before the first 禽流感: offset 8, as Python counts.
    assert data["hits"][0] == [8, 11] and CS_DOC[8:11] == "禽流感"
    assert all(CS_DOC[s:e] in ("病毒", "禽流感") for s, e in data["hits"])
    assert dev.get("/topics/ACLIA2-CS-0001/documents/CNA_CMN_20080101.0001").status_code == 404  # a CT doc


def test_answer_texts_are_checked_against_the_document(app, web_store):
    make_topic(web_store, "ACLIA2-CS-0001", completed=False)
    dev = browser_for(app, "dev")
    url = "/topics/ACLIA2-CS-0001/answers"
    start = CS_DOC.index("禽流感是")
    end = CS_DOC.index("。", start)
    response = dev.post_json(url, {"docid": "XIN_CMN_20080101.0001", "start": start, "end": end,
                                   "text": CS_DOC[start:end]})
    assert response.status_code == 201
    answer = response.get_json()["answer"]
    assert (answer["start"], answer["end"], answer["text"]) == (8, 29, "禽流感是一种由甲型流感病毒引起的禽类传染病")
    # Offsets counted in UTF-16 units (one too many after 𠀀) do not match: refused, not stored shifted.
    response = dev.post_json(url, {"docid": "XIN_CMN_20080101.0001", "start": start + 1, "end": end + 1,
                                   "text": CS_DOC[start:end]})
    assert response.status_code == 422 and "does not match" in response.get_json()["error"]
    for payload, message in (
        ({"docid": "CNA_CMN_20080101.0001", "text": "颱風"}, "is in CT"),
        ({"docid": "NOPE", "text": "x"}, "No document"),
        ({"docid": "XIN_CMN_20080101.0001", "start": 5, "end": 999, "text": "x"}, "outside"),
        ({"docid": "XIN_CMN_20080101.0001", "start": "1x", "end": 3, "text": "x"}, "not a character offset"),
        ({"docid": "XIN_CMN_20080101.0001", "text": "   "}, "Select or type"),
        ({"docid": "XIN_CMN_20080101.0001", "text": "台风"}, "does not occur"),
    ):
        response = dev.post_json(url, payload)
        assert response.status_code == 422 and message in response.get_json()["error"], payload
    # Without offsets, the server finds the text itself.
    response = dev.post_json(url, {"docid": "XIN_CMN_20080101.0001", "text": "病毒可以传染给人"})
    assert response.get_json()["answer"]["start"] == CS_DOC.index("病毒可以")
    answers = topic_in(web_store, "ACLIA2-CS-0001")[2]
    assert [a.text for a in answers] == ["禽流感是一种由甲型流感病毒引起的禽类传染病", "病毒可以传染给人"]
    assert all(CS_DOC[a.start:a.end] == a.text for a in answers)
    # The same passage a second time is refused, with or without offsets.
    for payload in ({"docid": "XIN_CMN_20080101.0001", "text": "病毒可以传染给人"},
                    {"docid": "XIN_CMN_20080101.0001", "start": start, "end": end, "text": CS_DOC[start:end]}):
        response = dev.post_json(url, payload)
        assert response.status_code == 422 and "is saved already" in response.get_json()["error"]
    assert len(topic_in(web_store, "ACLIA2-CS-0001")[2]) == 2


def test_new_topics_are_offered_in_the_languages_that_have_a_collection(app, web_store):
    page = browser_for(app, "dev").get("/topics/").get_data(as_text=True)
    form = page.split('<select name="lang"')[1].split("</select>")[0]
    assert re.findall(r'<option value="([A-Z]{2})"', form) == ["CS", "CT", "JA"]  # the test store has no EN


def test_answer_form_without_javascript_and_deleting(app, web_store):
    make_topic(web_store, "ACLIA2-CS-0001", completed=False)
    dev = browser_for(app, "dev")
    response = dev.post("/topics/ACLIA2-CS-0001/answers", {"docid": "XIN_CMN_20080101.0001", "text": "专家说"})
    assert response.status_code == 302
    page = dev.get("/topics/ACLIA2-CS-0001").get_data(as_text=True)
    assert "专家说" in page and "Answer text saved" in page
    answer_id = topic_in(web_store, "ACLIA2-CS-0001")[2][0].id
    response = dev.client.post(f"/topics/ACLIA2-CS-0001/answers/{answer_id}/delete",
                               headers={"X-CSRFToken": dev.token, "Content-Type": "application/json"}, data="{}")
    assert response.get_json()["deleted"] == answer_id
    assert topic_in(web_store, "ACLIA2-CS-0001")[2] == []
    assert dev.post(f"/topics/ACLIA2-CS-0001/answers/{answer_id}/delete").status_code == 404


def test_topic_texts_are_escaped_and_tagged_with_their_language(app, web_store):
    make_topic(web_store, "ACLIA2-JA-0001", completed=False)
    dev = browser_for(app, "dev")
    fields = form_of(dev.get("/topics/ACLIA2-JA-0001").get_data(as_text=True))
    dev.post("/topics/ACLIA2-JA-0001", {**fields, "question_target": "</textarea><script>x()</script>首相は？"})
    page = dev.get("/topics/ACLIA2-JA-0001").get_data(as_text=True)
    assert "&lt;/textarea&gt;&lt;script&gt;x()&lt;/script&gt;首相は？" in page
    assert 'lang="ja"' in page


def test_snippet_cleaner_keeps_marks_only():
    dirty = '<mark data-start="1">禽</mark><img src=x onerror=alert(1)>&lt;b&gt;<b>粗</b><mark>open'
    assert str(safe_snippet(dirty)) == ('<mark>禽</mark>&lt;img src=x onerror=alert(1)&gt;&lt;b&gt;'
                                        '<b>粗</b><mark>open</mark>')


def test_missing_topic_is_404(app):
    assert browser_for(app, "dev").get("/topics/ACLIA2-CS-9999").status_code == 404


def test_answer_model_is_unchanged_by_a_failed_save(app, web_store):
    make_topic(web_store, "ACLIA2-CS-0001", completed=False)
    dev = browser_for(app, "dev")
    dev.post_json("/topics/ACLIA2-CS-0001/answers", {"docid": "NOPE", "text": "x"})
    with web_store.transaction() as session:
        assert session.query(AnswerText).count() == 0
