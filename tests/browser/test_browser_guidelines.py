"""Guidelines for assessors in a real browser: the organiser writes them, the assessor sees them
beside the item, the organiser saves a new version, and the assessor's next save waits (the judgment
kept in the form) until the new version is ticked as read. Screenshots go to
test-artifacts/guidelines-*.png."""
from __future__ import annotations

import pytest
from sqlalchemy import func, select

from conftest import LiveServer, log_in, shoot
from test_browser_judging import TOPIC, judged_topic_app

from sepia.store.models import GuidelineRead, NuggetJudgment
from sepia.store.pools import assign_pool, build_pool

pytestmark = [pytest.mark.browser, pytest.mark.slow]
V1 = "# Nugget matching\n\nTick a nugget when the response **says the same thing**, in any words.\n\n- A number must match.\n- <b>Ignore</b> the citations."
V2 = V1 + "\n\nNew in version 2: a response that only *hints* at a nugget does not match it."


@pytest.fixture
def site(tmp_path):
    app = judged_topic_app(tmp_path, "guidelines")
    store = app.extensions["sepia_store"]
    with store.transaction() as session:
        build_pool(session, "cclqa", "cclqa", 30)
        assign_pool(session, "cclqa", ["as1"])
    server = LiveServer(app)
    yield server
    server.stop()
    store.dispose()


def _write(page, site, text):
    page.goto(f"{site.url}/guidelines/")
    page.fill("#guidelines-nuggets textarea", text)
    with page.expect_navigation():
        page.click("#guidelines-nuggets button[type=submit]")


def _judged(site) -> int:
    with site.app.extensions["sepia_store"].transaction() as session:
        return session.scalar(select(func.count()).select_from(NuggetJudgment))


def test_guidelines_are_read_beside_the_item_and_a_new_version_acknowledged(chromium, site):
    org = log_in(chromium, site, "org")
    _write(org, site, V1)
    assert "saved as version 1" in org.locator("body").inner_text()
    as1 = log_in(chromium, site, "as1")
    as1.goto(f"{site.url}/judge/1/{TOPIC}")
    panel = as1.locator("details#guidelines")
    assert panel.get_attribute("open") is not None and "says the same thing" in panel.inner_text()
    assert as1.locator("details#guidelines strong").inner_text() == "says the same thing"
    assert as1.locator("details#guidelines b").count() == 0 and "<b>Ignore</b>" in panel.inner_text()
    as1.keyboard.press("1")
    as1.keyboard.press("Enter")  # not ticked as read: the browser keeps the form and says why
    as1.wait_for_timeout(300)
    assert as1.url.endswith(TOPIC) and as1.locator('input[name="nugget"]').nth(0).is_checked()
    box = as1.locator("input[data-guidelines-read]")
    assert "guidelines changed" in box.evaluate("b => b.validationMessage") and _judged(site) == 0
    box.check()
    with as1.expect_navigation():
        as1.keyboard.press("Enter")
    assert _judged(site) == 3 and as1.locator("details#guidelines").get_attribute("open") is None
    as1.keyboard.press("g")  # the panel opens and closes from the keyboard
    assert as1.locator("details#guidelines").get_attribute("open") is not None
    as1.keyboard.press("g")

    _write(org, site, V2)  # while the assessor's screen is open
    as1.keyboard.press("2")
    with as1.expect_navigation():
        as1.keyboard.press("Enter")  # the page was read before version 2: the server refuses, form kept
    assert "guidelines changed (version 2)" in as1.locator("body").inner_text() and _judged(site) == 3
    assert as1.locator('input[name="nugget"]').nth(1).is_checked()
    assert "only hints at a nugget" in as1.locator("details#guidelines").inner_text()
    shoot(as1, "guidelines-judging.png", full_page=True)
    as1.locator("input[data-guidelines-read]").check()
    with as1.expect_navigation():
        as1.keyboard.press("Enter")
    assert _judged(site) == 6
    with site.app.extensions["sepia_store"].transaction() as session:
        assert session.scalar(select(func.count()).select_from(GuidelineRead)) == 2  # one per version
    org.goto(f"{site.url}/guidelines/")
    shoot(org, "guidelines-organiser.png", full_page=True)
