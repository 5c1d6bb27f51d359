"""What keeps a request cheap (tools/bench_web.py measures it): pages read a topic as plain rows,
the same as the mapped objects hold; static files need no store and are cached by version; a
server process searches every collection once before it takes requests."""
from __future__ import annotations

import logging
import re
from types import SimpleNamespace

from flask import url_for
from sqlalchemy import event

from web_helpers import FakeEngine, add_documents, browser_for, make_topic
from tests.helpers import accounts

from sepia.store.models import NuggetSource, Pool, Topic, Vote
from sepia.web import gunicorn_conf, search_pane
from sepia.web.app import ITEM_MARKER, item_url
from sepia.store.item_view import read_item, read_queue
from sepia.store.topic_view import NuggetLike, TextLike, TopicLike, VoteLike, read_lang, read_topic

DOC = "XIN_CMN_20080101.0001"


def test_the_topic_as_pages_read_it_is_the_mapped_topic(store):  # conftest's store: every backend
    add_documents(store)
    make_topic(store, "ACLIA2-CS-0007", answers=[(DOC, 8, 29), (DOC, 0, 7)], nuggets=["禽流感", "病毒", "传染"])
    with store.transaction() as session:
        topic = session.get(Topic, "ACLIA2-CS-0007")
        topic.nuggets[0].votes = [Vote(assessor="as2", vital=True), Vote(assessor="as1", vital=False)]
        topic.nuggets[2].votes = [Vote(assessor="as1", vital=True)]
        topic.nuggets[1].answer_texts = []
        topic.nuggets[1].sources = [NuggetSource(docid="B", position=1), NuggetSource(docid="A", position=0)]
    with store.transaction() as session:
        mapped = session.get(Topic, "ACLIA2-CS-0007")
        view = read_topic(session.connection(), "ACLIA2-CS-0007", answers=True, nuggets=True, votes=True, links=True)
        assert (view.id, view.lang, view.status, view.answer_type, view.memo, view.version, view.updated_by) == (
            mapped.id, mapped.lang, mapped.status, mapped.answer_type, mapped.memo, mapped.version, mapped.updated_by)
        assert [tuple(t) for t in view.texts] == [(t.kind, t.lang, t.text) for t in mapped.texts]
        assert view.text_of("question", "EN") == "What is bird flu?"
        assert [tuple(a) for a in view.answer_texts] == [(a.id, a.docid, a.start, a.end, a.text, a.created_by)
                                                        for a in mapped.answer_texts]
        assert [(n.id, n.label, n.text, n.version) for n in view.nuggets] == [
            (n.id, n.label, n.text, n.version) for n in mapped.nuggets]
        for seen, held in zip(view.nuggets, mapped.nuggets):
            assert [tuple(v) for v in seen.votes] == [(held.id, v.assessor, v.vital) for v in held.votes]
            assert [s.docid for s in seen.sources] == [s.docid for s in held.sources]
            assert sorted(a.id for a in seen.answer_texts) == sorted(a.id for a in held.answer_texts)
        assert [s.docid for s in view.nuggets[1].sources] == ["A", "B"]
        for topic in (mapped, view):  # every name of the protocol the pages read, in both (mypy checks the types)
            assert isinstance(topic, TopicLike) and all(isinstance(t, TextLike) for t in topic.texts)
            assert all(isinstance(n, NuggetLike) and all(isinstance(v, VoteLike) for v in n.votes)
                       for n in topic.nuggets)
        assert read_topic(session.connection(), "ACLIA2-CS-9999") is None
        assert tuple(read_lang(session.connection(), "ACLIA2-CS-0007")) == ("ACLIA2-CS-0007", "CS")
        assert read_lang(session.connection(), "ACLIA2-CS-9999") is None
        bare = read_topic(session.connection(), "ACLIA2-CS-0007")
        assert bare.texts and not bare.answer_texts and not bare.nuggets


def test_the_queue_as_the_judging_screens_read_it_is_the_mapped_queue(store):  # every backend
    """The pool and the assessor's queue of a topic in one query; the item judged, with its responses
    and their DOCIDs (CCLQA) or its document and level (IR4QA): the mapped objects' values."""
    from sqlalchemy import select

    from test_web_judging import TOPIC, campaign

    from sepia.formats import model
    from sepia.store import judging
    from sepia.store.exchange.runs import import_run
    from sepia.store.models import Assignment, Document, PoolEntry, RelevanceJudgment, Response, ResponseDocument, RunTopic
    from sepia.store.pools import assign_pool, build_pool

    add_documents(store)
    campaign(store)
    with store.transaction() as session:  # a response citing more documents, added out of their order
        cited = session.scalar(select(Response).join(RunTopic).where(RunTopic.topic_id == TOPIC).limit(1))
        cited.docids += [ResponseDocument(docid="DOC-B", position=9), ResponseDocument(docid="DOC-A", position=8)]
        import_run(session, model.IR4QARun(model.Metadata("TEAMC-CS-CS-01-T"), [  # a document not stored
            model.IR4QATopic(TOPIC, [model.RetrievedDoc(1, "XIN_CMN_20990101.0009")])]))
    with store.transaction() as session:
        pools = [build_pool(session, "p", "cclqa", 10), build_pool(session, "q", "ir4qa", 10)]
        accounts(session, "as1", "as2")
        assign_pool(session, "p", ["as1", "as2"], overlap=0.5, seed=3)
        assign_pool(session, "q", ["as1"])
        session.flush()
        ids = [pool.id for pool in pools]
        mapped = session.scalars(select(Assignment).join(PoolEntry).where(
            Assignment.assessor == "as1", PoolEntry.pool_id == ids[0]).order_by(Assignment.position)).all()
        mapped[1].skipped, mapped[2].judged_at = True, judging.db.utcnow()
        judged = session.scalars(select(PoolEntry).where(PoolEntry.pool_id == ids[1])).first()
        session.add(RelevanceJudgment(topic_id=judged.topic_id, docid=judged.docid, assessor="as1", level=2))
    with store.transaction() as session:
        connection = session.connection()
        members, cited = 0, False
        for pool_id in ids:
            pool = session.get(Pool, pool_id)
            mapped = session.scalars(select(Assignment).join(PoolEntry).where(
                Assignment.assessor == "as1", PoolEntry.pool_id == pool_id).order_by(Assignment.position)).all()
            seen_pool, queue = read_queue(connection, "as1", pool_id, TOPIC)
            assert (seen_pool.id, seen_pool.name, seen_pool.kind, seen_pool.suggest, seen_pool.training) == (
                pool.id, pool.name, pool.kind, pool.suggest, pool.training)
            assert len(queue) == len(mapped) > 1
            assert [(a.id, a.skipped, a.judged_at) for a in queue] == [(a.id, a.skipped, a.judged_at) for a in mapped]
            assert read_queue(connection, "as1", pool_id, "ACLIA2-CS-9999") == (None, [])
            assert read_queue(connection, "as9", pool_id, TOPIC) == (None, [])
            assert read_item(connection, 10**9, pool.kind) is None
            if pool.kind == "cclqa":
                assert judging.next_open(queue).id == mapped[0].id and judging.next_open(queue, 0).id == mapped[3].id
            for held in mapped:
                seen = read_item(connection, held.id, pool.kind)
                assert (seen.id, seen.assessor, seen.comment, seen.skipped, seen.judged_at) == (
                    held.id, held.assessor, held.comment, held.skipped, held.judged_at)
                entry = held.entry
                assert (seen.entry.id, seen.entry.topic_id, seen.entry.response_id, seen.entry.docid,
                        seen.entry.control_id) == (entry.id, entry.topic_id, entry.response_id, entry.docid,
                                                   entry.control_id)
                responses = [(m.id, m.text, [d.docid for d in m.docids]) for m in entry.members]
                assert [(m.id, m.text, [d.docid for d in m.docids]) for m in seen.entry.members] == (
                    responses if pool.kind == "cclqa" else [])
                members += len(seen.entry.members)
                cited |= any(len(m.docids) > 1 for m in seen.entry.members)
                stored = session.scalar(select(Document).where(Document.docid == entry.docid))
                assert (seen.document and (seen.document.docid, seen.document.title, seen.document.text)) == (
                    stored and (stored.docid, stored.title, stored.text))
                assert seen.level == session.scalar(select(RelevanceJudgment.level).where(
                    RelevanceJudgment.topic_id == entry.topic_id, RelevanceJudgment.docid == entry.docid,
                    RelevanceJudgment.assessor == "as1"))
        assert members > 4 and cited
        ir4qa = [read_item(connection, a.id, "ir4qa") for a in mapped]  # the IR4QA pool's: one judged, one not stored
        assert {i.level for i in ir4qa} == {None, 2} and {i.document is None for i in ir4qa} == {True, False}


def test_static_files_need_no_store_and_are_kept_by_version(app):
    browser = browser_for(app, "dev")
    page = browser.get("/topics/").get_data(as_text=True)
    versioned = re.search(r'href="(/static/sepia\.css\?v=[0-9a-f]{12})"', page).group(1)
    statements = []
    engine = app.extensions["sepia_store"].engine
    listener = lambda *args, **kwargs: statements.append(1)  # noqa: E731
    event.listen(engine, "before_cursor_execute", listener)
    try:
        kept = browser.get(versioned)
        asked = browser.get("/static/sepia.css")
    finally:
        event.remove(engine, "before_cursor_execute", listener)
    assert statements == []
    assert kept.status_code == 200 and kept.headers["Cache-Control"] == "public, max-age=31536000"
    assert asked.status_code == 200 and asked.headers["Cache-Control"] == "no-cache"
    assert browser.get("/static/sepia.css", headers={"If-None-Match": asked.headers["ETag"]}).status_code == 304
    assert kept.headers["X-Content-Type-Options"] == "nosniff" and "Access-Control-Allow-Origin" not in kept.headers
    assert kept.headers["Content-Type"].startswith("text/css") and kept.get_data() == asked.get_data()
    assert browser.get("/static/missing.css?v=1").status_code == 404  # not one of the files: Flask answers
    assert browser.get("/static/sepia.css?nov=1").headers["Cache-Control"] == "no-cache"


def test_a_server_process_searches_every_collection_before_it_takes_requests(app):
    engine = app.config["SEARCH_ENGINE"]
    said: list[str] = []
    gunicorn_conf.post_worker_init(SimpleNamespace(wsgi=app, log=SimpleNamespace(info=said.append)))
    assert sorted(lang for kind, lang, *_ in engine.calls if kind == "search") == ["CS", "CT", "JA"]
    assert len(said) == 4 and said[-1] == "ready: every collection searched once"  # a line per collection, then ready


def test_a_broken_index_does_not_stop_the_warm_up(app, caplog):
    class Broken(FakeEngine):
        def search(self, lang, query, page=1, page_size=10):
            raise OSError("index damaged")

    app.config["SEARCH_ENGINE"] = Broken()
    with app.app_context(), caplog.at_level(logging.WARNING):
        search_pane.warm_up()
    assert "search warm-up: index damaged" in caplog.text


def test_item_urls_are_the_urls_url_for_builds(app):
    with app.test_request_context("/", base_url="http://example.org/sepia"):
        for topic_id in ("ACLIA2-CS-0001", f"T-{ITEM_MARKER}", f"{ITEM_MARKER}"):  # the marker in another value
            for endpoint in ("nuggets.update", "nuggets.delete"):
                build = item_url(endpoint, "nugget_id", topic_id=topic_id)
                for nugget_id in (1, 42, 10**12):
                    assert build(nugget_id) == url_for(endpoint, topic_id=topic_id, nugget_id=nugget_id)
        assert item_url("nuggets.delete", "nugget_id", topic_id="T")(7) == "/sepia/nuggets/T/7/delete"


def test_a_tables_rows_are_the_template_loop_they_replace():
    """Table.html_rows gives byte for byte what results/_table.html's loop per cell gave (context
    rows, missing values, digits, text to escape), so the results pages are unchanged."""
    from jinja2 import Environment

    from sepia.campaign.tables import Table

    loop = Environment(autoescape=True).from_string(
        """  {% for row in table.rows %}
    <tr{% if loop.revindex0 < table.context %} class="context"{% endif %}>{% for value in row %}<td class="{{ 'num' if not loop.first else 'docid' }}">{{ table.cell(value) }}</td>{% endfor %}</tr>
  {% endfor %}""")
    tables = [Table("k", "t", ["run", "F3", "n"], [["A<b>&\"'", 0.123456, 3], ["B", None, 1.5], ["mean", 1 / 3, None],
                                                   ["best", 0.5, 2]], digits=3, context=2),
              Table("k", "t", ["run"], [["only"]]), Table("k", "t", ["run", "x"], [], context=1),
              Table("k", "t", ["run", "x"], [["a", 1.0]], context=3)]
    for table in tables:
        assert "  " + str(table.html_rows()) == loop.render(table=table)
    assert 'class="context"' in str(tables[0].html_rows()) and "&lt;b&gt;&amp;&#34;&#39;" in str(tables[0].html_rows())
