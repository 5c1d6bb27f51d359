"""The results page in Chromium: with judgments stored, an organiser ticks the learned matcher, scores,
and sees its table beside the human and BINARIZED ones. Screenshot: test-artifacts/results-learned.png."""
from __future__ import annotations

import pytest

from conftest import accounts_app, log_in, serving, shoot

from sepia.formats.judgments import read_judgments
from sepia.formats.read import read_file
from sepia.resources import resource_dir
from sepia.store.exchange.gold import import_gold
from sepia.store.exchange.judgments import import_judgments
from sepia.store.exchange.runs import import_run
from sepia.store.exchange.topics import import_topics

pytestmark = [pytest.mark.browser]
CS = resource_dir("corpora") / "cs"


@pytest.fixture
def site(tmp_path):
    app = accounts_app(tmp_path, "learned")
    with app.extensions["sepia_store"].transaction() as session:
        import_topics(session, read_file(CS / "topics.xml"))
        import_gold(session, read_file(CS / "gold.xml"))
        for path in sorted((CS / "runs").glob("*.xml")):
            import_run(session, read_file(path))
        import_judgments(session, read_judgments(CS / "judgments.tsv"))
    yield from serving(app)


def test_organiser_scores_with_the_learned_matcher(chromium, site):
    page = log_in(chromium, site, "org")
    page.goto(f"{site.url}/results/")
    page.check("input[name=learned]")
    with page.expect_navigation():
        page.click("button:has-text('Score the stored runs now')")
    assert "automatic (learned)" in page.locator(".flash").first.inner_text()
    assert page.locator("text=CS-CS: automatic (learned) F3").count() == 1
    shoot(page, "results-learned.png", full_page=False)
