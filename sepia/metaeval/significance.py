"""How sure can we be? Tests and intervals for correlations and for differences between runs.

- `permutation_test`: is r(X, Z) different from r(Y, Z)? Perm-Systems, Perm-Inputs or Perm-Both
  (Deutsch et al. 2021): swap X's and Y's scores for whole systems, whole inputs or single cells.
- `williams_test`: the parametric test for two dependent correlations sharing Z (Williams 1959).
- `bootstrap_ci`: percentile interval of a correlation (or a difference of two) when systems,
  inputs or both are resampled.
- `paired_randomization_test`, `paired_bootstrap`: two runs compared over the same topics.

All randomness comes from `numpy.random.default_rng(seed)`, so a seed reproduces every number.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

from sepia.metaeval.correlation import Coefficient, Level, check_measure, coefficient, correlate
from sepia.metaeval.global_ranks import global_rank_deltas, item_spearman_deltas
from sepia.metaeval.rank_deltas import rank_deltas

PERMUTATIONS = ("systems", "inputs", "both")
ALTERNATIVES = ("two-sided", "greater", "less")
# Resampled matrices per block: bounds memory for large campaigns.
_BLOCK_CELLS = 8_000_000


@dataclass(frozen=True)
class TestResult:
    statistic: float  # the observed difference (or t for Williams)
    pvalue: float


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float
    high: float


def standardize(X) -> np.ndarray:
    """z-scores over the whole matrix, so that two metrics on different scales can be swapped."""
    X = np.asarray(X, float)
    sd = np.nanstd(X)
    return (X - np.nanmean(X)) / (sd if sd > 0 else 1.0)


def swap_masks(rng, n: int, shape: tuple[int, int], method: str) -> np.ndarray:
    """n boolean masks that say which cells trade places between X and Y."""
    systems, inputs = shape
    if method == "systems":
        return np.broadcast_to(rng.random((n, systems, 1)) < 0.5, (n, systems, inputs))
    if method == "inputs":
        return np.broadcast_to(rng.random((n, 1, inputs)) < 0.5, (n, systems, inputs))
    if method == "both":
        return rng.random((n, systems, inputs)) < 0.5
    raise ValueError(f"unknown permutation method {method!r}; choose one of {', '.join(PERMUTATIONS)}")


def randomised_pvalue(extreme, axis=-1):
    """(k + 1) / (n + 1), k the resamples (of n) at least as extreme as the observed statistic: the
    observed statistic counts as one of the resamples, so p is never 0 (Phipson and Smyth 2010;
    scipy.stats.permutation_test does the same for randomised tests)."""
    extreme = np.asarray(extreme, bool)
    return (extreme.sum(axis) + 1) / (extreme.shape[axis] + 1)


def _pvalue(samples, observed, alternative):
    # A small tolerance so that a sample equal to the observed value up to rounding counts.
    eps = 1e-12
    if alternative == "two-sided":
        return float(randomised_pvalue(np.abs(samples) >= abs(observed) - eps))
    if alternative == "greater":
        return float(randomised_pvalue(samples >= observed - eps))
    if alternative == "less":
        return float(randomised_pvalue(samples <= observed + eps))
    raise ValueError(f"unknown alternative {alternative!r}; choose one of {', '.join(ALTERNATIVES)}")


def same_missing_cells(*matrices) -> None:
    """Swapping scores between metrics needs their missing cells in the same places."""
    first = np.isnan(matrices[0])
    for other in matrices[1:]:
        if other.shape != first.shape or not np.array_equal(np.isnan(other), first):
            raise ValueError("the metrics must have the same shape and their missing cells in the same places")


def pair_deltas(M, Z, a, b, masks, level: Level, coefficient_name: Coefficient) -> np.ndarray:
    """r(X', Z) - r(Y', Z) for metric pairs (M[a], M[b]) under every swap mask: (pairs, n).

    M (metrics, systems, inputs) and Z are standardised, with shared missing cells. System-level
    correlations and Pearson at any level are computed from masked sums (one matrix product per
    metric instead of one resampled matrix per pair); the rank coefficients at the input and item
    levels from quadratic forms in the mask (rank_deltas; item-level Spearman from the global
    level's cumulative counts, one system at a time), at the global level from cumulative counts
    and one such form over all cells (global_ranks). None of them builds a permuted
    matrix; resampled_deltas does, and is the reference they are tested against."""
    a, b = np.asarray(a), np.asarray(b)
    if level == "system":
        return _system_deltas(M, Z, a, b, masks, coefficient_name)
    if coefficient_name == "pearson":
        return _pearson_deltas(M, Z, a, b, masks, level)
    if level == "global":
        return global_rank_deltas(M, Z, a, b, masks, coefficient_name)
    if level == "item" and coefficient_name == "spearman":
        return item_spearman_deltas(M, Z, a, b, masks)
    return rank_deltas(M, Z, a, b, masks, level, coefficient_name)


def resampled_deltas(M, Z, a, b, masks, level: Level, coefficient_name: Coefficient) -> np.ndarray:
    """pair_deltas the slow, obvious way: build every swapped matrix and correlate it (the
    reference the fast paths are tested against)."""
    a, b = np.asarray(a), np.asarray(b)
    out = []
    cells = Z.size * len(a)
    block = max(1, _BLOCK_CELLS // cells)
    for start in range(0, len(masks), block):
        m = masks[start:start + block]
        X, Y = M[a][:, None], M[b][:, None]
        xp, yp = np.where(m, Y, X), np.where(m, X, Y)
        out.append(correlate(xp, Z, level, coefficient_name) - correlate(yp, Z, level, coefficient_name))
    return np.concatenate(out, axis=-1)


def _masked_sums(masks, values):
    """sum over inputs of mask * value per system: (n, systems, metrics)."""
    return np.einsum("psi,asi->psa", masks.astype(float), values, optimize=True)


def _system_deltas(M, Z, a, b, masks, name):
    valid = np.isfinite(M[0]) & np.isfinite(Z)
    count = valid.sum(-1)
    rows = count > 0
    safe = np.where(rows, count, 1)
    X0 = np.where(valid, M, 0.0)
    total = X0.sum(-1)                               # (metrics, systems)
    swapped = _masked_sums(masks, X0)                # (n, systems, metrics)
    z = np.where(valid, Z, 0.0).sum(-1) / safe
    out = np.empty((len(a), len(masks)))
    block = max(1, _BLOCK_CELLS // (len(masks) * M.shape[1] * 8))
    for start in range(0, len(a), block):
        ia, ib = a[start:start + block], b[start:start + block]
        ta = np.moveaxis(swapped[:, :, ia], 2, 0)    # (pairs, n, systems)
        tb = np.moveaxis(swapped[:, :, ib], 2, 0)
        x = (total[ia][:, None] - ta + tb) / safe
        y = (total[ib][:, None] - tb + ta) / safe
        out[start:start + block] = coefficient(x, z, rows, name) - coefficient(y, z, rows, name)
    return out


def _pearson_deltas(M, Z, a, b, masks, level):
    valid = np.isfinite(M[0]) & np.isfinite(Z)
    X0 = np.where(valid, M, 0.0)
    z = np.where(valid, Z, 0.0)
    w = valid.astype(float)
    m = masks.astype(float) * w
    # Group sums: global = all cells, item = per system (row), input = per input (column).
    if level == "global":
        group = lambda arr: arr.reshape(arr.shape[:-2] + (1, -1)).sum(-1)  # noqa: E731
        swap = lambda v: np.einsum("pk,ak->pa", m.reshape(len(m), -1), v.reshape(len(v), -1))[:, None]  # noqa: E731
    elif level == "item":
        group = lambda arr: arr.sum(-1)  # noqa: E731
        swap = lambda v: np.einsum("psi,asi->psa", m, v, optimize=True)  # noqa: E731
    else:
        group = lambda arr: arr.sum(-2)  # noqa: E731
        swap = lambda v: np.einsum("psi,asi->pia", m, v, optimize=True)  # noqa: E731
    n = group(w)
    sz, szz = group(z), group(z * z)
    S1, S2, S3 = group(X0), group(X0 * z), group(X0 * X0)          # (metrics, groups)
    T1, T2, T3 = swap(X0), swap(X0 * z), swap(X0 * X0)             # (n, groups, metrics)
    vz = szz - sz * sz / np.where(n > 0, n, 1)
    out = np.empty((len(a), len(masks)))
    block = max(1, _BLOCK_CELLS // (len(masks) * T1.shape[1] * 8))
    for start in range(0, len(a), block):
        ia, ib = a[start:start + block], b[start:start + block]

        def r(first, second):
            def moved(T, i):
                return np.moveaxis(T[:, :, i], 2, 0)   # (pairs, n, groups)
            sx = S1[first][:, None] - moved(T1, first) + moved(T1, second)
            sxz = S2[first][:, None] - moved(T2, first) + moved(T2, second)
            sxx = S3[first][:, None] - moved(T3, first) + moved(T3, second)
            with np.errstate(invalid="ignore", divide="ignore"):
                vx = sxx - sx * sx / n
                cov = sxz - sx * sz / n
                rho = cov / np.sqrt(vx * vz)
            flat = (vx <= 1e-12 * np.maximum(sxx, 1e-300)) | (vz <= 1e-12 * np.maximum(szz, 1e-300)) | (n < 2)
            rho = np.where(flat, np.nan, np.clip(rho, -1, 1))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return np.nanmean(rho, axis=-1)

        out[start:start + block] = r(ia, ib) - r(ib, ia)
    return out


def permutation_test(X, Y, Z, level: Level, coefficient_name: Coefficient, method: str = "both", *,
                     alternative: str = "two-sided", n_resamples: int = 1000, seed=None) -> TestResult:
    """Permutation test of H0: r(X, Z) = r(Y, Z) (Deutsch et al. 2021). The three matrices are
    standardised first; X and Y must have their missing cells in the same places. The p-value is
    (k + 1) / (n + 1), k the permuted differences (of n) at least as extreme as the observed one."""
    check_measure(level, coefficient_name)
    X, Y, Z = (standardize(a) for a in (X, Y, Z))
    same_missing_cells(X, Y)
    if X.shape != Z.shape:
        raise ValueError("X, Y and Z must have the same systems x inputs shape")
    observed = correlate(X, Z, level, coefficient_name) - correlate(Y, Z, level, coefficient_name)
    masks = swap_masks(np.random.default_rng(seed), n_resamples, X.shape, method)
    samples = pair_deltas(np.stack([X, Y]), Z, [0], [1], masks, level, coefficient_name)[0]
    return TestResult(float(observed), _pvalue(samples, observed, alternative))


def williams_t(r12: float, r13: float, r23: float, n: int) -> float:
    """Williams' t (df = n - 3) for r12 - r13 where variables 2 and 3 correlate at r23;
    variable 1 is the shared one (the humans)."""
    if n <= 3:
        raise ValueError("Williams' test needs more than three systems")
    k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r13 * r23
    denominator = 2 * k * (n - 1) / (n - 3) + ((r12 + r13) ** 2 / 4) * (1 - r23) ** 3
    return float((r12 - r13) * np.sqrt((n - 1) * (1 + r23)) / np.sqrt(denominator))


def williams_test(X, Y, Z, coefficient_name: str = "pearson", *, alternative: str = "greater") -> TestResult:
    """Williams' test at the system level: is r(X, Z) greater than r(Y, Z)?"""
    X, Y, Z = (np.asarray(a, float) for a in (X, Y, Z))
    keep = np.isfinite(X) & np.isfinite(Y) & np.isfinite(Z)
    rows = keep.any(-1)

    def means(a):
        return np.where(keep, a, 0).sum(-1)[rows] / keep.sum(-1)[rows]

    x, y, z = means(X), means(Y), means(Z)
    everywhere = np.ones_like(x, bool)
    r12 = float(coefficient(z, x, everywhere, coefficient_name))
    r13 = float(coefficient(z, y, everywhere, coefficient_name))
    r23 = float(coefficient(x, y, everywhere, coefficient_name))
    t = williams_t(r12, r13, r23, len(x))
    df = len(x) - 3
    if alternative == "greater":
        p = stats.t.sf(t, df)
    elif alternative == "less":
        p = stats.t.cdf(t, df)
    elif alternative == "two-sided":
        p = 2 * stats.t.sf(abs(t), df)
    else:
        raise ValueError(f"unknown alternative {alternative!r}")
    return TestResult(t, float(p))


def bootstrap_ci(X, Z, level: Level, coefficient_name: Coefficient, *, Y=None, resample: str = "both",
                 n_resamples: int = 1000, confidence: float = 0.95, seed=None) -> Interval:
    """Percentile bootstrap interval of r(X, Z), or of r(X, Z) - r(Y, Z) when Y is given.
    `resample` is "systems", "inputs" or "both" (Boot-Systems/-Inputs/-Both, Deutsch et al. 2021).
    Resamples whose correlation is undefined are left out."""
    check_measure(level, coefficient_name)
    if resample not in PERMUTATIONS:
        raise ValueError(f"unknown resampling {resample!r}; choose one of {', '.join(PERMUTATIONS)}")
    X, Z = np.asarray(X, float), np.asarray(Z, float)
    Y = None if Y is None else np.asarray(Y, float)
    systems, inputs = X.shape

    def statistic(a, b, c=None):
        r = correlate(a, b, level, coefficient_name)
        return r if c is None else r - correlate(c, b, level, coefficient_name)

    estimate = statistic(X, Z, Y)
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, systems, (n_resamples, systems)) if resample != "inputs" else \
        np.broadcast_to(np.arange(systems), (n_resamples, systems))
    cols = rng.integers(0, inputs, (n_resamples, inputs)) if resample != "systems" else \
        np.broadcast_to(np.arange(inputs), (n_resamples, inputs))
    parts = []
    block = max(1, _BLOCK_CELLS // (systems * inputs))
    for start in range(0, n_resamples, block):
        r, c = rows[start:start + block, :, None], cols[start:start + block, None, :]
        parts.append(statistic(X[r, c], Z[r, c], None if Y is None else Y[r, c]))
    samples = np.concatenate(parts)
    samples = samples[np.isfinite(samples)]
    if not len(samples):
        return Interval(float(estimate), float("nan"), float("nan"))
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(samples, [tail, 100 - tail])
    return Interval(float(estimate), float(low), float(high))


def _paired(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.shape != b.shape:
        raise ValueError("the two runs must be scored on the same topics")
    d = a - b
    d = d[np.isfinite(d)]
    if not len(d):
        raise ValueError("no topic has a score for both runs")
    return d


def paired_randomization_test(a, b, *, n_resamples: int = 10000, seed=None) -> TestResult:
    """Two-sided paired randomization test over topics: under H0 the sign of each topic's
    difference is arbitrary; p = (k + 1) / (n + 1), k the sign flips (of n) whose mean difference
    is at least as large in absolute value as the observed one."""
    d = _paired(a, b)
    observed = d.mean()
    signs = np.where(np.random.default_rng(seed).random((n_resamples, len(d))) < 0.5, -1.0, 1.0)
    return TestResult(float(observed), _pvalue((signs * d).mean(-1), observed, "two-sided"))


def paired_bootstrap(a, b, *, n_resamples: int = 10000, confidence: float = 0.95, seed=None):
    """Paired bootstrap over topics: a percentile interval of the mean difference a - b, and a
    two-sided p-value from the shifted bootstrap (Sakai 2006): differences are centred on zero
    and p = (k + 1) / (n + 1), k the resampled means (of n) at least as far from zero as the
    observed mean."""
    d = _paired(a, b)
    observed = d.mean()
    picks = np.random.default_rng(seed).integers(0, len(d), (n_resamples, len(d)))
    means = d[picks].mean(-1)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    p = _pvalue(means - observed, observed, "two-sided")
    return Interval(float(observed), float(low), float(high)), TestResult(float(observed), p)
