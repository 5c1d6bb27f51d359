"""The organiser scores the stored CCLQA runs with numbers strict from the settings page in Chromium
(the form made from the matcher registry) and sees what `sepia evaluate --store --numbers strict`
gives. Screenshot: test-artifacts/results-settings.png."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from conftest import LiveServer, accounts_app, log_in

from sepia.cli import main
from sepia.formats.read import read_file
from sepia.resources import resource_dir
from sepia.store import io as store_io

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CS = resource_dir("corpora") / "cs"


@pytest.fixture
def site(tmp_path):
    app = accounts_app(tmp_path, "settings")
    store = app.extensions["sepia_store"]
    with store.transaction() as session:
        store_io.import_topics(session, read_file(CS / "topics.xml"))
        store_io.import_gold(session, read_file(CS / "gold.xml"))
        for path in sorted((CS / "runs").glob("*.xml")):
            store_io.import_run(session, read_file(path))
    server = LiveServer(app)
    yield server
    server.stop()
    store.dispose()


def test_numbers_strict_scored_in_the_browser(chromium, site, artifacts):
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
    org.screenshot(path=str(artifacts / "results-settings.png"), full_page=True)
