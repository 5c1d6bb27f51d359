"""Automatic versus human scores for a whole campaign: the `sepia metaeval` report.

Systems are runs, inputs are topics; for every matcher the cell (run, topic) holds the topic's
F-score. A run's topic that the gold standard does not cover for that run's language is missing
(NaN), not zero. Human scores come from the `human` matcher on the assessors' judgments.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from sepia.formats.model import CCLQARun, GoldStandard, Judgment
from sepia.metaeval.correlation import COEFFICIENTS, correlation_grid
from sepia.metaeval.properties import measure_properties
from sepia.metaeval.ranking import kendall_tau, tau_ap
from sepia.metaeval.render import json_ready
from sepia.metaeval.significance import bootstrap_ci

AUTOMATIC = ("binarized", "softmatch", "exact")


@dataclass
class ScoreMatrices:
    runs: list[str]
    topics: list[str]
    human: np.ndarray                                         # runs x topics
    automatic: dict[str, np.ndarray] = field(default_factory=dict)
    run_scores: dict[str, dict[str, float]] = field(default_factory=dict)  # matcher -> run -> score
    warnings: list[str] = field(default_factory=list)


def score_matrices(gold: GoldStandard, runs: Sequence[CCLQARun], judgments: Sequence[Judgment], *,
                   matchers: Sequence = AUTOMATIC, matcher_options: dict[str, str] | None = None,
                   **settings) -> ScoreMatrices:
    """Evaluate every run with the human matcher and each automatic matcher: a registered matcher's
    name, or a matcher object (an automatic assessor's judgments, `sepia.convert.autojudgments`).
    `matcher_options` (--matcher-option) go to the registered matchers whose descriptors name them."""
    from sepia.scoring.evaluate import evaluate_runs

    from sepia import matchers as registered

    def reads_judgments(m) -> bool:  # the human matcher, or one that learns from them
        return isinstance(m, str) and "judgments" in registered.kind(m).options

    named = {"human": "human", **{m if isinstance(m, str) else m.name: m for m in matchers}}
    def own(m) -> dict[str, str]:
        takes = registered.kind(m).extra if isinstance(m, str) else {}
        return {k: v for k, v in (matcher_options or {}).items() if k in takes}

    results = {name: evaluate_runs(gold, runs, matcher=m, judgments=judgments if reads_judgments(m) else None,
                                   matcher_options=own(m), **settings) for name, m in named.items()}
    run_ids = [r.run_id for r in results["human"]]   # ranked by human score, best first
    topics = list(dict.fromkeys(t.topic_id for r in results["human"] for t in r.topics))
    row, col = {r: i for i, r in enumerate(run_ids)}, {t: j for j, t in enumerate(topics)}
    matrices, run_scores, warnings = {}, {}, []
    for name, scores in results.items():
        m = np.full((len(run_ids), len(topics)), np.nan)
        for score in scores:
            for t in score.topics:
                m[row[score.run_id], col[t.topic_id]] = t.f
            warnings += [w for w in score.warnings if w not in warnings]
        matrices[name] = m
        run_scores[name] = {s.run_id: s.score for s in scores}
    human = matrices.pop("human")
    return ScoreMatrices(run_ids, topics, human, matrices, run_scores, warnings)


def metaeval_report(data: ScoreMatrices, *, n_resamples: int = 1000, repetitions: int = 100,
                    confidence: float = 0.95, seed: int = 0) -> dict:
    """Everything `sepia metaeval` prints, as plain data (JSON-ready: NaN becomes None)."""
    names = list(data.automatic)
    report: dict = {
        "runs": len(data.runs), "topics": len(data.topics), "matchers": names,
        "settings": {"permutations": n_resamples, "bootstrap": n_resamples, "repetitions": repetitions,
                     "confidence": confidence, "seed": seed, "permutation": "both"},
        "scores": [{"run_id": r, "human": data.run_scores["human"][r],
                    **{n: data.run_scores[n][r] for n in names}} for r in data.runs],
        "correlations": {}, "intervals": {}, "ranking": {},
    }
    human_runs = np.array([data.run_scores["human"][r] for r in data.runs])
    for name in names:
        X = data.automatic[name]
        report["correlations"][name] = correlation_grid(X, data.human)
        report["intervals"][name] = {}
        for c in COEFFICIENTS:
            ci = bootstrap_ci(X, data.human, "system", c, n_resamples=n_resamples, confidence=confidence, seed=seed)
            report["intervals"][name][c] = {"low": ci.low, "high": ci.high}
        auto_runs = np.array([data.run_scores[name][r] for r in data.runs])
        report["ranking"][name] = {"tau": kendall_tau(human_runs, auto_runs), "tau_ap": tau_ap(human_runs, auto_runs)}
    if len(names) >= 2:
        metrics = np.stack([data.automatic[n] for n in names])
        report.update(measure_properties(metrics, names, data.human, n_resamples=n_resamples,
                                         repetitions=repetitions, seed=seed))
    return json_ready(report)

