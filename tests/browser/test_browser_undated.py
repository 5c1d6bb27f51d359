"""An undated document opened beside the topic form shows its DOCID alone, without a separator
left dangling where the date would be (a dated one shows `DOCID · DATE`)."""
from __future__ import annotations

import pytest

from conftest import log_in
from test_browser_feel import new_topic

from sepia.store.models import Document

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def open_first_hit(page, query: str) -> str:
    page.fill("#query", query)
    page.keyboard.press("Enter")
    page.wait_for_selector(".hit")
    page.locator(".hit-title").first.click()
    page.wait_for_selector("#document:not([hidden])")
    return page.locator("#doc-docid").locator("..").inner_text()


def test_an_undated_document_shows_no_dangling_separator(chromium, site):
    page = log_in(chromium, site, "dev")
    new_topic(page, site, "CS")
    assert open_first_hit(page, "疫苗") == "XIN_CMN_20080302.0002 · 2008-03-02"
    with site.app.extensions["sepia_store"].transaction() as session:
        session.query(Document).filter_by(docid="XIN_CMN_20080302.0002").update({"date": None})
    page.keyboard.press("Escape")
    assert open_first_hit(page, "疫苗") == "XIN_CMN_20080302.0002"
    page.context.close()
