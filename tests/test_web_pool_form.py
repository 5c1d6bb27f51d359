"""The pool form's frictions removed: no language chosen for the organiser, an empty pool refused
(in the store, so the command refuses it too), a duplicate name answered with the form's own replace,
and a pool rebuilt or deleted from the web (its judgments kept)."""
from __future__ import annotations

import html
import re

from click.testing import CliRunner
from test_web_judging import TOPIC, build_and_assign, campaign
from web_helpers import browser_for

from sepia.cli import main
from sepia.store.models import Assignment, NuggetJudgment, Pool

POOL = {"name": "p", "kind": "cclqa", "lang": "CS", "priorities": "", "depth": ""}


def pools(store):
    with store.transaction() as session:
        return {p.name: len(p.entries) for p in session.query(Pool)}


def flashes(browser) -> str:
    return html.unescape(browser.get("/pools/").get_data(as_text=True))


def test_the_form_asks_for_a_language_and_says_which_have_runs(app, web_store):
    campaign(web_store)
    page = browser_for(app, "org").get("/pools/").get_data(as_text=True)
    assert '<select name="lang" required><option value="" selected disabled>Choose…</option>' in page
    assert '<option value="CS">CS (2 CCLQA, 2 IR4QA runs)</option>' in page
    assert '<option value="EN">EN (0 CCLQA, 0 IR4QA runs)</option>' in page


def test_an_empty_pool_is_refused_on_the_web_and_by_the_command(app, web_store):
    campaign(web_store)
    org = browser_for(app, "org")
    org.post("/pools/", {**POOL, "lang": "EN"})
    assert "pool p would be empty: no stored EN CCLQA run has a topic to pool" in flashes(org)
    org.post("/pools/", {**POOL, "priorities": "3"})
    assert "no stored CS CCLQA run of priority 3 has a topic to pool" in flashes(org)
    assert pools(web_store) == {}
    result = CliRunner(env={"SEPIA_DATABASE_URL": str(web_store.engine.url)}).invoke(
        main, ["pool", "build", "q", "--kind", "ir4qa", "--lang", "JA"])
    assert result.exit_code == 1 and "would be empty" in result.output and pools(web_store) == {}


def test_a_duplicate_name_points_at_the_forms_replace(app, web_store):
    campaign(web_store)
    org = browser_for(app, "org")
    org.post("/pools/", {**POOL, "depth": "1"})
    assert pools(web_store) == {"p": 2}
    org.post("/pools/", POOL)
    page = flashes(org)
    assert "A pool named p exists: tick “Replace the pool of that name”" in page and "use replace" not in page
    assert pools(web_store) == {"p": 2}
    org.post("/pools/", {**POOL, "replace": "1"})
    assert pools(web_store) == {"p": 4}  # 5 responses, 2 equal


def test_rebuild_and_delete_keep_the_judgments(app, web_store):
    campaign(web_store)
    org, as1 = browser_for(app, "org"), browser_for(app, "as1")
    pool_id = build_and_assign(org)
    page = as1.get(f"/judge/{pool_id}/{TOPIC}").get_data(as_text=True)
    action = re.search(r'<form[^>]*id="judge-form"[^>]*action="([^"]+)"', page) or re.search(
        r'action="(/judge/\d+/[^"]+/\d+)"', page)
    assert as1.post(action.group(1), {"nugget": ["1"], "action": "save"}).status_code == 302
    with web_store.transaction() as session:
        judged = session.query(NuggetJudgment).count()
        assert judged > 0 and session.query(Assignment).count() == 4
    page = org.get("/pools/").get_data(as_text=True)
    assert f'action="/pools/{pool_id}/rebuild"' in page and 'data-confirm="Delete cclqa pool' in page
    org.post(f"/pools/{pool_id}/rebuild")
    assert "Pool cclqa pool rebuilt: 4 items; assign it again." in flashes(org)
    with web_store.transaction() as session:
        assert session.query(Assignment).count() == 0 and session.query(NuggetJudgment).count() == judged
        [pool] = session.query(Pool).all()
        assert (pool.kind, pool.lang, pool.priorities, len(pool.entries)) == ("cclqa", "CS", "1", 4)
        new_id = pool.id
    org.post(f"/pools/{new_id}/delete")
    assert "Pool cclqa pool deleted; the judgments made in it are kept." in flashes(org)
    assert pools(web_store) == {}
    with web_store.transaction() as session:
        assert session.query(NuggetJudgment).count() == judged
    assert org.post(f"/pools/{new_id}/delete").status_code == 404
