"""`sepia metaeval budget`: the simulation's figures against a sample-by-sample recomputation with
`ppi_means`, its helpers against scipy, and the command on the sample campaign."""
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats

from sepia.cli import main
from sepia.metaeval.budget import (PairedScores, budget_report, interval_figures, pair_differences,
                                   per_row_correlation)
from sepia.metaeval.ppi import ppi_mean, ppi_means
from sepia.metaeval.render import json_ready

CS = Path(__file__).resolve().parents[1] / "corpora" / "cs"


def _population(runs=5, topics=15, seed=2):
    rng = np.random.default_rng(seed)
    automatic = rng.random((runs, topics))
    human = np.clip(0.5 * automatic + rng.normal(0.2, 0.15, (runs, topics)), 0, 1)
    return human, automatic


def test_figures_equal_a_sample_by_sample_recomputation():
    human, automatic = _population()
    rng = np.random.default_rng(0)
    samples = np.array([rng.choice(15, 5, replace=False) for _ in range(230)])   # more than one chunk
    figures = interval_figures(human, automatic, samples, 0.9)
    covered = covered_human = widths = human_widths = decided = 0
    for sample in samples:
        shared = ppi_means(human[:, sample], automatic[:, sample], automatic, level=0.9)   # one lambda for the runs
        for y, f, tuned in zip(human, automatic, shared):
            plain = ppi_mean(y[sample], f[sample], f, level=0.9, lam=0)
            covered += tuned.low <= y.mean() <= tuned.high
            covered_human += plain.low <= y.mean() <= plain.high
            widths, human_widths = widths + tuned.width, human_widths + plain.width
            decided += tuned.low > 0 or tuned.high < 0
    cells = len(samples) * len(human)
    assert figures["coverage"] == pytest.approx(covered / cells)
    assert figures["human_only_coverage"] == pytest.approx(covered_human / cells)
    assert figures["width"] == pytest.approx(widths / cells)
    assert figures["human_only_width"] == pytest.approx(human_widths / cells)
    assert figures["width_ratio"] == pytest.approx(widths / human_widths)
    assert figures["decided"] == pytest.approx(decided / cells)


def test_helpers_against_scipy():
    human, automatic = _population()
    expected = np.mean([stats.pearsonr(h, a).statistic for h, a in zip(human, automatic)])
    assert per_row_correlation(human, automatic) == pytest.approx(expected)
    differences = pair_differences(human)
    assert differences.shape == (10, 15)
    assert np.allclose(differences[0], human[0] - human[1]) and np.allclose(differences[-1], human[3] - human[4])


def test_report_per_budget():
    human, automatic = _population()
    scores = PairedScores("CS-CS", [f"R{i}" for i in range(5)], [f"T{i}" for i in range(15)], human, automatic)
    report = budget_report([scores], [5, 40, 100], trials=200, seed=1)
    few, some, every = report["language_pairs"][0]["budgets"]
    assert few["judged"] == 1 and "means" not in few            # 5% of 15 topics: one, no interval
    assert some["judged"] == 6 and 0.8 < some["means"]["coverage"] <= 1
    assert every["means"]["coverage"] == 1 and every["means"]["width"] == pytest.approx(0)
    assert every["means"]["tau"] == pytest.approx(1) and every["differences"]["coverage"] == 1
    again = budget_report([scores], [5, 40, 100], trials=200, seed=1)
    assert json_ready(again) == json_ready(report)                                      # the seed reproduces every figure


def _args(*extra):
    return ["metaeval", "budget", "--gold", str(CS / "gold.xml"), "--runs", str(CS / "runs"),
            "--judgments", str(CS / "judgments.tsv"), *extra]


def test_command_on_the_sample_campaign():
    result = CliRunner().invoke(main, _args("--budgets", "50,100%", "--trials", "50", "--format", "json"))
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["matcher"] == "binarized"
    cs = next(g for g in report["language_pairs"] if g["language_pair"] == "CS-CS")
    assert (cs["runs"], cs["topics"]) == (3, 6)
    half, full = cs["budgets"]
    assert half["judged"] == 3 and full["means"]["coverage"] == 1
    table = CliRunner().invoke(main, _args("--budgets", "50", "--trials", "20"))
    assert table.exit_code == 0 and "CS-CS: 3 runs x 6 topics" in table.output and "Aims: coverage 93-97%" in table.output


@pytest.mark.parametrize("budgets", ["0", "10,150", "ten"])
def test_bad_budgets_are_one_line_usage_errors(budgets):
    result = CliRunner().invoke(main, _args("--budgets", budgets))
    assert result.exit_code == 2
    assert "--budgets" in result.output and "Traceback" not in result.output


RAG24 = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec-rag24" / "rag24_nugget_assignment.20241108.jl"


@pytest.mark.skipif(not RAG24.exists(), reason="TREC RAG 2024 data not in ../shared/data")
@pytest.mark.slow
def test_docs_show_what_the_command_prints_on_trec_rag(tmp_path):
    runner = CliRunner()
    assert runner.invoke(main, ["convert", "nuggetizer", str(RAG24), "--out", str(tmp_path / "rag24")]).exit_code == 0
    result = runner.invoke(main, ["metaeval", "budget", "--gold", str(tmp_path / "rag24" / "gold.xml"),
                                  "--runs", str(tmp_path / "rag24" / "runs"),
                                  "--judgments", str(tmp_path / "rag24" / "judgments.tsv")])
    assert result.exit_code == 0, result.output
    docs = (Path(__file__).resolve().parents[1] / "docs" / "metaeval.md").read_text(encoding="utf-8")
    block = docs.split("$ sepia metaeval budget --gold rag24/gold.xml")[1].split("```")[0].splitlines()[1:]
    assert len(block) == 38 and all(line in result.stdout for line in block)


def test_item_plans_print_their_ratio_and_correlation():
    result = CliRunner().invoke(main, _args("--budgets", "50", "--trials", "20", "--format", "json"))
    cs = next(g for g in json.loads(result.stdout)["language_pairs"] if g["language_pair"] == "CS-CS")
    (items,), (topics,) = cs["item_plans"], cs["budgets"]
    table = CliRunner().invoke(main, _args("--budgets", "50", "--trials", "20")).output
    row = next(line.split() for line in table.splitlines()[table.splitlines().index(
        next(x for x in table.splitlines() if x.startswith("Item-level plans"))) + 2:] if line.strip().startswith("50%"))
    assert row[7] == f"{items['means']['width'] / topics['means']['width']:.3f}" and row[8] == f"{items['correlation']:.2f}"
