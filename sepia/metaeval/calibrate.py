"""Calibrated scores (`sepia evaluate --calibrate`): every run's automatic mean F3 over all topics of
its language pair, corrected by the human F3 of the judged topics into a PPI++ estimate of its human
mean (`sepia.metaeval.ppi`), and the same for the difference of every two runs of a language pair.
The runs of a language pair share one power-tuned lambda, and so do its pairs of runs (PPI++'s
lambda for a vector of means).

The judged topics must be a uniform random sample of the language pair's topics, judged for every
run (a topic-level plan); the estimate is then unbiased and its interval valid whatever the matcher.
Once every topic is judged the estimate is the exact human mean, with width 0.

An interval is reported clipped to the values its mean can take ([0, 1] for a run's F3, [-1, 1] for
a difference of two runs): the true mean lies there, so clipping drops no value it could have and
keeps the coverage, and an F3 near 0 no longer shows a negative lower end. The unclipped ends stay in
"raw_low" and "raw_high" (the widths projected for a plan use them), and the estimate itself is never
clipped, as clipping it would bias it.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Sequence

import numpy as np

from sepia.metaeval.ppi import Estimate, ppi_means, stratified_ppi_means


MEAN_RANGE = (0.0, 1.0)         # a run's mean F3
DIFFERENCE_RANGE = (-1.0, 1.0)  # that of one run less another's


@dataclass
class RunTopicScores:
    run_id: str
    language_pair: str
    automatic: dict[str, float]   # every topic of the language pair
    human: dict[str, float]       # the judged ones


def _estimates(human: np.ndarray, automatic: np.ndarray, judged: np.ndarray, level: float,
               strata: np.ndarray | None) -> list[Estimate]:
    """One estimate per row (run, or pair of runs), with one lambda tuned for all rows."""
    if strata is None:
        return ppi_means(human[:, judged], automatic[:, judged], automatic, level)
    return stratified_ppi_means([(human[:, judged & (strata == s)], automatic[:, judged & (strata == s)],
                                  automatic[:, strata == s]) for s in sorted(set(strata))], level)


def shown(estimate: Estimate, bounds: tuple[float, float]) -> dict:
    """The estimate as a report row, its interval clipped to `bounds` (NaN ends stay NaN) and the
    unclipped ends kept as raw_low and raw_high."""
    row = estimate.as_dict()
    row["raw_low"], row["raw_high"] = row["low"], row["high"]
    row["low"], row["high"] = (float(np.clip(row[k], *bounds)) for k in ("low", "high"))
    return row


def calibrate(scores: Sequence[RunTopicScores], level: float = 0.95, strata: dict[str, str] | None = None) -> dict:
    """{"language_pairs": [{language_pair, topics, judged, complete, runs: [...], pairs: [...]}]}:
    per run its automatic mean and the estimate; per pair of runs (ranked by estimate, A before B)
    the difference A - B and whether its interval excludes 0. With `strata` (topic ID -> stratum),
    the topics were sampled within strata and the estimate is the stratified one."""
    groups: dict[str, list[RunTopicScores]] = {}
    for s in scores:
        groups.setdefault(s.language_pair, []).append(s)
    report = []
    for pair, runs in groups.items():
        topics = list(runs[0].automatic)
        judged_ids = [t for t in topics if t in runs[0].human]
        judged = np.array([t in runs[0].human for t in topics])
        if not judged.any():
            continue
        automatic = np.array([[r.automatic[t] for t in topics] for r in runs])
        human = np.array([[r.human.get(t, np.nan) for t in topics] for r in runs])
        kinds = None if strata is None else np.array([strata[t] for t in topics])
        estimates = _estimates(human, automatic, judged, level, kinds)
        order = sorted(range(len(runs)), key=lambda i: (-estimates[i].estimate, runs[i].run_id))
        rows = [{"run_id": runs[i].run_id, **shown(estimates[i], MEAN_RANGE)} for i in order]
        i, j = np.array(list(combinations(order, 2)), dtype=int).reshape(-1, 2).T
        differences = _estimates(human[i] - human[j], automatic[i] - automatic[j], judged, level, kinds) if len(i) else []
        pairs = [{"a": runs[a].run_id, "b": runs[b].run_id, **shown(d, DIFFERENCE_RANGE),
                  "decided": bool(d.low > 0 or d.high < 0)} for a, b, d in zip(i, j, differences)]
        report.append({"language_pair": pair, "topics": len(topics), "judged": len(judged_ids),
                       "judged_topics": judged_ids, "complete": bool(judged.all()), "runs": rows, "pairs": pairs})
    return {"level": level, "language_pairs": report}


def run_topic_scores(automatic, human, run, judged: set[str], judgments=None,
                     population: set[str] | None = None) -> RunTopicScores:
    """A run's automatic F of every topic (of `population`, when given) and human F of the judged
    ones; `automatic` and `human` are `sepia.scoring.evaluate.Evaluator`s, `judgments` the run's own
    (for a human evaluator made without them)."""
    auto, people = automatic.evaluate(run), human.evaluate(run, judgments)
    return RunTopicScores(run.run_id, auto.language_pair,
                          {t.topic_id: t.f for t in auto.topics if population is None or t.topic_id in population},
                          {t.topic_id: t.f for t in people.topics if t.topic_id in judged})
