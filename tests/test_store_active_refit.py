"""A stored active plan's estimate with the learned matcher (`sepia evaluate --store --plan P --matcher
learned`): the second wave's estimate from the model refitted on both waves' judgments, equal to the one
the simulation computes with `learned_plans._refit` on the same waves, judgments and folds (dealt from
the wave's seed); a refitted candidate's prediction the same to the last bit whatever its own draw and
judgment; the first wave alone while the second waits; and the first wave's model, with a warning, when
the refit cannot be trained."""
import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.formats.judgments import read_judgments
from sepia.formats.read import read_file
from sepia.metaeval.active_estimates import first_wave_totals, second_wave_lambda, second_wave_totals
from sepia.metaeval.active_waves import wave_weights, waves_interval
from sepia.metaeval.item_estimates import Drawn, estimate_items
from sepia.metaeval.items import item_lambda, item_scores
from sepia.metaeval.learned_plans import PlanData, _refit
from sepia.scoring.evaluate import Settings
from sepia.matchers.learned import cross_fitted, refitted
from sepia.matchers.learned.crossfit import unit_folds
from sepia.matchers.learned.pairs import build_pairs

CS = Path(__file__).resolve().parents[1] / "corpora" / "cs"
SEED = 4   # the second wave's


def _file(tmp_path, name, keep) -> str:
    lines = (CS / "judgments.tsv").read_text(encoding="utf-8").splitlines()
    path = tmp_path / name
    path.write_text("\n".join([lines[0]] + [x for x in lines[1:] if keep(x.split("\t"))]) + "\n", encoding="utf-8")
    return str(path)


def _drawn_plan(runner, tmp_path) -> dict:
    """Item plan p on the CS sample (40%, seed 2), its first wave judged, its second drawn (15 pairs
    expected, seed SEED): (run, topic, nugget) -> Drawn."""
    assert runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--budget", "40%", "--unit", "items",
                                "--seed", "2"]).exit_code == 0
    first = _pairs(runner)
    assert runner.invoke(main, ["import", _file(tmp_path, "wave0.tsv", lambda x: (x[1], x[0], x[3]) in first)]).exit_code == 0
    assert runner.invoke(main, ["pool", "plan", "p", "--add", "15", "--seed", str(SEED)]).exit_code == 0
    return _pairs(runner)


def _pairs(runner) -> dict:
    status = json.loads(runner.invoke(main, ["pool", "plan", "p", "--format", "json"]).stdout)
    return {(r, t["topic_id"], label): Drawn(d["wave"], d["probability"]) for s in status["by_stratum"]
            for t in s["topics"] for r, drawn in t["samples"].items() for label, d in drawn.items()}


def _plan(pairs: dict) -> dict:
    plan: dict = {}
    for (r, t, n), d in pairs.items():
        plan.setdefault(t, {}).setdefault(r, {})[n] = d
    return plan


def _cs():
    gold = read_file(str(CS / "gold.xml"), "gold")
    return gold, [read_file(str(p), "cclqa") for p in sorted((CS / "runs").glob("*.xml"))]


def _estimates(report) -> list[list[float]]:
    """Per language pair, the runs' and pairs' estimates and unclipped ends, end to end, from a report
    (or a command's JSON)."""
    groups = report["language_pairs"] if isinstance(report, dict) else json.loads(report.stdout)["language_pairs"]
    return [[v for r in g["runs"] + g["pairs"] for v in (r["estimate"], r["raw_low"], r["raw_high"])] for g in groups]


def _simulated(gold, runs, judgments, pairs: dict, level=0.95, beta=3.0) -> list[list[float]]:
    """Per language pair, the runs' and ranked pairs' estimates and ends (end to end) as the
    simulation's active plan computes them on these waves (`learned_plans._active_plan`): one PlanData
    of every run (the CS-CS and EN-CS runs answer the same topics: their items stacked), the first
    wave's model cross-fitted in `cross_fitted`'s folds, `_refit` with the folds from numpy's
    generator seeded [SEED, 1], the waves' totals with power-tuned lambdas, and their combination
    (`wave_weights`, `waves_interval`)."""
    scores = item_scores(gold, runs, judgments, "binarized")
    run_ids = [r for ids, _ in scores.values() for r in ids]
    stacked = [replace(parts[0], **{f: np.concatenate([getattr(p, f) for p in parts])
                                     for f in ("lengths", "answered", "human", "automatic")})
               for parts in zip(*(topics for _, topics in scores.values()))]
    data = PlanData.build(run_ids, stacked, build_pairs(gold, runs, judgments))
    before, drawn, pi = [], [], []     # per topic, runs x K: judged in the first wave, in either; pi (1 if not drawn)
    for t in stacked:
        plan = [[pairs.get((r, t.topic_id, n), Drawn(-1, 1.0)) for n in t.labels] for r in run_ids]
        before.append(np.array([[d.wave == 0 for d in row] for row in plan]))
        drawn.append(np.array([[d.wave >= 0 for d in row] for row in plan]))
        pi.append(np.array([[1.0 if d.wave == 0 else d.probability for d in row] for row in plan]))
    open_ = [t.answered[:, None] & ~b for t, b in zip(stacked, before)]
    items = [(k[0], k[1], k[3]) for k in data.fitter.pairs.keys]
    ids = {item: i for i, item in enumerate(dict.fromkeys(items))}
    known = np.concatenate([b.ravel() for b in before])[data.cell] & ~np.isnan(data.fitter.pairs.labels)
    groups = unit_folds(np.array([ids[i] for i in items]), known, np.random.default_rng(0))
    first = data.with_predictions(data.fitter.predict(known, groups, "active"))
    fallbacks = {"active": 0}
    second, _, _ = _refit(data, first, before, open_, drawn, known, groups, 1, np.random.default_rng([SEED, 1]),
                          fallbacks)
    assert fallbacks["active"] == 0
    out, start = [], 0
    for ids_, _ in scores.values():
        rows = slice(start, start + len(ids_))
        start += len(ids_)

        def group(topics, rows=rows):
            return [replace(t, **{f: getattr(t, f)[rows] for f in ("lengths", "answered", "human", "automatic")})
                    for t in topics]
        g1, g2 = group(first), group(second)
        g_before, g_pi, g_drawn = ([m[rows] for m in masks] for masks in (before, pi, drawn))
        samples = [np.array([np.flatnonzero(b[i]) if t.answered[i] else np.flatnonzero(b[t.answered][0])
                             for i in range(len(b))])[:, None, :] for t, b in zip(g1, g_before)]
        waves = [first_wave_totals(g1, g_before, beta, float(item_lambda(g1, samples)[0])),
                 second_wave_totals(g2, g_pi, g_drawn, beta, second_wave_lambda(g2, g_pi, g_drawn))]
        weights = wave_weights(waves)
        estimate, half = waves_interval(waves, weights, len(g1), level)
        order = sorted(range(len(ids_)), key=lambda i: (-estimate[i], ids_[i]))
        ranked = np.array([(a, b) for n, a in enumerate(order) for b in order[n + 1:]], int).reshape(-1, 2)
        rows_out = [v for i in order for v in (estimate[i], estimate[i] - half[i], estimate[i] + half[i])]
        if len(ranked):
            d, h = waves_interval([w.differences(ranked) for w in waves], weights, len(g1), level)
            rows_out += [v for e, hh in zip(d, h) for v in (e, e - hh, e + hh)]
        out.append(rows_out)
    return out


def test_a_stored_active_plan_refits_the_model_as_the_simulation_does(plan_campaign, tmp_path):
    runner = CliRunner()
    pairs = _drawn_plan(runner, tmp_path)
    gold, runs = _cs()
    # the second wave not judged yet: the first wave's estimate alone, its model the first wave's
    early = runner.invoke(main, ["evaluate", "--store", "--plan", "p", "--matcher", "learned", "--format", "json"])
    assert early.exit_code == 0, early.output
    assert "the estimates use waves 0-0" in early.stderr and "refit" not in early.stderr
    first = {p: d for p, d in pairs.items() if d.wave == 0}
    judged0 = read_judgments(_file(tmp_path, "first.tsv", lambda x: (x[1], x[0], x[3]) in first))
    alone = estimate_items(gold, runs, judged0, Settings(matcher="learned"), _plan(first), 0.95,
                           cross_fitted(gold, runs, judged0, "item"), tuned=True)
    assert [g["waves"] for g in json.loads(early.stdout)["language_pairs"]] == [1, 1]
    for got, want in zip(_estimates(early), _estimates(alone)):
        assert got == pytest.approx(want, abs=1e-9)
    # both waves judged: the second wave's estimate from the refitted model, as the simulation's
    assert runner.invoke(main, ["import", "--replace", str(CS / "judgments.tsv")]).exit_code == 0
    stored = runner.invoke(main, ["evaluate", "--store", "--plan", "p", "--matcher", "learned", "--format", "json"])
    assert stored.exit_code == 0, stored.output
    assert "refit" not in stored.stderr and [g["waves"] for g in json.loads(stored.stdout)["language_pairs"]] == [2, 2]
    planned = read_judgments(_file(tmp_path, "planned.tsv", lambda x: (x[1], x[0], x[3]) in pairs))
    expected = _simulated(gold, runs, planned, pairs)
    got = _estimates(stored)
    assert [len(g) for g in got] == [len(g) for g in expected] == [18, 3]
    for g, e in zip(got, expected):
        assert g == pytest.approx(e, abs=1e-6)
    # and not the estimate the first wave's model gives the second wave: the refit changes it
    unrefitted = estimate_items(gold, runs, planned, Settings(matcher="learned"), _plan(pairs), 0.95,
                                cross_fitted(gold, runs, judged0, "item"), tuned=True)
    assert got[0] != pytest.approx(_estimates(unrefitted)[0], abs=1e-3)
    # computed again: the same folds from the stored seed, the same estimate
    again = runner.invoke(main, ["evaluate", "--store", "--plan", "p", "--matcher", "learned", "--format", "json"])
    assert _estimates(again) == got


def test_a_refitted_candidates_prediction_ignores_its_own_draw_and_judgment(tmp_path):
    """`refitted` on the CS sample: dropping a judged candidate (as if not drawn) or flipping its
    judgment leaves its own prediction the same to the last bit (its fold's model never saw it) and
    moves other candidates' (the other folds' models did)."""
    gold, runs = _cs()
    judgments = read_judgments(str(CS / "judgments.tsv"))
    rng = np.random.default_rng(5)
    items = sorted({(j.run_id, j.topic_id, j.nugget_id) for j in judgments})
    first = {i for i in items if rng.random() < 0.4}
    drawn = {i for i in items if i not in first and rng.random() < 0.5}
    plan = [j for j in judgments if (j.run_id, j.topic_id, j.nugget_id) in first | drawn]
    before = refitted(gold, runs, plan, first, SEED).probabilities
    assert before and not any(k[:2] + (k[3],) in first for k in before)      # candidates only
    for item in sorted(drawn)[::7]:
        mine = [k for k in before if k[:2] + (k[3],) == item]
        dropped = [j for j in plan if (j.run_id, j.topic_id, j.nugget_id) != item]
        flipped = [replace(j, match=1 - j.match) if (j.run_id, j.topic_id, j.nugget_id) == item else j for j in plan]
        for changed in (dropped, flipped):
            after = refitted(gold, runs, changed, first, SEED).probabilities
            assert [after[k] for k in mine] == [before[k] for k in mine]          # to the last bit
            assert any(after[k] != before[k] for k in before)


def test_a_refit_that_cannot_be_made_keeps_the_first_waves_model_with_a_warning(plan_campaign, tmp_path):
    from sqlalchemy import select

    from sepia.services.plan_estimates import _refitted
    from sepia.store.models import JudgingPlan

    runner = CliRunner()
    pairs = _drawn_plan(runner, tmp_path)
    assert runner.invoke(main, ["import", "--replace", str(CS / "judgments.tsv")]).exit_code == 0
    gold, runs = _cs()
    planned = read_judgments(_file(tmp_path, "planned.tsv", lambda x: (x[1], x[0], x[3]) in pairs))
    # judgments the refit cannot learn from (one decision only): None, and a warning saying why
    warnings: list[str] = []
    nothing = [replace(j, match=0.0) for j in planned]
    assert _refitted(gold, runs, nothing, _plan(pairs), "p", SEED, warnings) is None
    assert len(warnings) == 1 and "cannot be refitted on both waves' judgments" in warnings[0]
    assert "one decision only" in warnings[0] and "uses the model trained on the first wave" in warnings[0]
    # a second wave drawn before its seed was stored (migration 0020): no folds to deal, the first wave's model
    with plan_campaign.transaction() as session:
        session.scalar(select(JudgingPlan)).wave_seed = None
    result = runner.invoke(main, ["evaluate", "--store", "--plan", "p", "--matcher", "learned", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert "drawn before its seed was stored" in result.stderr
    judged0 = [j for j in planned if pairs[j.run_id, j.topic_id, j.nugget_id].wave == 0]
    unrefitted = estimate_items(gold, runs, planned, Settings(matcher="learned"), _plan(pairs), 0.95,
                                cross_fitted(gold, runs, judged0, "item"), tuned=True)
    for got, want in zip(_estimates(result), _estimates(unrefitted)):
        assert got == pytest.approx(want, abs=1e-9)
