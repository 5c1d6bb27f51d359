"""--matcher llm wherever a matcher works: `sepia evaluate --store` (SQLite and PostgreSQL), the web
results pages, `sepia metaeval` and `sepia metaeval adversarial`; each equal to the same stub's
decisions scored from the files by `evaluate_runs`."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from llm_stub import Stub
from sepia.cli import main
from sepia.formats.read import read_file
from sepia.metaeval.adversarial import _default_matchers, run_probes
from sepia.scoring.evaluate import Settings, evaluate_runs
from sepia.llm.assessor import served_model
from sepia.services.scores import score_stored_runs
from test_llm_matcher import in_text

CORPORA = Path(__file__).resolve().parents[1] / "corpora"


@pytest.fixture(autouse=True)
def fresh(tmp_path, monkeypatch):
    monkeypatch.setenv("SEPIA_LLM_CACHE", str(tmp_path / "llm-cache"))
    served_model.cache_clear()


@pytest.fixture
def stub():
    with Stub(in_text) as server:
        yield server


def files_scores(lang: str, url: str) -> dict[str, float]:
    gold = read_file(CORPORA / lang / "gold.xml", "gold")
    runs = [read_file(p, "cclqa") for p in sorted((CORPORA / lang / "runs").glob("*.xml"))]
    return {r.run_id: r.score for r in evaluate_runs(gold, runs, matcher="llm", matcher_options={"base_url": url})}


def test_store_scores_are_the_files_scores(campaign_store, stub):  # noqa: F811
    expected = {k: v for lang in ("cs", "ct", "ja") for k, v in files_scores(lang, stub.url).items()}
    result = CliRunner().invoke(main, ["evaluate", "--store", "--matcher", "llm", "--matcher-option",
                                       f"base_url={stub.url}", "--format", "json"])
    assert result.exit_code == 0, result.output
    stored = {r["run_id"]: r["score"] for r in json.loads(result.stdout)["runs"]}
    assert stored == pytest.approx(expected, abs=1e-12) and len(stored) == len(expected)
    chats = stub.chats
    again = score_stored_runs(campaign_store, {"matcher": "llm", "matcher_options": {"base_url": stub.url}}, save=False)
    assert {r.run_id: r.score for r in again} == stored and stub.chats == chats  # every reply from the cache


def test_store_refuses_a_server_that_does_not_answer_in_one_line(campaign_store):  # noqa: F811
    result = CliRunner().invoke(main, ["evaluate", "--store", "--matcher", "llm", "--matcher-option",
                                       "base_url=http://127.0.0.1:9/v1", "--matcher-option", "retries=0"])
    assert result.exit_code == 1 and "no answer" in result.output and result.output.strip().count("\n") == 0


def test_the_results_pages_show_the_llm_scores(app, web_store, stub):  # noqa: F811
    from tests.test_web_results import CORPUS, sample_campaign
    from web_helpers import browser_for

    sample_campaign(app, web_store)
    org = browser_for(app, "org")
    assert "CS-CS-llm" not in org.get("/results/").get_data(as_text=True)
    score_stored_runs(web_store, {"matcher": "llm", "matcher_options": {"base_url": stub.url}}, save=True)
    assert "CS-CS-llm" in org.get("/results/").get_data(as_text=True)
    files = files_scores(CORPUS.name, stub.url)
    rows = list(csv.reader(io.StringIO(org.get("/results/tables/CS-CS-llm.csv").get_data(as_text=True))))
    assert len(rows) == 4 and {r[0] for r in rows[1:]} <= set(files)
    for row in rows[1:]:
        assert row[1] == f"{files[row[0]]:.4f}", row


def test_metaeval_compares_the_llm_with_the_others(stub):
    cs = CORPORA / "cs"
    result = CliRunner().invoke(main, ["metaeval", "--gold", str(cs / "gold.xml"), "--run", str(cs / "runs"),
                                       "--judgments", str(cs / "judgments.tsv"), "--matcher", "binarized",
                                       "--matcher", "llm", "--matcher-option", f"base_url={stub.url}",
                                       "--permutations", "20", "--repetitions", "5", "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["matchers"] == ["binarized", "llm"]
    rows = {r["run_id"]: r["llm"] for r in report["scores"]}
    assert rows == pytest.approx(files_scores("cs", stub.url), abs=1e-12)
    assert report["versions"]["llm_model"] == "stub-model" and len(report["versions"]["llm_prompt_CS_sha256"]) == 64


def test_adversarial_probes_the_llm_when_told_where_to_ask(stub):
    gold = read_file(CORPORA / "ct" / "gold.xml", "gold")
    assert "llm" not in _default_matchers(Settings())  # nowhere to ask: left out of the default probe
    settings = Settings(matcher_options={"base_url": stub.url})
    assert "llm" in _default_matchers(settings)
    report = run_probes(gold, ["llm", "binarized"], settings=settings, probes=["numbers", "shuffle"])
    assert report.matchers[0] == "llm" and {"llm", "binarized"} <= {r.matcher for r in report.rows}
    assert all(r.topics > 0 for r in report.rows if r.matcher == "llm")
    cli = CliRunner().invoke(main, ["metaeval", "adversarial", "--gold", str(CORPORA / "ct" / "gold.xml"),
                                    "--matcher", "llm", "--matcher-option", f"base_url={stub.url}",
                                    "--probe", "numbers", "--format", "json"])
    assert cli.exit_code == 0, cli.output
    assert json.loads(cli.stdout)["versions"]["llm_model"] == "stub-model"
