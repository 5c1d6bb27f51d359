"""Two runs over the same topics: is the difference between their per-topic scores real?

The paired randomization test and the paired bootstrap of `significance`, applied to the topics
both runs are scored on; a topic scored for one run only is left out (and named).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from sepia.metaeval.significance import paired_bootstrap, paired_randomization_test


@dataclass(frozen=True)
class RunComparison:
    run_a: str
    run_b: str
    topics: list[str]
    a: list[float]                 # per-topic scores, in the order of `topics`
    b: list[float]
    mean_a: float
    mean_b: float
    difference: float              # mean over topics of a - b
    randomization_p: float         # two-sided, sign flips of the per-topic differences
    low: float                     # percentile bootstrap interval of the mean difference
    high: float
    bootstrap_p: float             # two-sided, shifted bootstrap
    confidence: float
    samples: int
    seed: int | None
    left_out: list[str]

    def as_dict(self) -> dict:
        return asdict(self)


def compare_runs(run_a: str, scores_a: dict[str, float], run_b: str, scores_b: dict[str, float], *,
                 n_resamples: int = 10000, confidence: float = 0.95, seed=None) -> RunComparison:
    """Compare two runs given as topic -> score. Both tests draw from `seed`."""
    topics = [t for t in scores_a if t in scores_b]
    left_out = sorted(set(scores_a) ^ set(scores_b))
    if not topics:
        raise ValueError(f"runs {run_a} and {run_b} share no scored topic")
    a = np.array([scores_a[t] for t in topics], float)
    b = np.array([scores_b[t] for t in topics], float)
    randomization = paired_randomization_test(a, b, n_resamples=n_resamples, seed=seed)
    interval, bootstrap = paired_bootstrap(a, b, n_resamples=n_resamples, confidence=confidence, seed=seed)
    return RunComparison(run_a, run_b, topics, a.tolist(), b.tolist(), float(np.nanmean(a)), float(np.nanmean(b)),
                         randomization.statistic, randomization.pvalue,
                         interval.low, interval.high, bootstrap.pvalue, confidence, n_resamples, seed, left_out)
