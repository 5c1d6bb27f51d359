"""The README's pictures, taken from what a newcomer sees after `make demo`.

Builds the demo campaign exactly as `sepia demo` does (in a scratch data directory), serves the web
tool on it with the demo accounts, and photographs one screen per role with Debian's Chromium:

    python tools/readme_screenshots.py [--out docs/img]

demo-topic.png      topic developer: a demo topic, its generated query, a document with its saved passage
demo-vote.png       assessor: pyramid voting on a demo topic
demo-overview.png   organiser: votes, weights and Fleiss' kappa of the demo topics
demo-results.png    organiser: the campaign's results after scoring the stored runs
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import threading
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
TOPIC = "SEPIA-JA-0001"  # the first sample topic a newcomer opens
VOTE_TOPIC = "SEPIA-CS-0001"


def build_demo(home: Path) -> dict[str, str]:
    """The demo campaign in `home`, as `sepia demo --no-serve` leaves it; {username: password}."""
    from click.testing import CliRunner

    from sepia.cli import main

    result = CliRunner().invoke(main, ["demo", "--home", str(home), "--no-serve", "--no-progress"])
    if result.exit_code:
        raise SystemExit(f"sepia demo failed:\n{result.output}")
    from sepia.store.db import Store
    from sepia.services.accounts import seed_demo_accounts

    with Store() as store:
        return {username: password for username, password, _ in seed_demo_accounts(store)}


class Server:
    """The web tool on the demo store, in a thread of this process (Werkzeug, as `sepia demo` serves)."""

    def __init__(self):
        from werkzeug.serving import make_server

        from sepia.web import create_app

        logging.getLogger("werkzeug").setLevel(logging.WARNING)
        self.app = create_app({"SESSION_COOKIE_SECURE": False})
        self.httpd = make_server("127.0.0.1", 0, self.app, threaded=True)
        self.url = f"http://127.0.0.1:{self.httpd.server_port}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def stop(self):
        self.httpd.shutdown()


def log_in(browser, url: str, username: str, password: str):
    page = browser.new_context(viewport={"width": 1400, "height": 900}, locale="en-US").new_page()
    page.goto(f"{url}/login")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    with page.expect_navigation():
        page.click("button[type=submit]")
    if "/login" in page.url:
        raise SystemExit(f"could not log in as {username}")
    return page


def photograph(browser, url: str, passwords: dict[str, str], out: Path) -> list[Path]:
    taken = []

    def shot(page, name):
        path = out / name
        page.screenshot(path=str(path))
        taken.append(path)

    developer = log_in(browser, url, "developer", passwords["developer"])
    developer.goto(f"{url}/topics/{TOPIC}")
    developer.fill("#key-terms", "裁判員, 制度")
    developer.locator("#key-terms").blur()
    developer.keyboard.press("g")  # generate the query and search, as the topic developer would
    developer.wait_for_selector(".hit")
    developer.locator(".hit-title").first.click()
    developer.wait_for_selector("#document:not([hidden])")
    developer.evaluate("window.scrollTo(0, 0)")  # the document came into view; show the whole screen
    shot(developer, "demo-topic.png")

    assessor = log_in(browser, url, "assessor1", passwords["assessor1"])
    assessor.goto(f"{url}/votes/{VOTE_TOPIC}")
    shot(assessor, "demo-vote.png")

    organiser = log_in(browser, url, "organiser", passwords["organiser"])
    organiser.goto(f"{url}/votes/overview")
    shot(organiser, "demo-overview.png")
    organiser.goto(f"{url}/results/")
    score = organiser.locator("form[action$='/results/score'] button")
    if score.count():  # the demo scored on the command line; the page scores with the stored settings
        with organiser.expect_navigation():
            score.first.click()
    shot(organiser, "demo-results.png")
    return taken


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "docs" / "img")
    args = parser.parse_args(argv)
    if not os.path.exists(CHROMIUM):
        print(f"{CHROMIUM} is missing: run tools/install-browser.sh", file=sys.stderr)
        return 2
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        for path in take(browser, args.out):
            print(path)
        browser.close()
    return 0


def take(browser, out: Path) -> list[Path]:
    """Build the demo in a scratch directory, serve it and photograph it into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="sepia-readme-") as home:
        passwords = build_demo(Path(home))
        server = Server()
        try:
            return photograph(browser, server.url, passwords, out)
        finally:
            server.stop()
            server.app.extensions["sepia_store"].dispose()


if __name__ == "__main__":
    sys.exit(main())
