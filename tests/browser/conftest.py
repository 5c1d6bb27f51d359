"""Browser tests: a live SEPIA server over a fresh store and real search indexes, driven with
Playwright in Debian's Chromium. Skipped cleanly where Chromium or Playwright is missing
(tools/install-browser.sh installs both). SEPIA_TEST_SCREENSHOTS=1 saves the tests' pictures of the
screens in test-artifacts/."""
from __future__ import annotations

import fcntl
import functools
import logging
import os
import shutil
import sys
import threading
from pathlib import Path
from urllib.parse import urljoin

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # web_helpers

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
# Pictures of the screens are taken only when asked for: nothing checks them, and each costs the
# browser a tenth of a second or more.
SCREENSHOTS = os.environ.get("SEPIA_TEST_SCREENSHOTS") == "1"


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


def shoot(target, name: str, **options) -> None:
    """A picture of a page (or of an element) as test-artifacts/`name`, when SEPIA_TEST_SCREENSHOTS=1."""
    if SCREENSHOTS:
        ARTIFACTS.mkdir(exist_ok=True)
        target.screenshot(path=str(ARTIFACTS / name), **options)


def log_in(chromium, site, username, on_dialog=None, **context):
    """A fresh browser context logged in as `username`, showing the page the log-in leads to; dialogs
    (confirm, beforeunload) are accepted unless `on_dialog` handles them. `context` overrides the
    context's options (time zone, ...). The log-in form is sent, with its CSRF token, by the
    context's own HTTP client, whose cookies are the browser's: a third of the cost of rendering the
    form and filling it (test_browser_readme fills it in the browser, through tools/readme_screenshots.py)."""
    options = {"viewport": {"width": 1400, "height": 900}, "accept_downloads": True, "locale": "en-US", **context}
    page = chromium.new_context(**options).new_page()
    page.on("dialog", on_dialog or (lambda dialog: dialog.accept()))
    return switch_user(page, site, username)


def switch_user(page, site, username):
    """The same tab, its cookies cleared, logged in as `username` (as log_in): someone else at the
    same browser, without the renderer process a new context starts (a third of a second)."""
    from web_helpers import PASSWORD, TOKEN_RE

    page.context.clear_cookies()
    form = page.context.request.get(f"{site.url}/login")
    token = TOKEN_RE.search(form.text()).group(1)
    sent = page.context.request.post(f"{site.url}/login", max_redirects=0, form={
        "csrf_token": token, "username": username, "password": PASSWORD})
    assert sent.status == 302 and "/login" not in sent.headers["location"], sent.text()
    page.goto(urljoin(f"{site.url}/login", sent.headers["location"]))
    return page


def serving(app):
    """A live server over the app for a fixture to yield from: stopped, and its store disposed, after."""
    server = LiveServer(app)
    yield server
    server.stop()
    app.extensions["sepia_store"].dispose()


def _run_folder(tmp_path: Path) -> Path:
    """The folder of this test run (tmp_path_factory's), shared by its xdist workers: each worker's
    own is a folder in it."""
    base = tmp_path.parent
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@functools.lru_cache(maxsize=None)
def prepared_home(kind: str, run_folder: Path) -> Path:
    """A SEPIA_HOME holding `store.db`, a migrated store with the test accounts and what
    PREPARED[kind] adds (with its indexes), made once per test run and copied for each test: running
    the migrations, and loading and indexing a collection, cost more than the tests that use them."""
    templates = run_folder / "prepared"
    templates.mkdir(exist_ok=True)
    with open(templates / f"{kind}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker may be making it
        if not (templates / kind).exists():
            _make_home(templates / kind, PREPARED[kind])
    return templates / kind


def _make_home(folder: Path, fill) -> None:
    from web_helpers import add_accounts

    from sepia.store.db import Store

    work = folder.with_name(f"{folder.name}.part")
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("SEPIA_HOME", str(work))
        store = Store(f"sqlite:///{work / 'store.db'}")
        add_accounts(store)
        fill(store)
        with store.engine.connect() as connection:  # everything in store.db, nothing left in the WAL
            connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        store.dispose()
    work.rename(folder)


def _sample_collections(*names):
    def fill(store):
        from sepia.demo import load_collection, sample_collections
        from sepia.resources import resource_dir

        for folder in sample_collections(resource_dir("corpora")):
            if not names or folder.name in names:
                load_collection(store, folder, progress=False)
    return fill


def _cases(store):
    from sepia.services.indexing import build_index
    from sepia.store.models import Document

    with store.transaction() as session:
        for lang, case in CASES.items():
            for docid, title, date, text in case["docs"]:
                session.add(Document(docid=docid, lang=lang, title=title, date=date, text=text))
    for lang in CASES:
        build_index(store, lang, rebuild=True, procs=1, progress=False)


PREPARED = {
    "accounts": lambda store: None,
    "cases": _cases,  # the CASES' documents and their indexes
    "samples": _sample_collections(),  # every sample collection, loaded as `sepia demo` loads them
    "sample-cs": _sample_collections("cs"),
}


def accounts_app(tmp_path, name: str, monkeypatch=None, kind: str = "accounts"):
    """A web app on a store of its own holding the test accounts (web_helpers.add_accounts) and what
    `kind` of prepared_home adds, its indexes in `tmp_path`. With `monkeypatch`, SEPIA_HOME is
    `tmp_path` and SEPIA_DATABASE_URL the store's, for the test's `sepia` commands and the indexes."""
    from sepia.web import create_app

    home = prepared_home(kind, _run_folder(tmp_path))
    shutil.copytree(home, tmp_path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("store.db*"))
    shutil.copyfile(home / "store.db", tmp_path / f"{name}.db")
    url = f"sqlite:///{tmp_path / f'{name}.db'}"
    if monkeypatch is not None:
        monkeypatch.setenv("SEPIA_HOME", str(tmp_path))
        monkeypatch.setenv("SEPIA_DATABASE_URL", url)
    return create_app({"DATABASE_URL": url, "SECRET_KEY": "browser-test", "SESSION_COOKIE_SECURE": False})


def sample_campaign_app(tmp_path, monkeypatch):
    """`accounts_app` (with SEPIA_HOME and SEPIA_DATABASE_URL set) holding every sample collection,
    loaded as `sepia demo` loads them."""
    return accounts_app(tmp_path, "sepia", monkeypatch, kind="samples")


@pytest.fixture
def site(tmp_path):
    """A live site holding the CASES' documents, searched with real indexes (a module may define its own)."""
    from sepia.search import open_engine

    app = accounts_app(tmp_path, "browser", kind="cases")
    app.config["SEARCH_ENGINE"] = open_engine(tmp_path / "index")
    yield from serving(app)
