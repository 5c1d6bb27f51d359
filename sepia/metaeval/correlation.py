"""Correlation between a metric's scores (X) and human scores (Z) on a systems x inputs matrix.

Four levels (Deutsch et al. 2021, Gao et al. 2024) times four coefficients:
- system: correlate the systems' mean scores;
- input:  correlate across systems separately for every input, then average;
- item:   correlate across inputs separately for every system, then average;
- global: correlate all cells at once.
Coefficients: Pearson, Spearman, Kendall tau-b and tau-c (as scipy.stats.kendalltau defines them).

Missing cells are NaN; a cell counts only where both X and Z have a value. A correlation that is
undefined (fewer than two values, or one side constant) is NaN and left out of the input and item
averages. Every function works on a leading batch of matrices at once, because the permutation
tests and the bootstrap evaluate thousands of resampled matrices and a Python loop would be slow.
"""
from __future__ import annotations

import warnings
from typing import Literal, get_args

import numpy as np
from scipy import stats
from scipy.stats import rankdata

Level = Literal["system", "input", "item", "global"]
Coefficient = Literal["pearson", "spearman", "tau_b", "tau_c"]
LEVELS: tuple[Level, ...] = get_args(Level)
COEFFICIENTS: tuple[Coefficient, ...] = get_args(Coefficient)
MEASURES = tuple((level, coefficient) for level in LEVELS for coefficient in COEFFICIENTS)

# Pairwise Kendall computations materialise batch x pairs arrays; keep each block this small.
_KENDALL_BLOCK = 4_000_000
# Beyond this length scipy's O(n log n) algorithm beats the vectorised O(n^2) pair comparison.
_PAIRWISE_MAX_N = 200


def check_measure(level: str, coefficient: str) -> None:
    if level not in LEVELS:
        raise ValueError(f"unknown correlation level {level!r}; choose one of {', '.join(LEVELS)}")
    if coefficient not in COEFFICIENTS:
        raise ValueError(f"unknown coefficient {coefficient!r}; choose one of {', '.join(COEFFICIENTS)}")


def coefficient(x, z, valid, name: str) -> np.ndarray:
    """The coefficient between x and z along the last axis, using only positions where `valid`.

    x, z, valid broadcast to a common shape (..., n); the result has shape (...)."""
    x, z, valid = np.broadcast_arrays(np.asarray(x, float), np.asarray(z, float), np.asarray(valid, bool))
    valid = valid & np.isfinite(x) & np.isfinite(z)
    if name == "pearson":
        return _pearson(x, z, valid)
    if name == "spearman":
        return _pearson(_ranks(x, valid), _ranks(z, valid), valid)
    if name in ("tau_b", "tau_c"):
        return _kendall(x, z, valid, name)
    raise ValueError(f"unknown coefficient {name!r}")


def _pearson(x, z, valid):
    w = valid.astype(float)
    x = np.where(valid, x, 0.0)
    z = np.where(valid, z, 0.0)
    count = w.sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        dx = (x - (x.sum(-1) / count)[..., None]) * w
        dz = (z - (z.sum(-1) / count)[..., None]) * w
        sxx = (dx * dx).sum(-1)
        szz = (dz * dz).sum(-1)
        r = (dx * dz).sum(-1) / np.sqrt(sxx * szz)
    # A constant vector leaves rounding noise in its deviations: treat it as zero variance.
    flat = (sxx <= 1e-24 * (x * x).sum(-1)) | (szz <= 1e-24 * (z * z).sum(-1)) | (count < 2)
    return np.where(flat, np.nan, np.clip(r, -1.0, 1.0))


def _ranks(x, valid):
    # Missing values sort last, so the valid ones get ranks 1..k with ties averaged.
    return rankdata(np.where(valid, x, np.inf), axis=-1)


def _distinct(x, valid):
    s = np.sort(np.where(valid, x, np.inf), axis=-1)
    changes = (np.diff(s, axis=-1) != 0) & np.isfinite(s[..., 1:])
    return np.where(valid.any(-1), 1 + changes.sum(-1), 0)


def _kendall(x, z, valid, name):
    if x.shape[-1] > _PAIRWISE_MAX_N:
        return _kendall_by_row(x, z, valid, name)
    shape = x.shape[:-1]
    n = x.shape[-1]
    x2, z2, v2 = (a.reshape(-1, n) for a in (x, z, valid))
    i, j = np.triu_indices(n, 1)
    s = np.empty(len(x2))
    untied_x = np.empty(len(x2))
    untied_z = np.empty(len(x2))
    block = max(1, _KENDALL_BLOCK // max(1, len(i)))
    for start in range(0, len(x2), block):
        xb, zb, vb = x2[start:start + block], z2[start:start + block], v2[start:start + block]
        pair = vb[:, i] & vb[:, j]
        with np.errstate(invalid="ignore"):
            sx = np.where(pair, np.sign(xb[:, i] - xb[:, j]), 0.0)
            sz = np.where(pair, np.sign(zb[:, i] - zb[:, j]), 0.0)
        s[start:start + block] = (sx * sz).sum(-1)
        untied_x[start:start + block] = (sx != 0).sum(-1)
        untied_z[start:start + block] = (sz != 0).sum(-1)
    s, untied_x, untied_z = (a.reshape(shape) for a in (s, untied_x, untied_z))
    with np.errstate(invalid="ignore", divide="ignore"):
        if name == "tau_b":
            tau = s / np.sqrt(untied_x * untied_z)
            return np.where((untied_x == 0) | (untied_z == 0), np.nan, np.clip(tau, -1.0, 1.0))
        count = valid.sum(-1)
        m = np.minimum(_distinct(x, valid), _distinct(z, valid))
        tau = 2 * s / (count.astype(float) ** 2 * (m - 1) / m)
        return np.where(m < 2, np.nan, np.clip(tau, -1.0, 1.0))


def _kendall_by_row(x, z, valid, name):
    """Long vectors: scipy's O(n log n) Kendall, one vector at a time."""
    shape = x.shape[:-1]
    n = x.shape[-1]
    out = np.full(int(np.prod(shape, dtype=int)), np.nan)
    variant = "b" if name == "tau_b" else "c"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant input: NaN, as in the pairwise path
        for row, (xr, zr, vr) in enumerate(zip(x.reshape(-1, n), z.reshape(-1, n), valid.reshape(-1, n))):
            if vr.sum() >= 2:
                out[row] = stats.kendalltau(xr[vr], zr[vr], variant=variant).statistic
    return out.reshape(shape)


def correlate(X, Z, level: Level, coefficient_name: Coefficient) -> np.ndarray | float:
    """Correlation of metric scores X with human scores Z at a level.

    X and Z have shape (..., systems, inputs) and broadcast; a leading batch gives a batch of
    results. A plain 2-D call returns a float (NaN when undefined)."""
    check_measure(level, coefficient_name)
    X = np.asarray(X, float)
    Z = np.asarray(Z, float)
    if X.ndim < 2 or Z.ndim < 2:
        raise ValueError("score matrices must be systems x inputs")
    X, Z = np.broadcast_arrays(X, Z)
    valid = np.isfinite(X) & np.isfinite(Z)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices give NaN, as intended
        result = _correlate(X, Z, valid, level, coefficient_name)
    return float(result) if result.ndim == 0 else result


def _correlate(X, Z, valid, level, name):
    if level == "system":
        count = valid.sum(-1)
        xs = np.where(valid, X, 0.0).sum(-1) / np.where(count > 0, count, 1)
        zs = np.where(valid, Z, 0.0).sum(-1) / np.where(count > 0, count, 1)
        return coefficient(xs, zs, count > 0, name)
    if level == "input":
        per_input = coefficient(np.swapaxes(X, -1, -2), np.swapaxes(Z, -1, -2), np.swapaxes(valid, -1, -2), name)
        return np.nanmean(per_input, axis=-1)
    if level == "item":
        return np.nanmean(coefficient(X, Z, valid, name), axis=-1)
    flat = X.shape[:-2] + (-1,)
    return coefficient(X.reshape(flat), Z.reshape(flat), valid.reshape(flat), name)


def correlation_grid(X, Z) -> dict[str, dict[str, float]]:
    """All sixteen measures of X against Z: level -> coefficient -> value."""
    return {level: {c: float(correlate(X, Z, level, c)) for c in COEFFICIENTS} for level in LEVELS}
