"""IR4QA and Question Analysis results, browser uploads' warnings, charts and the pool form, in
Chromium as the roles that use them: a team's upload shows its warnings; the organiser scores the
stored IR4QA runs with the measures they choose and the QA runs, sees the tables (equal to the
--store commands) and charts (an SVG opened on its own renders), releases, and the team sees its
own runs; the pool form asks for a language, refuses an empty pool and rebuilds; an organiser on an
empty store sees the first steps. Screenshots go to test-artifacts/tasks-*.png."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from campaign_helpers import move_window, run_xml, schedule
from conftest import LiveServer, accounts_app, log_in, shoot
from web_helpers import add_documents

from sepia.cli import main
from sepia.formats.read import read_file
from sepia.ir4qa.qrels import read_qrels_rows
from sepia.resources import resource_dir
from sepia.store.exchange.runs import import_run
from sepia.store.exchange.topics import import_topics
from sepia.store.models import TaskWindow
from sepia.store.relevance import import_qrels

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CS = resource_dir("corpora") / "cs"
OWN = "TEAMX-CS-CS-01-T"


@pytest.fixture
def site(tmp_path):
    app = accounts_app(tmp_path, "tasks")
    store = app.extensions["sepia_store"]
    add_documents(store)  # a CS collection, so that a run citing other documents is warned about
    server = LiveServer(app)
    yield server
    server.stop()
    store.dispose()


def score_json(site, *args) -> dict:
    result = CliRunner(env={"SEPIA_DATABASE_URL": str(site.app.extensions["sepia_store"].engine.url)}).invoke(
        main, [*args, "--store", "--no-save", "--format", "json"])
    assert result.exit_code == 0, result.output
    return {r["run_id"]: r for r in json.loads(result.stdout)["runs"]}


def test_ir4qa_and_qa_results_warnings_and_charts(chromium, site, tmp_path):
    store = site.app.extensions["sepia_store"]
    org = log_in(chromium, site, "org")
    org.goto(f"{site.url}/")
    assert org.locator("#first-steps li").count() == 7  # an empty store: what to do first
    shoot(org, "tasks-first-steps.png")

    topics = read_file(CS / "topics.xml").topics
    with store.transaction() as session:
        import_topics(session, read_file(CS / "topics.xml"))
        import_qrels(session, read_qrels_rows(CS / "qrels.tsv"))
        import_run(session, read_file(CS / "ir4qa" / "TEAMA-CS-CS-01-T.xml"))
        import_run(session, read_file(CS / "qa" / "TEAMA-CS-CS-01-T.xml"))
    set_id = schedule(store, "Formal run", [t.topic_id for t in topics], {"qa": (-1, 1, None), "ir4qa": (-1, 1, None)})

    # The team uploads in the browser: the run is stored, and its warnings are shown as the API gives them.
    relevant = [line.split("\t")[1] for line in (CS / "qrels.tsv").read_text().splitlines()[1:]]
    par = log_in(chromium, site, "par")
    for kind, items in (("ir4qa", {t.topic_id: relevant[::-3][:4] + ["NOPE_999"] for t in topics[:4]}),
                        ("qa", {t.topic_id: ["DEFINITION"] for t in topics})):
        (tmp_path / f"{kind}.xml").write_bytes(run_xml(kind, OWN, items))
        par.goto(f"{site.url}/me")
        par.set_input_files("input[name=run]", str(tmp_path / f"{kind}.xml"))
        with par.expect_navigation():
            par.get_by_role("button", name="Upload and check").click()
        assert "Receipt" in par.locator("h1").inner_text()
        if kind == "ir4qa":
            warnings = par.locator(".flash-warning").all_inner_texts()
            assert any(w.startswith("ir4qa.xml:") and "document NOPE_999 is not in the CS collection" in w
                       for w in warnings), warnings
            shoot(par, "tasks-upload-warnings.png")

    # The organiser chooses the measures and scores every task.
    org.goto(f"{site.url}/results/")
    org.fill("input[name=measures]", "AP,ntcir:Q,ntcir:nDCG,P@10")
    with org.expect_navigation():
        org.get_by_role("button", name="Score the stored runs now").click()
    flashes = org.locator("#flashes").inner_text()
    assert "2 IR4QA runs scored (AP, ntcir:Q, ntcir:nDCG, P@10" in flashes and "2 Question Analysis runs scored" in flashes
    ir4qa, qa = score_json(site, "evaluate-ir4qa", "--measures", "AP,ntcir:Q,ntcir:nDCG,P@10"), score_json(site, "evaluate-qa")
    table = org.locator("#pair-CS-CS-ir4qa table")
    cells = table.locator("tbody tr").first.locator("td").all_inner_texts()
    best = next(iter(ir4qa.values()))
    assert cells == [best["run_id"], *(f"{best[m]:.4f}" for m in ("AP", "ntcir:Q", "ntcir:nDCG", "P@10"))]
    first_qa = org.locator("#pair-CS-CS-qa tbody tr").first.locator("td").all_inner_texts()
    assert first_qa[1] == f"{next(iter(qa.values()))['accuracy']:.4f}"
    chart = org.locator("#pair-CS-CS-ir4qa img.chart")
    chart.scroll_into_view_if_needed()
    assert chart.evaluate("img => img.complete && img.naturalWidth > 0")
    shoot(org, "tasks-results.png", full_page=True)

    # The chart opened on its own renders: matplotlib's inline styles apply (white ground, blue bars).
    svg = org.context.new_page()
    svg.goto(f"{site.url}/results/charts/ir4qa/CS-CS.svg")
    fill = svg.evaluate("() => getComputedStyle(document.querySelector('#patch_1 path')).fill")
    assert fill == "rgb(255, 255, 255)", fill
    shoot(svg, "tasks-chart-alone.png")

    # Released (IR4QA only), the team sees its IR4QA row beside the pair's mean and best.
    move_window(store, set_id, "ir4qa", -3, -2, -1)
    with store.transaction() as session:
        session.query(TaskWindow).filter_by(task="ir4qa").update({"publish_full_table": True})
    par.goto(f"{site.url}/results/mine")
    mine = par.locator("#mine-ir4qa").inner_text()
    assert f"{ir4qa[OWN]['AP']:.4f}" in mine and "CS-CS mean of the released runs" in mine
    assert par.locator("#mine-qa").count() == 0
    shoot(par, "tasks-team-results.png", full_page=True)

    # The pool form: a language is chosen, an empty pool refused, a pool rebuilt.
    org.goto(f"{site.url}/pools/")
    assert org.locator("select[name=lang]").input_value() == ""
    org.fill("input[name=name]", "JA relevance")
    org.select_option("select[name=kind]", "ir4qa")
    org.select_option("select[name=lang]", "JA")
    with org.expect_navigation():
        org.get_by_role("button", name="Build pool").click()
    assert "would be empty" in org.locator("#flashes").inner_text()
    org.fill("input[name=name]", "CS relevance")
    org.select_option("select[name=kind]", "ir4qa")
    org.select_option("select[name=lang]", "CS")
    with org.expect_navigation():
        org.get_by_role("button", name="Build pool").click()
    assert "Pool CS relevance:" in org.locator("#flashes").inner_text()
    with org.expect_navigation():
        org.get_by_role("button", name="Rebuild").click()  # the confirm is accepted
    assert "Pool CS relevance rebuilt" in org.locator("#flashes").inner_text()
    shoot(org, "tasks-pools.png", full_page=True)
