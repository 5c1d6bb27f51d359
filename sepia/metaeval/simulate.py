"""The discretisation simulation of Gao, Hu, Lin and Wan, "Analyzing and Evaluating Correlation
Measures in NLG Meta-Evaluation" (NAACL 2025): how much of a correlation between a metric and human
scores is lost to the scales, when either side can take only k distinct values (a 1-5 Likert
scale, a 0 / 0.5 / 1 judgment, a binarized match).

Latent scores with a controlled true correlation: for every replicate, system s and input i, a human
latent H and a metric latent M, each standard normal, made of a system part, an input part and the
cell's own part (shares `system_share`, `input_share` and the rest of the variance), the metric's
part of each kind correlated `rho` with the human's. So H and M correlate `rho` in every cell, and
the systems' means, the scores of one input across systems and those of one system across inputs
all correlate `rho` as well: every grouping measures the same true correlation. The scores are on a
0-1 scale, as SEPIA's are: the continuous score is Phi(H) (uniform on [0, 1]: a Gaussian copula of
correlation rho), and a scale of k values cuts [0, 1] into k equal parts scored 0, 1/(k-1), ..., 1
(k equally likely levels), so that as k grows the discretised score tends to the continuous one for
every measure. Each of the sixteen measures (sepia.metaeval.correlation) is computed on every
replicate and averaged.

Closed forms the tests check it against (latent correlation rho): on the continuous scores Pearson
and Spearman are (6/pi) arcsin(rho/2), Kendall (2/pi) arcsin(rho); split at the median on both
sides, Pearson (the phi coefficient), Spearman and tau-b are (2/pi) arcsin(rho); the human side
alone split, Pearson is sqrt(12) arcsin(rho/sqrt(2)) / pi.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy.stats import norm

from sepia.metaeval.correlation import MEASURES, correlate

SIDES = ("both", "human", "metric")
CONTINUOUS = 0  # the level count standing for "not discretised"


@dataclass(frozen=True)
class Simulation:
    rho: float = 0.5
    systems: int = 10
    inputs: int = 50
    levels: tuple[int, ...] = (2, 3, 5, 10)
    side: str = "both"
    replicates: int = 200
    seed: int = 0
    system_share: float = 0.3
    input_share: float = 0.2

    def check(self) -> None:
        """ValueError on settings the simulation cannot run."""
        if not -1 <= self.rho <= 1:
            raise ValueError(f"--rho must be in [-1, 1], not {self.rho}")
        if self.systems < 2 or self.inputs < 2 or self.replicates < 1:
            raise ValueError("--systems and --inputs must be at least 2, --replicates at least 1")
        if any(k < 2 for k in self.levels) or not self.levels:
            raise ValueError("every level count must be at least 2")
        if self.side not in SIDES:
            raise ValueError(f"--side must be one of {', '.join(SIDES)}")
        if self.system_share < 0 or self.input_share < 0 or self.system_share + self.input_share > 1:
            raise ValueError("--system-share and --input-share must be >= 0 and sum to at most 1")


@dataclass(frozen=True)
class SimulationResult:
    settings: Simulation
    # level count (CONTINUOUS for none) -> "level/coefficient" -> (mean, standard deviation) over replicates
    values: dict[int, dict[str, tuple[float, float]]]

    def mean(self, k: int, measure: str) -> float:
        return self.values[k][measure][0]

    def as_dict(self) -> dict:
        return {"settings": asdict(self.settings),
                "values": {("continuous" if k == CONTINUOUS else str(k)):
                           {m: {"mean": _rounded(v[0]), "sd": _rounded(v[1])} for m, v in row.items()}
                           for k, row in self.values.items()}}


def _rounded(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 4)


def latent_scores(settings: Simulation, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(H, M): human and metric latent scores, replicates x systems x inputs, each cell standard
    normal, H and M correlated `rho` in every part."""
    r, s, n = settings.replicates, settings.systems, settings.inputs
    shares = (settings.system_share, settings.input_share, 1 - settings.system_share - settings.input_share)
    human = np.zeros((r, s, n))
    metric = np.zeros((r, s, n))
    for share, shape in zip(shares, ((r, s, 1), (r, 1, n), (r, s, n))):
        h = rng.standard_normal(shape)
        m = settings.rho * h + math.sqrt(1 - settings.rho ** 2) * rng.standard_normal(shape)
        human = human + math.sqrt(share) * h
        metric = metric + math.sqrt(share) * m
    return human, metric


def continuous(latent: np.ndarray) -> np.ndarray:
    """The 0-1 score of a standard normal latent: Phi(latent), uniform on [0, 1]."""
    return norm.cdf(latent)


def discretise(latent: np.ndarray, k: int) -> np.ndarray:
    """The 0-1 score of a standard normal latent on a scale of k values: [0, 1] cut into k equal
    parts (k equally likely levels, at the latent's quantiles Phi^-1(j/k)), scored 0, 1/(k-1), ..., 1."""
    thresholds = norm.ppf(np.arange(1, k) / k)
    return np.searchsorted(thresholds, latent).astype(float) / (k - 1)


def simulate(settings: Simulation, progress=None) -> SimulationResult:
    """Every measure's mean (and standard deviation) over the replicates, for each level count and
    for the continuous scores, from the same latent scores."""
    settings.check()
    human, metric = latent_scores(settings, np.random.default_rng(settings.seed))
    values = {}
    for k in (*settings.levels, CONTINUOUS):
        z = discretise(human, k) if k != CONTINUOUS and settings.side in ("both", "human") else continuous(human)
        x = discretise(metric, k) if k != CONTINUOUS and settings.side in ("both", "metric") else continuous(metric)
        row = {}
        for level, coefficient in MEASURES:
            found = np.asarray(correlate(x, z, level, coefficient), float)
            kept = found[np.isfinite(found)]
            row[f"{level}/{coefficient}"] = ((float(kept.mean()), float(kept.std())) if kept.size
                                             else (math.nan, math.nan))
        values[k] = row
        if progress:
            progress(k)
    return SimulationResult(settings, values)


def closed_forms(rho: float) -> dict[str, float]:
    """The population values of the continuous scores for a latent correlation rho."""
    return {"pearson": 6 / math.pi * math.asin(rho / 2), "spearman": 6 / math.pi * math.asin(rho / 2),
            "tau_b": 2 / math.pi * math.asin(rho), "tau_c": 2 / math.pi * math.asin(rho)}
