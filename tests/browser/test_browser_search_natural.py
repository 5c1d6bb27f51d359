"""The search pane with natural Japanese text (issue 21, item 2), in Chromium as a topic developer:
はやぶさの打ち上げ finds the documents with any of its words, those with both first, and says what it
searched; a quoted phrase without a hit says why and its button searches any of the words."""
from __future__ import annotations

import pytest
from conftest import LiveServer, accounts_app, log_in, shoot
from web_helpers import make_topic

from sepia.store.models import Document

DOCS = [
    ("JA-1", "宇宙ニュース", "探査機はやぶさの打ち上げが成功した。"),
    ("JA-2", "探査機の帰還", "はやぶさが地球に帰還した。"),
    ("JA-3", "ロケットの打ち上げ、打ち上げ", "新型ロケットの打ち上げは延期された。打ち上げが延期。"),
    ("JA-4", "天気", "東京は晴れ。"),
]


@pytest.fixture
def site(tmp_path):
    from sepia.search import open_engine
    from sepia.services.indexing import build_index

    app = accounts_app(tmp_path, "b")
    store = app.extensions["sepia_store"]
    with store.transaction() as session:
        session.add_all(Document(docid=d, lang="JA", title=t, date="2010-06-13", text=x) for d, t, x in DOCS)
    make_topic(store, "ACLIA2-JA-0001")
    build_index(store, "JA", index_dir=tmp_path / "index", procs=1, progress=False)
    app.config["SEARCH_ENGINE"] = open_engine(tmp_path / "index")
    server = LiveServer(app)
    yield server
    server.stop()
    store.dispose()


def test_natural_text_and_the_way_out_of_no_hit(chromium, site):
    page = log_in(chromium, site, "dev")
    page.goto(f"{site.url}/topics/ACLIA2-JA-0001")
    page.fill("#query", "はやぶさの打ち上げ")
    page.keyboard.press("Enter")
    page.wait_for_selector(".hit")
    assert page.locator(".hit").first.get_attribute("data-docid") == "JA-1"  # both words
    assert sorted(page.locator(".hit").evaluate_all("els => els.map(e => e.dataset.docid)")) == ["JA-1", "JA-2", "JA-3"]
    summary = page.locator("details.parsed summary").inner_text()
    assert 'Searched as any of its words, documents with all of them first: "はやぶさ" OR "打ち上げ"' in summary
    shoot(page, "search-natural.png")

    page.fill("#query", '"はやぶさの打ち上げ"')
    page.keyboard.press("Enter")
    page.wait_for_selector(".no-hit")
    assert "no JA document matches the whole query" in page.locator(".no-hit").inner_text()
    shoot(page, "search-no-hit.png")
    page.click("button[data-query]")
    page.wait_for_selector(".hit")
    assert page.locator("#query").input_value() == '"はやぶさ" OR "打ち上げ"'
