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

from sepia.store.models import NuggetSource, Topic, Vote
from sepia.web import gunicorn_conf, search_pane
from sepia.web.app import ITEM_MARKER, item_url
from sepia.web.topic_view import read_lang, read_topic

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
        assert read_topic(session.connection(), "ACLIA2-CS-9999") is None
        assert tuple(read_lang(session.connection(), "ACLIA2-CS-0007")) == ("ACLIA2-CS-0007", "CS")
        assert read_lang(session.connection(), "ACLIA2-CS-9999") is None
        bare = read_topic(session.connection(), "ACLIA2-CS-0007")
        assert bare.texts and not bare.answer_texts and not bare.nuggets


def test_the_queue_as_the_judging_screens_read_it_is_the_mapped_queue(store):  # every backend
    """One query of (id, skipped, judged_at) in queue order; the item judged loaded with its responses."""
    from sqlalchemy import select

    from test_web_judging import TOPIC, campaign

    from sepia.store import judging
    from sepia.store.models import Assignment, PoolEntry
    from sepia.store.pools import assign_pool, build_pool

    add_documents(store)
    campaign(store)
    with store.transaction() as session:
        pool = build_pool(session, "p", "cclqa", 10)
        assign_pool(session, "p", ["as1", "as2"], overlap=0.5, seed=3)
        mapped = session.scalars(select(Assignment).join(PoolEntry).where(
            Assignment.assessor == "as1", PoolEntry.pool_id == pool.id).order_by(Assignment.position)).all()
        mapped[1].skipped, mapped[2].judged_at = True, judging.db.utcnow()
    with store.transaction() as session:
        mapped = session.scalars(select(Assignment).join(PoolEntry).where(
            Assignment.assessor == "as1", PoolEntry.pool_id == pool.id).order_by(Assignment.position)).all()
        queue = judging.topic_queue(session, "as1", pool.id, TOPIC)
        assert len(queue) == len(mapped) > 2
        assert [tuple(a) for a in queue] == [(a.id, a.skipped, a.judged_at) for a in mapped]
        assert judging.next_open(queue).id == mapped[0].id and judging.next_open(queue, 0).id == mapped[3].id
        item = judging.queue_item(session, mapped[0].id)
        assert [(m.id, m.text, [d.docid for d in m.docids]) for m in item.entry.members] == [
            (m.id, m.text, [d.docid for d in m.docids]) for m in mapped[0].entry.members]
        assert judging.queue_item(session, mapped[1].id, responses=False).entry.docid == mapped[1].entry.docid
        assert judging.topic_queue(session, "as1", pool.id, "ACLIA2-CS-9999") == []


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
    gunicorn_conf.post_worker_init(SimpleNamespace(wsgi=app))
    assert sorted(lang for kind, lang, *_ in engine.calls if kind == "search") == ["CS", "CT", "JA"]


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
