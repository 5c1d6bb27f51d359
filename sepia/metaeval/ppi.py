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
correction: judging every topic leaves no uncertainty).

Power tuning picks lambda = cov(Y, f) / var(f) on the sample, which minimises the sample variance of
the residuals, clipped to [0, 1] as PPI++ does: lambda = 0 is the human-only estimate, 1 is plain PPI.
Plugging that tuned lambda into (1 - n/N) * s_e^2 / n (PPI++'s own interval) is too optimistic on a
few topics: lambda is fitted to the very residuals whose spread it then measures (on two topics the
fit is exact and the interval has width 0). The variance is therefore the jackknife's, (1 - n/N) *
(n - 1)/n * sum_i (estimate_{-i} - mean)^2, where estimate_{-i} re-tunes lambda without topic i: it
counts lambda's own sampling error, and for a fixed lambda it is exactly (1 - n/N) * s_e^2 / n. The
interval is estimate +- t(n - 1) * standard error. `sepia metaeval budget` measures the coverage.

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


def _clipped_ratio(covariance: np.ndarray, variance: np.ndarray) -> np.ndarray:
    ratio = np.divide(covariance, variance, out=np.zeros_like(covariance), where=variance > 1e-15)
    return np.clip(ratio, 0.0, 1.0)


def tuned_lambda(y: np.ndarray, f: np.ndarray) -> np.ndarray:
    """The power-tuned lambda per sample (last axis): cov(Y, f) / var(f) clipped to [0, 1]; 0 where
    the automatic scores of the sample do not vary."""
    yc = y - y.mean(axis=-1, keepdims=True)
    fc = f - f.mean(axis=-1, keepdims=True)
    return _clipped_ratio((yc * fc).sum(axis=-1), (fc * fc).sum(axis=-1))


def leave_one_out(y: np.ndarray, f: np.ndarray, automatic_mean, lam=None) -> np.ndarray:
    """estimate_{-i} for every judged topic i (same shape as y): the estimate from the other n - 1
    topics, lambda re-tuned on them (or fixed), from the sample's sums less topic i's terms."""
    m = y.shape[-1] - 1
    sum_y = y.sum(axis=-1, keepdims=True) - y
    sum_f = f.sum(axis=-1, keepdims=True) - f
    if lam is None:
        covariance = (y * f).sum(axis=-1, keepdims=True) - y * f - sum_y * sum_f / m
        variance = (f * f).sum(axis=-1, keepdims=True) - f * f - sum_f * sum_f / m
        lam = _clipped_ratio(covariance, variance)
    else:
        lam = np.asarray(lam)[..., None]
    return lam * np.asarray(automatic_mean)[..., None] + (sum_y - lam * sum_f) / m


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
    fixed = None if lam is None else np.broadcast_to(np.asarray(lam, float), y.shape[:-1])
    tuned = tuned_lambda(y, f) if fixed is None else fixed
    estimate = tuned * automatic_mean + (y - tuned[..., None] * f).mean(axis=-1)
    if n < 2:
        return estimate, np.full(estimate.shape, np.nan), tuned
    dropped = leave_one_out(y, f, automatic_mean, fixed)
    spread = ((dropped - dropped.mean(axis=-1, keepdims=True)) ** 2).sum(axis=-1)
    variance = (1 - n / population) * (n - 1) / n * spread
    return estimate, t_quantile(level, n - 1) * np.sqrt(variance), tuned


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


def projected_width(width: float, judged: int, planned: int, population: int, level: float = 0.95) -> float:
    """The interval width expected once `planned` topics are judged, from one measured on `judged`:
    the same spread of residuals, with the t quantile and (1/n - 1/N) of the larger sample."""
    if judged < 2 or planned < judged:
        return float("nan")
    now = t_quantile(level, judged - 1) * np.sqrt(1 / judged - 1 / population)
    later = t_quantile(level, planned - 1) * np.sqrt(max(1 / planned - 1 / population, 0.0))
    return width * later / now if now > 0 else 0.0


def stratified_ppi_mean(strata, level: float = 0.95, lam: float | None = None) -> Estimate:
    """The PPI++ estimate over a population sampled within strata (e.g. answer types): `strata` is a
    list of (human, automatic_judged, automatic_all) per stratum, as for `ppi_mean`. One lambda for
    all strata, tuned to minimise the estimated variance sum_h W_h^2 (1 - n_h/N_h) s_e,h^2 / n_h
    (W_h = N_h / N) and clipped to [0, 1]; the estimate is sum_h W_h estimate_h(lambda); the variance
    is the stratified jackknife's (each judged topic left out of its stratum, lambda re-tuned), with
    t(sum_h (n_h - 1)) degrees of freedom. Every stratum not fully judged needs two judged topics."""
    parts = [tuple(np.asarray(v, float) for v in stratum) for stratum in strata]
    sizes = np.array([len(a) for _, _, a in parts], float)
    weights = sizes / sizes.sum()
    for y, f, everything in parts:
        if y.shape != f.shape or not 0 < len(y) <= len(everything):
            raise ValueError("every stratum needs as many human as automatic scores of its judged topics, "
                             "at least one and no more than its topics")
    fixed = lam
    judged = int(sum(len(y) for y, _, _ in parts))
    automatic = float(sum(w * a.mean() for w, (_, _, a) in zip(weights, parts)))

    def estimate(parts) -> tuple[float, float]:
        tuned = fixed if fixed is not None else _stratified_lambda(parts, weights)
        return sum(w * (tuned * a.mean() + (y - tuned * f).mean()) for w, (y, f, a) in zip(weights, parts)), tuned

    value, tuned = estimate(parts)
    variance, df = 0.0, 0
    for h, (y, f, everything) in enumerate(parts):
        n, population = len(y), len(everything)
        if n == population:
            continue
        if n < 2:
            return Estimate(float(value), float("nan"), float("nan"), float(tuned), judged, int(sizes.sum()), automatic)
        dropped = [estimate(parts[:h] + [(np.delete(y, i), np.delete(f, i), everything)] + parts[h + 1:])[0]
                   for i in range(n)]
        variance += (1 - n / population) * (n - 1) / n * np.sum((np.array(dropped) - np.mean(dropped)) ** 2)
        df += n - 1
    half = t_quantile(level, df) * np.sqrt(variance) if df else 0.0
    return Estimate(float(value), float(value - half), float(value + half), float(tuned), judged, int(sizes.sum()),
                    automatic)


def _stratified_lambda(parts, weights) -> float:
    """argmin over lambda of sum_h c_h var_h(Y - lambda f), c_h = W_h^2 (1 - n_h/N_h) / n_h, in [0, 1]."""
    covariance = variance = 0.0
    for w, (y, f, everything) in zip(weights, parts):
        n = len(y)
        if n < 2:
            continue
        c = w * w * (1 - n / len(everything)) / n
        covariance += c * np.cov(y, f, ddof=1)[0, 1]
        variance += c * np.var(f, ddof=1)
    return float(np.clip(covariance / variance, 0.0, 1.0)) if variance > 1e-15 else 0.0
