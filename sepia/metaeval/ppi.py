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
A campaign estimates many means from the same sample of topics (every run's, every pair's
difference), and PPI++ tunes one lambda for such a vector of means: the one minimising the trace of
their covariance, sum_r cov(Y_r, f_r) / sum_r var(f_r) (`shared=True`). Fitted on runs x n points
rather than n, it varies far less from sample to sample than a lambda per run: on a few topics a
run's own lambda is fitted to the very residuals whose spread it then measures (on two topics
exactly, giving width 0), and even the jackknife below, which counts that, covered only 92% at 4 of
21 TREC RAG topics, against 95% with the shared lambda (`sepia metaeval budget`).

The variance is the jackknife's, (1 - n/N) * (n - 1)/n * sum_i (estimate_{-i} - mean)^2, where
estimate_{-i} re-tunes lambda without topic i (for every run at once when it is shared): it counts
lambda's own sampling error, and for a fixed lambda it is exactly (1 - n/N) * s_e^2 / n. The
interval is estimate +- t(n - 1) * standard error.

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


def _lambda_of(covariance: np.ndarray, variance: np.ndarray, shared: bool) -> np.ndarray:
    """cov / var clipped, or with `shared` their sums over the first axis (the means estimated from
    one sample), broadcast back to every row."""
    if shared:
        covariance = np.broadcast_to(covariance.sum(axis=0, keepdims=True), covariance.shape)
        variance = np.broadcast_to(variance.sum(axis=0, keepdims=True), variance.shape)
    return _clipped_ratio(np.array(covariance, float), np.array(variance, float))


def tuned_lambda(y: np.ndarray, f: np.ndarray, shared: bool = False) -> np.ndarray:
    """The power-tuned lambda per sample (last axis): cov(Y, f) / var(f) clipped to [0, 1]; 0 where
    the automatic scores of the sample do not vary. With `shared`, one lambda for all rows (first
    axis) of a sample: sum_r cov(Y_r, f_r) / sum_r var(f_r)."""
    yc = y - y.mean(axis=-1, keepdims=True)
    fc = f - f.mean(axis=-1, keepdims=True)
    return _lambda_of((yc * fc).sum(axis=-1), (fc * fc).sum(axis=-1), shared)


def leave_one_out(y: np.ndarray, f: np.ndarray, automatic_mean, lam=None, shared: bool = False) -> np.ndarray:
    """estimate_{-i} for every judged topic i (same shape as y): the estimate from the other n - 1
    topics, lambda re-tuned on them (or fixed), from the sample's sums less topic i's terms."""
    m = y.shape[-1] - 1
    sum_y = y.sum(axis=-1, keepdims=True) - y
    sum_f = f.sum(axis=-1, keepdims=True) - f
    if lam is None:
        covariance = (y * f).sum(axis=-1, keepdims=True) - y * f - sum_y * sum_f / m
        variance = (f * f).sum(axis=-1, keepdims=True) - f * f - sum_f * sum_f / m
        lam = _lambda_of(covariance, variance, shared)
    else:
        lam = np.asarray(lam)[..., None]
    return lam * np.asarray(automatic_mean)[..., None] + (sum_y - lam * sum_f) / m


def ppi_arrays(y: np.ndarray, f: np.ndarray, automatic_mean, population: int, level: float = 0.95,
               lam=None, shared: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Estimates, interval half-widths and lambdas for samples along the last axis of `y` (human
    scores of the judged topics) and `f` (their automatic scores); `automatic_mean` is the mean of f
    over all `population` topics (broadcast against the other axes). `lam=None` tunes lambda per
    sample (`shared`: one for all rows of the first axis); a number fixes it (0: human only). The
    half-width is NaN for fewer than two topics."""
    y, f = np.asarray(y, float), np.asarray(f, float)
    n = y.shape[-1]
    if not 0 < n <= population:
        raise ValueError(f"a sample of {n} topics out of {population}")
    fixed = None if lam is None else np.broadcast_to(np.asarray(lam, float), y.shape[:-1])
    tuned = tuned_lambda(y, f, shared) if fixed is None else fixed
    estimate = tuned * automatic_mean + (y - tuned[..., None] * f).mean(axis=-1)
    if n < 2:
        return estimate, np.full(estimate.shape, np.nan), tuned
    dropped = leave_one_out(y, f, automatic_mean, fixed, shared)
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
    estimates, halves, tuned = ppi_arrays(y, f, automatic, len(everything), level, lam)
    estimate, half = float(estimates), float(halves)
    return Estimate(estimate, estimate - half, estimate + half, float(tuned), len(y), len(everything), automatic)


def ppi_means(human, automatic_judged, automatic_all, level: float = 0.95, lam: float | None = None) -> list[Estimate]:
    """The PPI++ estimates of several human means from the same judged topics (a row per run, or per
    pair of runs), with one lambda tuned for all of them (`shared`); the arguments are `ppi_mean`'s,
    one row each."""
    y, f, everything = (np.atleast_2d(np.asarray(v, float)) for v in (human, automatic_judged, automatic_all))
    if y.shape != f.shape or y.ndim != 2 or len(everything) != len(y):
        raise ValueError("human and automatic scores of the judged topics must be rows of equal length, one per mean")
    automatic = everything.mean(axis=1)
    estimate, half, tuned = ppi_arrays(y, f, automatic, everything.shape[1], level, lam, shared=True)
    return [Estimate(float(e), float(e - h), float(e + h), float(t), y.shape[1], everything.shape[1], float(a))
            for e, h, t, a in zip(estimate, half, tuned, automatic)]


def projected_width(width: float, judged: int, planned: int, population: int, level: float = 0.95) -> float:
    """The interval width expected once `planned` topics are judged, from one measured on `judged`:
    the same spread of residuals, with the t quantile and (1/n - 1/N) of the larger sample."""
    if judged < 2 or planned < judged:
        return float("nan")
    now = t_quantile(level, judged - 1) * np.sqrt(1 / judged - 1 / population)
    later = t_quantile(level, planned - 1) * np.sqrt(max(1 / planned - 1 / population, 0.0))
    return width * later / now if now > 0 else 0.0


def stratified_ppi_mean(strata, level: float = 0.95, lam: float | None = None) -> Estimate:
    """`stratified_ppi_means` of one mean: `strata` is a list of (human, automatic_judged,
    automatic_all) per stratum, as for `ppi_mean`."""
    return stratified_ppi_means([tuple([v] for v in stratum) for stratum in strata], level, lam)[0]


def stratified_ppi_means(strata, level: float = 0.95, lam: float | None = None) -> list[Estimate]:
    """The PPI++ estimates of several means (rows) over a population sampled within strata (e.g.
    answer types): `strata` is a list of (human, automatic_judged, automatic_all) per stratum, rows x
    topics each, as for `ppi_means`. One lambda for all strata and rows, tuned to minimise the
    estimated variance sum_r sum_h W_h^2 (1 - n_h/N_h) s_e,rh^2 / n_h (W_h = N_h / N) and clipped to
    [0, 1]; the estimate is sum_h W_h estimate_h(lambda); the variance is the stratified jackknife's
    (each judged topic left out of its stratum, lambda re-tuned), with t(sum_h (n_h - 1)) degrees of
    freedom. Every stratum not fully judged needs two judged topics."""
    parts = [tuple(np.atleast_2d(np.asarray(v, float)) for v in stratum) for stratum in strata]
    sizes = np.array([a.shape[1] for _, _, a in parts], float)
    weights = sizes / sizes.sum()
    for y, f, everything in parts:
        if y.shape != f.shape or len(everything) != len(y) or not 0 < y.shape[1] <= everything.shape[1]:
            raise ValueError("every stratum needs as many human as automatic scores of its judged topics, "
                             "at least one and no more than its topics")
    fixed = lam
    judged = int(sum(y.shape[1] for y, _, _ in parts))
    automatic = sum(w * a.mean(axis=1) for w, (_, _, a) in zip(weights, parts))

    def estimate(parts) -> tuple[np.ndarray, float]:
        tuned = fixed if fixed is not None else _stratified_lambda(parts, weights)
        return sum(w * (tuned * a.mean(axis=1) + (y - tuned * f).mean(axis=1))
                   for w, (y, f, a) in zip(weights, parts)), tuned

    value, tuned = estimate(parts)
    variance, df, defined = np.zeros(len(value)), 0, True
    for h, (y, f, everything) in enumerate(parts):
        n, population = y.shape[1], everything.shape[1]
        if n == population:
            continue
        if n < 2:
            defined = False
            break
        dropped = np.array([estimate(parts[:h] + [(np.delete(y, i, 1), np.delete(f, i, 1), everything)]
                                     + parts[h + 1:])[0] for i in range(n)])
        variance += (1 - n / population) * (n - 1) / n * ((dropped - dropped.mean(axis=0)) ** 2).sum(axis=0)
        df += n - 1
    half = (t_quantile(level, df) * np.sqrt(variance) if df else np.zeros(len(value))) if defined \
        else np.full(len(value), np.nan)
    return [Estimate(float(v), float(v - x), float(v + x), float(tuned), judged, int(sizes.sum()), float(a))
            for v, x, a in zip(value, half, automatic)]


def _stratified_lambda(parts, weights) -> float:
    """argmin over lambda of sum_h c_h sum_r var_rh(Y - lambda f), c_h = W_h^2 (1 - n_h/N_h) / n_h,
    in [0, 1]."""
    covariance = variance = 0.0
    for w, (y, f, everything) in zip(weights, parts):
        n = y.shape[1]
        if n < 2:
            continue
        c = w * w * (1 - n / everything.shape[1]) / n
        fc = f - f.mean(axis=1, keepdims=True)
        covariance += c * ((y - y.mean(axis=1, keepdims=True)) * fc).sum() / (n - 1)
        variance += c * (fc * fc).sum() / (n - 1)
    return float(np.clip(covariance / variance, 0.0, 1.0)) if variance > 1e-15 else 0.0
