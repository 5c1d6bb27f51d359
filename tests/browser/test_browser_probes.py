"""The adversarial probes page in Chromium: an organiser runs the probes on the stored CS, CT and JA
gold standards and sees the fooled rates and the chart. Screenshot: test-artifacts/probes.png."""
from __future__ import annotations

import pytest

from conftest import accounts_app, log_in, serving, shoot

from sepia.formats.read import read_file
from sepia.resources import resource_dir
from sepia.store.exchange.gold import import_gold
from sepia.store.exchange.topics import import_topics

pytestmark = [pytest.mark.browser]


@pytest.fixture
def site(tmp_path):
    app = accounts_app(tmp_path, "probes")
    with app.extensions["sepia_store"].transaction() as session:
        for lang in ("cs", "ct", "ja"):
            import_topics(session, read_file(resource_dir("corpora") / lang / "topics.xml"))
            import_gold(session, read_file(resource_dir("corpora") / lang / "gold.xml"))
    yield from serving(app)


def test_organiser_runs_the_probes(chromium, site):
    page = log_in(chromium, site, "org")
    page.goto(f"{site.url}/results/")
    page.click("text=adversarial probes")
    with page.expect_navigation():
        page.click("button:has-text('Run the probes')")
    assert page.locator("h2").first.inner_text() == "Fooled rate, 18 topics"
    rows = page.locator("table.results tbody tr")
    assert rows.count() == 5 and rows.nth(0).locator("td").first.inner_text() == "binarized"
    chart = page.locator("img.chart")
    assert chart.evaluate("img => img.complete && img.naturalWidth > 400")  # the data URI passed the CSP
    shoot(page, "probes.png", full_page=True)
