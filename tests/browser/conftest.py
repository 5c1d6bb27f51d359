"""Browser tests: a live SEPIA server over a fresh store and real search indexes, driven with
Playwright in Debian's Chromium. Skipped cleanly where Chromium or Playwright is missing
(tools/install-browser.sh installs both)."""
from __future__ import annotations

import logging
import os
import sys
import threading
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # web_helpers

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


# The `site` fixture's documents and test_browser_path's cases, per language: documents, key terms, the
# passage to select, and two nuggets taken from it.
# The passages sit after characters outside the BMP (𠮷 U+20BB7) and across search-hit marks,
# so an offset counted in UTF-16 units instead of code points would be caught by the server.
CASES = {
    "CS": {
        "docs": [("XIN_CMN_20080301.0001", "禽流感的起源", "2008-03-01",
                  "新华社北京3月1日电。𠮷世界卫生组织说，禽流感是一种由甲型流感病毒引起的禽类传染病。"
                  "专家认为，候鸟迁徙可能传播病毒。\n另外，北京今天天气晴朗。"),
                 ("XIN_CMN_20080302.0002", "疫苗研究", "2008-03-02", "科学家正在研究禽流感疫苗。")],
        "question": "什么是禽流感？", "english": "What is bird flu?", "type": "DEFINITION",
        "key_terms": "禽流感, 病毒",
        "passage": "禽流感是一种由甲型流感病毒引起的禽类传染病",
        "nuggets": ["甲型流感病毒引起", "禽类传染病"],
    },
    "CT": {
        "docs": [("CNA_CMN_20080801.0001", "颱風鳳凰來襲", "2008-08-01",
                  "中央社台北8月1日電。𠮷颱風鳳凰今天帶來豪雨，氣象局發布海上警報。"
                  "東部地區累積雨量超過三百毫米。")],
        "question": "颱風鳳凰帶來什麼影響？", "english": "What did Typhoon Fung-wong bring?", "type": "EVENT",
        "key_terms": "颱風, 豪雨",
        "passage": "颱風鳳凰今天帶來豪雨，氣象局發布海上警報",
        "nuggets": ["帶來豪雨", "發布海上警報"],
    },
    "JA": {
        "docs": [("YOMIURI_20080901.0001", "福田首相が辞任表明", "2008-09-01",
                  "東京発。𠮷福田康夫首相は1日夜、首相官邸で記者会見し、辞任する意向を表明した。"
                  "後任には麻生太郎幹事長が有力視されている。")],
        "question": "福田首相はなぜ辞任したか？", "english": "Why did Prime Minister Fukuda resign?",
        "type": "WHY", "key_terms": "首相, 辞任",
        "passage": "福田康夫首相は1日夜、首相官邸で記者会見し、辞任する意向を表明した",
        "nuggets": ["辞任する意向を表明", "記者会見"],
    },
}


@pytest.fixture(scope="session")
def chromium():
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is missing (run tools/install-browser.sh)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is missing (run tools/install-browser.sh)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        yield browser
        browser.close()


class LiveServer:
    def __init__(self, app):
        from werkzeug.serving import make_server

        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request in test output
        self.app = app
        self.server = make_server("127.0.0.1", 0, app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.thread.join(5)


@pytest.fixture
def artifacts():
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


def log_in(chromium, site, username, on_dialog=None, **context):
    """A fresh browser context logged in as `username`; dialogs (confirm, beforeunload) are accepted
    unless `on_dialog` handles them. `context` overrides the context's options (time zone, ...)."""
    from web_helpers import PASSWORD

    options = {"viewport": {"width": 1400, "height": 900}, "accept_downloads": True, "locale": "en-US", **context}
    page = chromium.new_context(**options).new_page()
    page.on("dialog", on_dialog or (lambda dialog: dialog.accept()))
    page.goto(f"{site.url}/login")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    with page.expect_navigation():
        page.click("button[type=submit]")
    assert "/login" not in page.url, page.content()
    return page


def serving(app):
    """A live server over the app for a fixture to yield from: stopped, and its store disposed, after."""
    server = LiveServer(app)
    yield server
    server.stop()
    app.extensions["sepia_store"].dispose()


def accounts_app(tmp_path, name: str, monkeypatch=None):
    """A web app on a fresh SQLite store holding the test accounts (web_helpers.add_accounts). With
    `monkeypatch`, SEPIA_HOME is `tmp_path` and SEPIA_DATABASE_URL the store's, for the test's `sepia`
    commands and the indexes."""
    from web_helpers import add_accounts

    from sepia.web import create_app

    url = f"sqlite:///{tmp_path / f'{name}.db'}"
    if monkeypatch is not None:
        monkeypatch.setenv("SEPIA_HOME", str(tmp_path))
        monkeypatch.setenv("SEPIA_DATABASE_URL", url)
    app = create_app({"DATABASE_URL": url, "SECRET_KEY": "browser-test", "SESSION_COOKIE_SECURE": False})
    add_accounts(app.extensions["sepia_store"])
    return app


def sample_campaign_app(tmp_path, monkeypatch):
    """`accounts_app` (with SEPIA_HOME and SEPIA_DATABASE_URL set) holding every sample collection,
    loaded as `sepia demo` loads them."""
    from sepia.demo import load_collection, sample_collections
    from sepia.resources import resource_dir

    app = accounts_app(tmp_path, "sepia", monkeypatch)
    for folder in sample_collections(resource_dir("corpora")):
        load_collection(app.extensions["sepia_store"], folder, progress=False)
    return app


@pytest.fixture
def site(tmp_path):
    """A live site holding the CASES' documents, searched with real indexes (a module may define its own)."""
    from sepia.search import open_engine
    from sepia.services.indexing import build_index
    from sepia.store.models import Document

    app = accounts_app(tmp_path, "browser")
    store = app.extensions["sepia_store"]
    with store.transaction() as session:
        for lang, case in CASES.items():
            for docid, title, date, text in case["docs"]:
                session.add(Document(docid=docid, lang=lang, title=title, date=date, text=text))
    for lang in CASES:
        build_index(store, lang, index_dir=tmp_path / "index", rebuild=True, procs=1, progress=False)
    app.config["SEARCH_ENGINE"] = open_engine(tmp_path / "index")
    yield from serving(app)
