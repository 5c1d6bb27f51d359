"""`sepia metaeval budget`: how good are PPI++ estimates from part of the judging? From fully judged
data, re-sample topic-level judging plans (a budget = the share of a language pair's topics judged,
drawn uniformly without replacement, the same topics for every run) and compare, per budget, the
intervals of `sepia.metaeval.ppi` with the full human means they should contain and with the
human-only intervals from the same sample.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any, Sequence

import numpy as np

from sepia.metaeval.items import item_plan_figures
from sepia.metaeval.ppi import ppi_arrays
from sepia.metaeval.ranking import kendall_tau

TRIALS_PER_CHUNK = 100   # bounds memory: the run pairs of one chunk hold pairs x 100 x n values


@dataclass
class PairedScores:
    """Human and automatic F-scores of the runs of one language pair over its topics."""
    language_pair: str
    runs: list[str]
    topics: list[str]
    human: np.ndarray        # runs x topics
    automatic: np.ndarray    # runs x topics


def paired_scores(gold, runs, judgments, matcher, **settings) -> tuple[list[PairedScores], list[str]]:
    """Score every run with the human judgments and with the matcher (a registered name or a matcher
    object), grouped by language pair; also the scorers' warnings. The one place this module calls
    the matchers."""
    from sepia.scoring.evaluate import evaluate_runs

    human = {s.run_id: s for s in evaluate_runs(gold, runs, matcher="human", judgments=judgments, **settings)}
    automatic = {s.run_id: s for s in evaluate_runs(gold, runs, matcher=matcher, **settings)}
    warnings = list(dict.fromkeys(w for s in [*human.values(), *automatic.values()] for w in s.warnings))
    groups: dict[str, list[str]] = {}
    for run_id in sorted(human):
        groups.setdefault(human[run_id].language_pair, []).append(run_id)
    result = []
    for pair, run_ids in groups.items():
        topics = [t.topic_id for t in human[run_ids[0]].topics]
        if not topics:
            continue
        matrix = [[[t.f for t in scores[r].topics] for r in run_ids] for scores in (human, automatic)]
        result.append(PairedScores(pair, run_ids, topics, np.array(matrix[0]), np.array(matrix[1])))
    return result, warnings


def per_row_correlation(human: np.ndarray, automatic: np.ndarray) -> float:
    """Pearson's r across topics of each row, averaged over the rows where it is defined."""
    hc = human - human.mean(axis=1, keepdims=True)
    ac = automatic - automatic.mean(axis=1, keepdims=True)
    norms = np.sqrt((hc ** 2).sum(axis=1) * (ac ** 2).sum(axis=1))
    defined = norms > 1e-12
    return float(((hc * ac).sum(axis=1)[defined] / norms[defined]).mean()) if defined.any() else float("nan")


def pair_differences(matrix: np.ndarray) -> np.ndarray:
    """Row i minus row j for every pair i < j."""
    i, j = np.array(list(combinations(range(len(matrix)), 2)), dtype=int).reshape(-1, 2).T
    return matrix[i] - matrix[j]


def interval_figures(human, automatic, samples, level) -> dict:
    """Coverage, mean widths and the share of intervals that exclude 0 (for differences: the pair is
    decided) of the PPI++ intervals (one lambda for all rows, as `calibrate` tunes it) and the
    human-only intervals of the rows' human means, over the samples
    (trials x n topic indices), chunk by chunk; and both estimates."""
    population = human.shape[1]
    truth = human.mean(axis=1)[:, None]
    automatic_mean = automatic.mean(axis=1)[:, None]
    covered = covered_human = half_sum = human_half_sum = decided = decided_human = 0.0
    estimates, human_estimates = [], []
    for start in range(0, len(samples), TRIALS_PER_CHUNK):
        chunk = samples[start:start + TRIALS_PER_CHUNK]
        y, f = human[:, chunk], automatic[:, chunk]        # rows x trials x n
        estimate, half, _ = ppi_arrays(y, f, automatic_mean, population, level, shared=True)
        plain, plain_half, _ = ppi_arrays(y, f, automatic_mean, population, level, lam=0)
        tolerance = 1e-12   # a full sample has width 0 and must count as covering
        covered += np.sum(np.abs(estimate - truth) <= half + tolerance)
        covered_human += np.sum(np.abs(plain - truth) <= plain_half + tolerance)
        half_sum, human_half_sum = half_sum + half.sum(), human_half_sum + plain_half.sum()
        decided += np.sum(np.abs(estimate) > half)
        decided_human += np.sum(np.abs(plain) > plain_half)
        estimates.append(estimate)
        human_estimates.append(plain)
    cells = human.shape[0] * len(samples)
    return {"coverage": covered / cells, "human_only_coverage": covered_human / cells,
            "width": 2 * half_sum / cells, "human_only_width": 2 * human_half_sum / cells,
            "width_ratio": half_sum / human_half_sum if human_half_sum > 0 else float("nan"),
            "decided": decided / cells, "human_only_decided": decided_human / cells,
            "estimates": np.concatenate(estimates, axis=1), "human_estimates": np.concatenate(human_estimates, axis=1)}


def simulate_budget(scores: PairedScores, percent: float, trials: int, rng, level: float = 0.95,
                    costs: np.ndarray | None = None) -> dict:
    """One budget's figures for the run means and the differences of all pairs of runs; with `costs`
    (the human judgments each topic takes), also the mean judgments of a plan."""
    population = len(scores.topics)
    judged = round(percent / 100 * population)
    row: dict[str, object] = {"budget": percent, "judged": judged, "topics": population}
    if judged < 2:
        return {**row, "note": "fewer than two topics: no interval"}
    samples = np.argsort(rng.random((trials, population)), axis=1)[:, :judged]
    if costs is not None:
        row["judgments"] = float(costs[samples].sum(axis=1).mean())
    means = interval_figures(scores.human, scores.automatic, samples, level)
    full = scores.human.mean(axis=1)
    taus = [kendall_tau(full, means["estimates"][:, t]) for t in range(trials)]
    human_taus = [kendall_tau(full, means["human_estimates"][:, t]) for t in range(trials)]
    row["means"] = {k: float(v) for k, v in means.items() if not k.endswith("estimates")} | {
        "tau": _mean_defined(taus), "human_only_tau": _mean_defined(human_taus)}
    if len(scores.runs) >= 2:
        differences = interval_figures(pair_differences(scores.human), pair_differences(scores.automatic),
                                        samples, level)
        row["differences"] = {k: float(v) for k, v in differences.items() if not k.endswith("estimates")}
    return row


def _mean_defined(values) -> float:
    """The mean of the defined values (tau is undefined for one run, or a constant estimate)."""
    values = np.asarray(values, float)
    values = values[np.isfinite(values)]
    return float(values.mean()) if len(values) else float("nan")


def budget_report(groups: Sequence[PairedScores], budgets: Sequence[float], trials: int, seed: int,
                  level: float = 0.95, items: dict | None = None, beta: float = 3.0) -> dict:
    """Every language pair's figures per budget, with the matcher's per-topic correlations with the
    human F-scores (per run across topics, and per pair of runs for their differences). With `items`
    (`sepia.metaeval.items.item_scores`, runs in the same order), also item-level plans judging the
    budget's share of every topic's nuggets, drawn from a random stream of their own (so the
    topic-level figures do not change)."""
    rng = np.random.default_rng(seed)
    item_rng = np.random.default_rng([seed, 1])
    report: dict[str, Any] = {"settings": {"budgets": list(budgets), "trials": trials, "seed": seed, "level": level},
              "language_pairs": []}
    for scores in groups:
        correlation = per_row_correlation(scores.human, scores.automatic)
        difference_correlation = (per_row_correlation(pair_differences(scores.human),
                                                      pair_differences(scores.automatic))
                                  if len(scores.runs) >= 2 else float("nan"))
        topics = (items or {}).get(scores.language_pair, (None, None))[1]
        if topics is not None and [t.topic_id for t in topics] != scores.topics:
            raise ValueError(f"{scores.language_pair}: the item scores cover other topics than the run scores")
        costs = None if topics is None else np.array([len(t.weights) * int(t.answered.sum()) for t in topics])
        group = {"language_pair": scores.language_pair, "runs": len(scores.runs), "topics": len(scores.topics),
                 "correlation": correlation, "difference_correlation": difference_correlation,
                 "budgets": [simulate_budget(scores, b, trials, rng, level, costs) for b in budgets]}
        if topics is not None:
            pairs = np.array(list(combinations(range(len(scores.runs)), 2)), dtype=int).reshape(-1, 2)
            group["item_plans"] = [{"budget": b, **item_plan_figures(topics, b / 100, trials, item_rng, level, beta,
                                                                     pairs)} for b in budgets]
        report["language_pairs"].append(group)
    return report
