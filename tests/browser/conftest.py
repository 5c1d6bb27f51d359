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


def accounts_app(tmp_path, name: str):
    """A web app on a fresh SQLite store holding the test accounts (web_helpers.add_accounts)."""
    from web_helpers import add_accounts

    from sepia.web import create_app

    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / f'{name}.db'}", "SECRET_KEY": "browser-test",
                      "SESSION_COOKIE_SECURE": False})
    add_accounts(app.extensions["sepia_store"])
    return app
