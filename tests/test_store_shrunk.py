"""A stored active plan's shrunk estimates with the learned matcher (`sepia evaluate --store --plan P
--matcher learned`): each run's estimate and each difference of two runs equal to `shrink` applied by
hand to the stored estimates, their standard errors (half-width over the normal quantile) and the
model's own estimate of each run, computed here from `CrossFitter.predict_held_out` with the runs
dealt into folds from the wave's seed (shrinkage allowed from 3 runs for the CS sample); none,
said so, for a language pair of fewer runs than shrinkage.MIN_UNITS; none,
with a warning and nothing else changed, when the held-out model cannot be trained."""
import json
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import norm

from sepia.cli import main
from sepia.formats.judgments import read_judgments
from sepia.matchers.learned.crossfit import CrossFitter
from sepia.matchers.learned.pairs import build_pairs
from sepia.metaeval.items import item_scores
from sepia.metaeval.learned_plans import PlanData, topic_f
from sepia.metaeval.shrinkage import shrink

from test_store_active_refit import CS, SEED, _cs, _drawn_plan, _file

SHRUNK = ("shrunk", "shrunk_low", "shrunk_high")


def _evaluate(runner, output="json"):
    result = runner.invoke(main, ["evaluate", "--store", "--plan", "p", "--matcher", "learned", "--format", output])
    assert result.exit_code == 0, result.output
    return result


def _anchors(gold, runs, judgments, seed: int) -> dict[str, float]:
    """Per run the mean over the topics of F from the held-out predictions: the runs (by ID) dealt
    into 5 folds by numpy's generator seeded [seed, 2], each run's pairs predicted by the model
    trained on the other folds' judged pairs; F as the simulation's `topic_f` computes it."""
    pairs = build_pairs(gold, runs, judgments)
    ids = sorted({k[0] for k in pairs.keys})
    fold = dict(zip(ids, np.random.default_rng([seed, 2]).permutation(len(ids)) % 5))
    predictions = CrossFitter(pairs).predict_held_out(~np.isnan(pairs.labels),
                                                      np.array([fold[k[0]] for k in pairs.keys]))
    scores = item_scores(gold, runs, judgments, "binarized")
    run_ids = [r for ids_, _ in scores.values() for r in ids_]
    stacked = [replace(parts[0], **{f: np.concatenate([getattr(p, f) for p in parts])
                                     for f in ("lengths", "answered", "human", "automatic")})
               for parts in zip(*(topics for _, topics in scores.values()))]
    data = PlanData.build(run_ids, stacked, pairs)
    return dict(zip(run_ids, topic_f(data.with_predictions(predictions), 3.0).mean(axis=1).tolist()))


def _by_hand(group: dict, anchor: dict[str, float], level=0.95) -> tuple[list, list]:
    """The group's runs' and pairs' (shrunk, low, high) from its stored estimates and unclipped
    ends, as `shrinkage.shrink_plan` shrinks them."""
    runs = group["runs"]
    y = np.array([r["estimate"] for r in runs])
    se = np.array([r["raw_high"] - r["estimate"] for r in runs]) / norm.ppf((1 + level) / 2)
    x = np.array([anchor[r["run_id"]] for r in runs])
    one = shrink(y, se, x, level)
    at = {r["run_id"]: i for i, r in enumerate(runs)}
    a = np.array([at[p["a"]] for p in group["pairs"]])
    b = np.array([at[p["b"]] for p in group["pairs"]])
    two = shrink(y[a] - y[b], np.hypot(se[a], se[b]), x[a] - x[b], level)
    return ([(e, max(0.0, e - h), min(1.0, e + h)) for e, h in zip(one.estimate, one.half)],
            [(e, max(-1.0, e - h), min(1.0, e + h)) for e, h in zip(two.estimate, two.half)])


@pytest.fixture
def few_runs(monkeypatch):
    """Shrinkage allowed from 3 runs, so that the CS sample's CS-CS runs carry the computation
    (the default, shrinkage.MIN_UNITS, asks for more: see the test after these)."""
    monkeypatch.setattr("sepia.metaeval.shrinkage.MIN_UNITS", 3)
    monkeypatch.setattr("sepia.metaeval.item_estimates.MIN_UNITS", 3)


def test_the_sample_campaigns_three_runs_are_too_few_to_shrink(plan_campaign, tmp_path):
    from sepia.metaeval.shrinkage import MIN_UNITS

    runner = CliRunner()
    _drawn_plan(runner, tmp_path)
    assert runner.invoke(main, ["import", "--replace", str(CS / "judgments.tsv")]).exit_code == 0
    cs, _ = json.loads(_evaluate(runner).stdout)["language_pairs"]
    assert cs["shrinkage"] == {"skipped": f"3 runs: shrinkage across the runs needs at least {MIN_UNITS}"}
    assert not any(k in row for row in cs["runs"] + cs["pairs"] for k in SHRUNK)


@pytest.mark.usefixtures("few_runs")
def test_a_stored_active_plans_shrunk_estimates_are_shrink_of_its_estimates(plan_campaign, tmp_path):
    runner = CliRunner()
    pairs = _drawn_plan(runner, tmp_path)
    assert runner.invoke(main, ["import", "--replace", str(CS / "judgments.tsv")]).exit_code == 0
    report = json.loads(_evaluate(runner).stdout)
    gold, runs = _cs()
    planned = read_judgments(_file(tmp_path, "planned.tsv", lambda x: (x[1], x[0], x[3]) in pairs))
    anchor = _anchors(gold, runs, planned, SEED)
    cs, en = report["language_pairs"]
    assert [len(cs["runs"]), len(cs["pairs"]), len(en["runs"])] == [3, 3, 1]
    want_runs, want_pairs = _by_hand(cs, anchor)
    for row, want in zip(cs["runs"] + cs["pairs"], want_runs + want_pairs):
        assert [row[k] for k in SHRUNK] == pytest.approx(want, abs=1e-9)
    assert cs["shrinkage"]["mu2"] > 0 and 0 < cs["shrinkage"]["slope"]
    # shrinking moves the estimates
    assert any(abs(r["shrunk"] - r["estimate"]) > 1e-3 for r in cs["runs"])
    # fewer than 3 runs: no shrunk columns, and why
    assert not any(k in en["runs"][0] for k in SHRUNK)
    assert en["shrinkage"] == {"skipped": "1 run: shrinkage across the runs needs at least 3"}
    text = _evaluate(runner, "table").stdout
    assert "Not shrunk: 1 run: shrinkage across the runs needs at least 3." in text
    assert "SHRUNK: empirical Bayes toward the model's held-out estimates; 95% coverage averaged over runs" in text
    assert max(map(len, text.splitlines()[2:])) <= 100
    tsv = _evaluate(runner, "tsv").stdout.splitlines()
    assert tsv[0].split("\t")[-4:] == ["decided", *SHRUNK]
    assert tsv[1].split("\t")[-3:] == [f"{cs['runs'][0][k]:.4f}" for k in SHRUNK]
    # computed again: the same folds from the stored seed, the same values
    assert json.loads(_evaluate(runner).stdout) == report


@pytest.mark.usefixtures("few_runs")
def test_a_held_out_model_that_cannot_be_trained_leaves_the_estimates_unshrunk_with_a_warning(
        plan_campaign, tmp_path, monkeypatch):
    from sepia.matchers import learned
    from sepia.services import plan_estimates

    runner = CliRunner()
    _drawn_plan(runner, tmp_path)
    assert runner.invoke(main, ["import", "--replace", str(CS / "judgments.tsv")]).exit_code == 0
    shrunk = json.loads(_evaluate(runner).stdout)

    def one_decision(gold, runs, judgments, seed):      # the plan's judgments as if none matched
        return learned.held_out_runs(gold, runs, [replace(j, match=0.0) for j in judgments], seed)
    monkeypatch.setattr(plan_estimates, "held_out_runs", one_decision)
    result = _evaluate(runner)
    warnings = [x for x in result.stderr.splitlines() if "held out" in x]
    assert len(warnings) == 1 and "one decision only" in warnings[0] and warnings[0].endswith("no shrunk estimates")
    plain = json.loads(result.stdout)
    for group in shrunk["language_pairs"]:      # the shrunk report less its shrunk values: the plain one
        group.pop("shrinkage")
        for row in group["runs"] + group["pairs"]:
            for k in SHRUNK:
                row.pop(k, None)
    assert plain == shrunk
    assert "SHRUNK" not in _evaluate(runner, "table").stdout


@pytest.mark.usefixtures("few_runs")
def test_the_estimates_page_shows_the_shrunk_estimates_beside_the_others(app, tmp_path, monkeypatch):
    """The web tool's estimates page, estimated with the learned matcher, shows the command's shrunk
    values and intervals for the runs and pairs, what they are, and why a language pair has none."""
    import re

    from web_helpers import browser_for

    monkeypatch.setenv("SEPIA_DATABASE_URL", f"sqlite:///{tmp_path / 'web.db'}")    # the app's store
    runner = CliRunner()
    assert runner.invoke(main, ["import", str(CS / "topics.xml"), str(CS / "gold.xml"),
                                *map(str, sorted((CS / "runs").glob("*.xml")))]).exit_code == 0
    _drawn_plan(runner, tmp_path)
    assert runner.invoke(main, ["import", "--replace", str(CS / "judgments.tsv")]).exit_code == 0
    cs, _ = json.loads(_evaluate(runner).stdout)["language_pairs"]
    org = browser_for(app, "org")
    pool_id = re.findall(r'id="pool-(\d+)"', org.get("/pools/").get_data(as_text=True))[-1]
    assert org.post(f"/pools/{pool_id}/estimates", {"matcher": "learned"}).status_code == 302
    page = org.get(f"/pools/{pool_id}/estimates").get_data(as_text=True)
    assert "<th class=\"num\">Shrunk</th><th class=\"num\">Shrunk interval</th>" in page
    for row in cs["runs"] + cs["pairs"]:
        assert f"<td class=\"num\">{row['shrunk']:.4f}</td>" in page
        assert f"{row['shrunk_low']:.4f} – {row['shrunk_high']:.4f}" in page
    assert "the intervals cover 95% on average over the runs, not each run" in page
    assert "Not shrunk: 1 run: shrinkage across the runs needs at least 3." in page


@pytest.mark.usefixtures("few_runs")
def test_runs_without_an_interval_are_not_shrunk():
    from sepia.metaeval.item_estimates import shrunk_columns

    rows = [{"run_id": r} for r in "abc"]
    pairs = np.array([(0, 1), (0, 2), (1, 2)])
    got = shrunk_columns(np.array([0.3, 0.2, 0.1]), np.array([np.nan, 0.1, 0.1]), np.array([0.3, 0.2, 0.2]),
                         [0, 1, 2], pairs, rows, [{}, {}, {}], 0.95)
    assert got == {"shrinkage": {"skipped": "a run's estimate has no interval (too few topics)"}}
    assert rows == [{"run_id": r} for r in "abc"]


def test_a_lone_run_has_no_held_out_model():
    from sepia.matchers.learned import held_out_runs
    from sepia.matchers.learned.crossfit import CrossFitError

    gold, runs = _cs()
    judgments = read_judgments(str(CS / "judgments.tsv"))
    with pytest.raises(CrossFitError, match="one run: no other run's judgments to learn from"):
        held_out_runs(gold, runs[:1], [j for j in judgments if j.run_id == runs[0].run_id], SEED)
    assert len(held_out_runs(gold, runs[:2], judgments, SEED).probabilities) > 0
