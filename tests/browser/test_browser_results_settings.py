"""The organiser scores the stored CCLQA runs with numbers strict from the settings page in Chromium
(the form made from the matcher registry) and sees what `sepia evaluate --store --numbers strict`
gives. Screenshot: test-artifacts/results-settings.png."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from conftest import LiveServer, accounts_app, log_in, shoot

from sepia.cli import main
from sepia.formats.read import read_file
from sepia.resources import resource_dir
from sepia.store.exchange.gold import import_gold
from sepia.store.exchange.runs import import_run
from sepia.store.exchange.topics import import_topics

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CS = resource_dir("corpora") / "cs"


@pytest.fixture
def site(tmp_path):
    app = accounts_app(tmp_path, "settings")
    store = app.extensions["sepia_store"]
    with store.transaction() as session:
        import_topics(session, read_file(CS / "topics.xml"))
        import_gold(session, read_file(CS / "gold.xml"))
        for path in sorted((CS / "runs").glob("*.xml")):
            import_run(session, read_file(path))
    server = LiveServer(app)
    yield server
    server.stop()
    store.dispose()


def test_numbers_strict_scored_in_the_browser(chromium, site):
    org = log_in(chromium, site, "org")
    org.goto(f"{site.url}/results/settings")
    form = org.locator("#settings-binarized")
    form.locator("select[name=numbers]").select_option("strict")
    with org.expect_navigation():
        form.locator("button[value=score]").click()
    assert "4 CCLQA runs scored (automatic (BINARIZED), θ 0.5, numbers strict)" in org.content()
    result = CliRunner(env={"SEPIA_DATABASE_URL": str(site.app.extensions["sepia_store"].engine.url)}).invoke(
        main, ["evaluate", "--store", "--no-save", "--numbers", "strict", "--format", "json"])
    assert result.exit_code == 0, result.output
    for run in json.loads(result.stdout)["runs"]:
        row = org.locator("#chosen tr", has=org.locator(f"td.docid:text-is('{run['run_id']}')")).first
        assert row.locator("td.num").first.inner_text() == f"{run['score']:.4f}"
    assert org.locator("#settings-binarized select[name=numbers]").input_value() == "strict"  # the choice stays
    shoot(org, "results-settings.png", full_page=True)


def test_a_team_sees_the_trec_rag_scores_of_the_settings_released(chromium, tmp_path):
    """A team's results page in Chromium once numbers strict is released: its run's F3 and TREC RAG
    scores under those settings. Screenshot: test-artifacts/results-settings-team.png."""
    from campaign_helpers import move_window
    from web_helpers import browser_for

    from test_web_results import OWN, sample_campaign

    app = accounts_app(tmp_path, "team-rag")
    set_id, _ = sample_campaign(app, app.extensions["sepia_store"])
    org = browser_for(app, "org")
    org.post("/results/score")
    move_window(app.extensions["sepia_store"], set_id, "cclqa", -3, -2, -1)
    strict = {"matcher": "binarized", "theta": "0.5", "numbers": "strict"}
    for action in ("score", "release"):
        org.post("/results/settings", data={**strict, "action": action})
    server = LiveServer(app)
    try:
        page = log_in(chromium, server, "par")
        page.goto(f"{server.url}/results/mine")
        table = page.locator("table", has=page.locator(f"td.docid:text-is('{OWN}')")).filter(
            has=page.locator("th:text-is('vital answered')"))
        assert table.count() == 1 and "TEAMA" not in page.content()
        shoot(page, "results-settings-team.png", full_page=True)
    finally:
        server.stop()
        app.extensions["sepia_store"].dispose()
