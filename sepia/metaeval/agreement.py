"""Chance-corrected agreement between assessors: Fleiss' kappa and Krippendorff's alpha.

Both work from a units x categories count matrix (how many assessors put unit u in category c),
so they take votes recorded as counts as well as individual votes. Units with fewer than two
ratings cannot show agreement or disagreement and are left out.
"""
from __future__ import annotations

import numpy as np

ALPHA_LEVELS = ("nominal", "ordinal", "interval", "ratio")


def fleiss_kappa(counts) -> float:
    """Fleiss' kappa (1971); units may have different numbers of raters (missing votes): each
    unit's agreement is over its own raters, category shares are pooled over all ratings."""
    counts = np.asarray(counts, float)
    raters = counts.sum(1)
    counts, raters = counts[raters >= 2], raters[raters >= 2]
    if not len(counts):
        return float("nan")
    agreement = ((counts * counts).sum(1) - raters) / (raters * (raters - 1))
    shares = counts.sum(0) / raters.sum()
    observed, expected = agreement.mean(), (shares * shares).sum()
    if expected >= 1:
        return float("nan")  # every rating in one category: agreement is not measurable
    return float((observed - expected) / (1 - expected))


def value_counts(data) -> tuple[np.ndarray, np.ndarray]:
    """Reliability data (raters x units, NaN = missing) -> (units x values counts, sorted values)."""
    data = np.asarray(data, float)
    values = np.unique(data[np.isfinite(data)])
    counts = np.stack([(data == v).sum(0) for v in values], axis=1) if len(values) else np.zeros((data.shape[1], 0))
    return counts, values


def _delta_squared(values, totals, level):
    c, k = values[:, None], values[None, :]
    if level == "nominal":
        return (c != k).astype(float)
    if level == "interval":
        return (c - k) ** 2
    if level == "ratio":
        with np.errstate(invalid="ignore", divide="ignore"):
            d = ((c - k) / (c + k)) ** 2
        return np.nan_to_num(d)  # 0/0 when both values are 0: no difference
    if level == "ordinal":
        cumulative = np.cumsum(totals)
        index = np.arange(len(values))
        lo, hi = np.minimum.outer(index, index), np.maximum.outer(index, index)
        # sum of n_g for g from c to k, minus half of n_c and n_k
        between = cumulative[hi] - np.where(lo > 0, cumulative[np.maximum(lo - 1, 0)], 0)
        return (between - (totals[lo] + totals[hi]) / 2) ** 2
    raise ValueError(f"unknown level {level!r}; choose one of {', '.join(ALPHA_LEVELS)}")


def krippendorff_alpha_counts(counts, values, level: str = "nominal") -> float:
    """Krippendorff's alpha from a units x values count matrix, via the coincidence matrix:
    o_ck = sum over units of n_uc * (n_uk - [c == k]) / (m_u - 1); alpha = 1 - D_o / D_e."""
    counts = np.asarray(counts, float)
    values = np.asarray(values, float)
    if level == "ratio" and (values < 0).any():
        raise ValueError("Krippendorff's alpha at the ratio level needs values of 0 or more "
                         f"(got {values.min():g}); use the interval level for values with a sign")
    pairable = counts.sum(1)
    counts, pairable = counts[pairable >= 2], pairable[pairable >= 2]
    if not len(counts):
        return float("nan")
    coincidence = np.einsum("uc,uk->ck", counts / (pairable - 1)[:, None], counts)
    coincidence -= np.diag((counts / (pairable - 1)[:, None]).sum(0))
    totals = coincidence.sum(1)
    n = totals.sum()
    delta = _delta_squared(values, totals, level)
    expected = (np.outer(totals, totals) * delta).sum()
    if expected == 0:
        return float("nan")
    return float(1 - (n - 1) * (coincidence * delta).sum() / expected)


def krippendorff_alpha(data, level: str = "nominal") -> float:
    """Krippendorff's alpha for reliability data: raters x units, NaN where a rater gave no value."""
    counts, values = value_counts(data)
    return krippendorff_alpha_counts(counts, values, level)
