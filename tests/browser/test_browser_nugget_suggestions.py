"""The nugget screen's "Suggest nuggets" in Chromium, against a chat-completions stub: the nugget
creator discards one suggestion, edits and adds another, then adds a third as proposed; each added
nugget is linked to the answer text its sources name, and none has a vote. Screenshot:
test-artifacts/nugget-suggestions.png."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from conftest import accounts_app, log_in, serving, shoot

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from llm_stub import Stub  # noqa: E402
from test_llm_nuggetize import TOPIC, nuggetizing, with_passages  # noqa: E402

from sepia.llm.assessor import served_model  # noqa: E402
from sepia.store.models import Nugget  # noqa: E402

pytestmark = [pytest.mark.browser]


@pytest.fixture
def stub():
    with Stub(nuggetizing) as server:
        yield server


@pytest.fixture
def site(tmp_path, stub, monkeypatch):
    monkeypatch.setenv("SEPIA_LLM_CACHE", str(tmp_path / "llm-cache"))
    served_model.cache_clear()
    app = accounts_app(tmp_path, "suggest")
    app.config["LLM_OPTIONS"] = {"base_url": stub.url}
    with_passages(app.extensions["sepia_store"])
    yield from serving(app)


def test_the_nugget_creator_keeps_edits_and_discards_suggestions(chromium, site, stub):
    page = log_in(chromium, site, "org")
    page.goto(f"{site.url}/nuggets/{TOPIC}")
    with page.expect_navigation():
        page.click("button:has-text('Suggest nuggets')")
    cards = page.locator("li.suggestion")
    assert cards.count() == 3
    shoot(page, "nugget-suggestions.png", full_page=True)
    cards.nth(2).locator("button:has-text('Discard')").click()
    assert cards.count() == 2
    cards.nth(1).locator("textarea").fill("设计寿命约为一年")
    with page.expect_navigation():
        cards.nth(1).locator("button:has-text('Add as nugget')").click()
    assert "added" in page.locator(".flash").first.inner_text()
    with page.expect_navigation():
        page.click("button:has-text('Suggest nuggets')")  # again: from the cache
    with page.expect_navigation():
        page.locator("li.suggestion").nth(0).locator("button:has-text('Add as nugget')").click()
    assert stub.chats == 1
    with site.app.extensions["sepia_store"].transaction() as session:
        added = {n.text: ([a.docid for a in n.answer_texts], len(n.votes))
                 for n in session.query(Nugget).filter_by(topic_id=TOPIC, created_by="org")}
    assert added == {"设计寿命约为一年": (["SEPIA_CS_DOC.0002"], 0), "中国首颗月球探测卫星": (["SEPIA_CS_DOC.0001"], 0)}
