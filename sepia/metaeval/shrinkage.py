"""Empirical Bayes shrinkage of the runs' estimates toward the model's own, with robust intervals
(robust empirical Bayes confidence intervals: Armstrong, Kolesár and Plagborg-Møller, Econometrica
2022).

A plan's unbiased estimate Y_i of run i (standard error sigma_i) and the learned model's estimate p_i
(its predictions of every item of the run, from models that never saw the run's judgments) err in
different ways: Y_i by sampling, p_i by the model's bias for that run. Shrinking Y_i toward the regression of Y on p (mu_i = delta_0 + delta_1 p_i)
by w_i = mu_2 / (mu_2 + sigma_i^2), where mu_2 is the spread of theta_i - mu_i over the runs, gives
theta_i = mu_i + w_i (Y_i - mu_i), with a smaller mean squared error over the runs than Y itself
whenever the model's biases are small beside the sampling error.

mu_2 is taken as the mean square of Y_i - mu_i itself, the sampling variance not subtracted (the
paper subtracts it): a plan's estimate errs toward the middle where F's clips bind (its error
correlates with the truth, -0.19 to -0.28 on TREC RAG 2024), so its error and the model's bias
correlate and the subtraction underestimates the biases' spread (by 1.4-1.8 times there, and the
intervals covered 88-91%); without it mu_2 is an upper bound unless that covariance exceeds half the
sampling variance, so the shrinkage is milder and the intervals conservative.

Its error, in units of w_i sigma_i, is Z + b_i with Z standard normal and b_i a bias whose mean square
over the runs is m_i = sigma_i^2 / mu_2. The robust interval theta_i +- cva(m_i) w_i sigma_i covers the
runs' true values on average over the runs at the level asked, whatever the biases' distribution:
cva(m) is the chi at which the worst average non-coverage of |Z + b| > chi over all distributions of
b with E[b^2] = m (`rho`) is alpha. The coverage is an average over the runs, not every run's own.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr
from scipy.optimize.elementwise import find_root
from scipy.stats import ncx2, norm


def rejection(t: np.ndarray, chi: np.ndarray) -> np.ndarray:
    """r(t, chi) = P(|Z + b| > chi) for b^2 = t."""
    root = np.sqrt(t)
    return np.where(root - chi > 5, 1.0, ndtr(-root - chi) + ndtr(root - chi))


def _slope(t: np.ndarray, chi: np.ndarray) -> np.ndarray:
    """dr/dt (its limit chi phi(chi) at t = 0)."""
    root = np.sqrt(np.maximum(t, 1e-8))
    return np.where(t >= 1e-8, (norm.pdf(root - chi) - norm.pdf(root + chi)) / (2 * root), chi * norm.pdf(chi))


def _tangent_gap(t, chi):
    return rejection(t, chi) - t * _slope(t, chi) - rejection(np.zeros_like(t), chi)


def tangency(chi) -> np.ndarray:
    """t0(chi): where the line through (0, r(0)) touches r(., chi) (r is concave beyond it, and the
    worst distribution of b^2 with a smaller mean puts its mass on 0 and t0); 0 for chi^2 < 3, where
    r is concave everywhere. The root lies in [chi^2 - 3, 2 chi^2] (doubled if need be)."""
    chi = np.atleast_1d(np.asarray(chi, float))
    convex = chi ** 2 >= 3
    if not convex.any():
        return np.zeros_like(chi)
    c = chi[convex]
    low, high = c ** 2 - 3, 2 * c ** 2
    while np.any(short := _tangent_gap(high, c) < 0):
        low, high = np.where(short, high, low), np.where(short, 2 * high, high)
    out = np.zeros_like(chi)
    out[convex] = find_root(_tangent_gap, (low, high), args=(c,)).x
    return out


def rho(m2, chi) -> np.ndarray:
    """The largest average non-coverage P(|Z + b| > chi) over the distributions of b with E[b^2] = m2:
    r(m2) where r is concave (m2 >= t0), else the tangent from (0, r(0)) at m2."""
    m2, chi = np.broadcast_arrays(np.asarray(m2, float), np.asarray(chi, float))
    t0 = tangency(chi.ravel()).reshape(chi.shape)
    return np.where(m2 >= t0, rejection(m2, chi), rejection(t0, chi) + (m2 - t0) * _slope(t0, chi))


def cva(m2, alpha: float = 0.05) -> np.ndarray:
    """The robust critical value: the chi at which rho(m2, chi) = alpha (for each m2); the normal
    quantile at m2 = 0."""
    m2 = np.atleast_1d(np.asarray(m2, float))
    out = np.full(m2.shape, norm.ppf(1 - alpha / 2))
    some = m2 > 0
    if not some.any():
        return out
    m = m2[some]
    # below: the critical value if every b^2 were m2 (a non-central chi-square's, which rho can only
    # raise; for sqrt(m2) >= 10 its normal limit sqrt(m2) + z_{1-alpha}, as the paper's code: ncx2's
    # quantile is slow there)
    root = np.sqrt(m)
    low = np.where(root >= 10, root + norm.ppf(1 - alpha), 0.0) - 0.01
    small = root < 10
    low[small] = np.sqrt(ncx2.ppf(1 - alpha, 1, m[small])) - 0.01
    high = norm.ppf(1 - alpha / 2) + np.sqrt(m) + 1
    while np.any(short := rho(m, high) >= alpha):
        low, high = np.where(short, high, low), np.where(short, 2 * high, high)
    out[some] = find_root(lambda chi, m: rho(m, chi) - alpha, (low, high), args=(m,)).x
    return out


# Units, at least: mu_2 is estimated from the units' spread about the line, and with few the
# intervals' average coverage is not reached (the CS sample's 3 runs: 86-88%; 8 synthetic runs 94%).
MIN_UNITS = 10


@dataclass(frozen=True)
class Shrunk:
    """The shrunk estimates and their robust intervals' half-widths, with what made them: w per unit,
    mu_2 (after truncation), the regression's (delta_0, delta_1)."""
    estimate: np.ndarray
    half: np.ndarray
    weight: np.ndarray
    mu2: float
    delta: np.ndarray


def shrink_plan(estimate: np.ndarray, half: np.ndarray, anchor: np.ndarray, pairs: np.ndarray,
                level: float = 0.95) -> tuple[Shrunk, Shrunk | None]:
    """A plan's run means (intervals +- `half` at `level`) shrunk toward the line on the model's own
    estimates (`anchor`), the standard error the half-width over the normal quantile (so it keeps the
    interval's degrees of freedom); and, with `pairs` (pairs x 2 rows), the differences of two runs
    shrunk as units of their own (standard error hypot(se_a, se_b), toward the line on the anchors'
    differences). The simulation and a stored plan both shrink this way."""
    se = half / norm.ppf((1 + level) / 2)
    runs = shrink(estimate, se, anchor, level)
    if not len(pairs):
        return runs, None
    a, b = pairs[:, 0], pairs[:, 1]
    return runs, shrink(estimate[a] - estimate[b], np.hypot(se[a], se[b]), anchor[a] - anchor[b], level)


def shrink(estimate, se, anchor, level: float = 0.95) -> Shrunk:
    """Each unit's unbiased `estimate` (standard error `se`) shrunk toward the least-squares line of
    the estimates on `anchor` (the model's own estimates), by the empirical Bayes weight, with the
    robust EBCI half-widths at `level` (average coverage over the units). mu_2 is the mean square of
    the estimates about the line, the sampling variance not subtracted (see the module's note): an
    upper bound of the biases' spread. Units with se 0 keep their estimate, half-width 0; fewer than
    MIN_UNITS units, or estimates all on the line: no
    shrinkage, the normal interval."""
    y, se, x = (np.asarray(v, float) for v in (estimate, se, anchor))
    design = np.column_stack([np.ones_like(x), x])
    delta = np.linalg.lstsq(design, y, rcond=None)[0]
    fitted = design @ delta
    mu2 = float(np.mean((y - fitted) ** 2))
    if len(y) < MIN_UNITS or mu2 <= np.finfo(float).eps * np.mean(y ** 2):   # no spread about the line: as they are
        return Shrunk(y.copy(), norm.ppf((1 + level) / 2) * se, np.ones_like(y), mu2, delta)
    weight = mu2 / (mu2 + se ** 2)
    half = cva(se ** 2 / mu2, 1 - level) * weight * se
    return Shrunk(fitted + weight * (y - fitted), half, weight, mu2, delta)
