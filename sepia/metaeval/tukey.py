"""All-pairs significance over several runs with the multiple comparisons controlled: the randomised
Tukey HSD test (Carterette 2012; Sakai 2014), as NTCIR overviews report it.

The runs' scores form a topics x runs matrix. Under the null hypothesis the runs are interchangeable
on every topic, so each trial permutes every topic's row; the trial's statistic is the largest
difference between two runs' means. A pair's p-value is (k + 1) / (n + 1), k the trials (of n) whose
largest difference is at least the pair's observed difference: the family-wise error rate over all
pairs is controlled because every pair is held against the same maximum.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Sequence

import numpy as np

from sepia.metaeval.significance import randomised_pvalue


@dataclass(frozen=True)
class PairResult:
    a: str
    b: str
    difference: float  # mean(a) - mean(b)
    pvalue: float

    def as_dict(self) -> dict:
        return {"a": self.a, "b": self.b, "difference": self.difference, "p": self.pvalue}


@dataclass(frozen=True)
class TukeyHSD:
    runs: list[str]
    means: list[float]
    topics: int
    trials: int
    seed: int | None
    pairs: list[PairResult]

    def as_dict(self) -> dict:
        return {"runs": dict(zip(self.runs, self.means)), "topics": self.topics, "trials": self.trials,
                "seed": self.seed, "pairs": [p.as_dict() for p in self.pairs]}


def max_mean_differences(matrix: np.ndarray, trials: int, seed: int | None = None) -> np.ndarray:
    """The largest difference between column means of `trials` matrices whose rows are each
    permuted at random."""
    rng = np.random.default_rng(seed)
    topics, runs = matrix.shape
    statistics = np.empty(trials)
    for trial in range(trials):
        permuted = np.take_along_axis(matrix, rng.permuted(np.tile(np.arange(runs), (topics, 1)), axis=1), axis=1)
        means = permuted.mean(axis=0)
        statistics[trial] = means.max() - means.min()
    return statistics


def randomised_tukey_hsd(scores: dict[str, Sequence[float]], trials: int = 10000, seed: int | None = None) -> TukeyHSD:
    """`scores`: run -> its scores over the same topics, in the same order. Pairs best mean first."""
    runs = sorted(scores, key=lambda r: (-float(np.mean(scores[r])), r))
    if len(runs) < 2:
        raise ValueError("the Tukey HSD test needs two runs or more")
    matrix = np.array([scores[r] for r in runs], dtype=float).T
    if matrix.ndim != 2 or matrix.shape[0] == 0:
        raise ValueError("the runs need scores over the same topics, at least one")
    means = matrix.mean(axis=0)
    statistics = max_mean_differences(matrix, trials, seed)
    pairs = []
    for i, j in combinations(range(len(runs)), 2):
        observed = means[i] - means[j]
        # a tolerance so that a difference equal to the observed one is not lost to rounding
        p = randomised_pvalue(statistics >= abs(observed) - 1e-12)
        pairs.append(PairResult(runs[i], runs[j], float(observed), float(p)))
    return TukeyHSD(runs, means.tolist(), matrix.shape[0], trials, seed, pairs)
