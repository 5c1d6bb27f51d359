"""Prediction-powered inference for a mean over a finite set of topics (PPI++, Angelopoulos, Duchi
and Zrnic 2023, with power tuning), of which a simple random sample is judged by humans.

A run's human mean F3 over the N topics of its topic set is theta = mean(Y). Humans judge n topics
drawn uniformly without replacement (the sample S); an automatic matcher scores all N (f). For a
weight lambda,

    estimate(lambda) = lambda * mean(f over all N) + mean(Y - lambda * f over S),

which is unbiased for theta whatever the matcher's errors (it is survey sampling's difference
estimator). Because the automatic scores cover the whole population, their mean has no sampling
error; the only error is that of the sample mean of the residuals e = Y - lambda * f, whose
variance under sampling without replacement is (1 - n/N) * S_e^2 / n (the finite-population
correction: judging every topic leaves no uncertainty). S_e^2 is estimated by the sample variance
(n - 1 denominator), the interval is estimate +- t(n - 1) * standard error.

Power tuning picks lambda = cov(Y, f) / var(f) on the sample, which minimises the sample variance of
the residuals, clipped to [0, 1] as PPI++ does: lambda = 0 is the human-only estimate, 1 is plain PPI.
Any lambda in [0, 1] between 0 and the unclipped optimum has a residual variance no larger than
var(Y), so with the same degrees of freedom the interval is never wider than the human-only one.

Every function works on arrays whose last axis is the sample, so a simulation evaluates thousands of
samples at once; `ppi_mean` is the one-sample form.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats


@dataclass(frozen=True)
class Estimate:
    estimate: float
    low: float          # NaN when fewer than two topics are judged
    high: float
    lam: float
    judged: int
    population: int
    automatic: float    # the automatic mean over the whole population

    @property
    def width(self) -> float:
        return self.high - self.low

    def as_dict(self) -> dict:
        return {"estimate": self.estimate, "low": self.low, "high": self.high, "lambda": self.lam,
                "judged": self.judged, "topics": self.population, "automatic": self.automatic}


def tuned_lambda(y: np.ndarray, f: np.ndarray) -> np.ndarray:
    """The power-tuned lambda per sample (last axis): cov(Y, f) / var(f) clipped to [0, 1]; 0 where
    the automatic scores of the sample do not vary."""
    yc = y - y.mean(axis=-1, keepdims=True)
    fc = f - f.mean(axis=-1, keepdims=True)
    covariance, variance = (yc * fc).sum(axis=-1), (fc * fc).sum(axis=-1)
    ratio = np.divide(covariance, variance, out=np.zeros_like(covariance), where=variance > 1e-15)
    return np.clip(ratio, 0.0, 1.0)


def ppi_arrays(y: np.ndarray, f: np.ndarray, automatic_mean, population: int, level: float = 0.95,
               lam=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Estimates, interval half-widths and lambdas for samples along the last axis of `y` (human
    scores of the judged topics) and `f` (their automatic scores); `automatic_mean` is the mean of f
    over all `population` topics (broadcast against the other axes). `lam=None` tunes lambda per
    sample; a number fixes it (0: human only). The half-width is NaN for fewer than two topics."""
    y, f = np.asarray(y, float), np.asarray(f, float)
    n = y.shape[-1]
    if not 0 < n <= population:
        raise ValueError(f"a sample of {n} topics out of {population}")
    lam = tuned_lambda(y, f) if lam is None else np.broadcast_to(np.asarray(lam, float), y.shape[:-1])
    residuals = y - lam[..., None] * f
    estimate = lam * automatic_mean + residuals.mean(axis=-1)
    if n < 2:
        return estimate, np.full(estimate.shape, np.nan), lam
    variance = (1 - n / population) * residuals.var(axis=-1, ddof=1) / n
    return estimate, t_quantile(level, n - 1) * np.sqrt(variance), lam


def t_quantile(level: float, df: int) -> float:
    if not 0 < level < 1:
        raise ValueError(f"a confidence level must lie strictly between 0 and 1, not {level}")
    return float(stats.t.ppf((1 + level) / 2, df))


def ppi_mean(human, automatic_judged, automatic_all, level: float = 0.95, lam: float | None = None) -> Estimate:
    """The PPI++ estimate of the human mean over all topics: `human` and `automatic_judged` are the
    judged topics' scores (in the same order), `automatic_all` the automatic scores of every topic of
    the population, the judged ones included."""
    y, f, everything = (np.asarray(v, float) for v in (human, automatic_judged, automatic_all))
    if y.shape != f.shape or y.ndim != 1:
        raise ValueError("human and automatic scores of the judged topics must be two lists of equal length")
    automatic = float(everything.mean())
    estimate, half, tuned = ppi_arrays(y, f, automatic, len(everything), level, lam)
    estimate, half = float(estimate), float(half)
    return Estimate(estimate, estimate - half, estimate + half, float(tuned), len(y), len(everything), automatic)
