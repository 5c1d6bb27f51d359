"""A judging plan in a real browser: the organiser builds a CCLQA pool with a budget on the sample CS
collection, sees the plan and its progress on the pools page, and assigns it (only the planned topics
reach the assessor's queue). Screenshot: test-artifacts/plans-pools.png."""
from __future__ import annotations

import random

import pytest

from conftest import LiveServer, log_in
from web_helpers import add_accounts

from sepia.demo import load_collection, sample_collections
from sepia.resources import resource_dir
from sepia.web import create_app

pytestmark = [pytest.mark.browser]
CS_TOPICS = [f"SEPIA-CS-000{i}" for i in range(1, 7)]


@pytest.fixture
def site(tmp_path, monkeypatch):
    monkeypatch.setenv("SEPIA_HOME", str(tmp_path))
    url = f"sqlite:///{tmp_path / 'sepia.db'}"
    app = create_app({"DATABASE_URL": url, "SECRET_KEY": "browser-test", "SESSION_COOKIE_SECURE": False})
    store = app.extensions["sepia_store"]
    add_accounts(store)
    cs = next(f for f in sample_collections(resource_dir("corpora")) if f.name == "cs")
    load_collection(store, cs, progress=False)
    server = LiveServer(app)
    yield server
    server.stop()
    store.dispose()


def test_organiser_builds_a_pool_with_a_judging_plan(chromium, site, artifacts):
    page = log_in(chromium, site, "org")
    page.goto(f"{site.url}/pools/")
    page.fill("input[name=name]", "CS half")
    page.select_option("select[name=lang]", "CS")
    page.fill("input[name=budget]", "50%")
    page.fill("input[name=seed]", "3")
    with page.expect_navigation():
        page.click("button:has-text('Build pool')")
    chosen = sorted(random.Random(3).sample(CS_TOPICS, 3))
    plan = page.locator(".plan").first
    assert "CS 3 of 6 topics, 0 judged" in " ".join(plan.inner_text().split())
    assert ", ".join(chosen) in plan.inner_text()
    page.check("input[name=assessors][value=as1]")
    page.fill("input[name=overlap]", "0")
    with page.expect_navigation():
        page.click("button:has-text('Assign')")
    page.screenshot(path=str(artifacts / "plans-pools.png"), full_page=True)
    rows = page.locator("table.table tbody tr td.docid").all_inner_texts()
    assert sorted(set(rows)) == chosen
