"""Empirical Bayes shrinkage and its robust intervals (sepia.metaeval.shrinkage) against independent
computations: the worst-case non-coverage by brute force over two-point distributions on a grid, the
non-central chi-square where the worst case is a point mass, the estimator written out by hand, and
average coverage by simulation."""
import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.stats import ncx2, norm

from sepia.metaeval.shrinkage import MIN_UNITS, cva, rejection, rho, shrink, tangency


def brute_rho(m2: float, chi: float) -> float:
    """sup over distributions of t = b^2 >= 0 with mean m2 of E r(t, chi): a two-point distribution
    (a <= m2 <= b) suffices for one moment constraint; searched on a grid."""
    below = np.linspace(0, m2, 301)
    above = np.concatenate([np.linspace(m2, m2 + 4 * chi ** 2 + 10, 8001)])
    ra, rb = rejection(below, chi), rejection(above, chi)
    a, b = below[:, None], above[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(b > a, (b - m2) / (b - a), 1.0)
    return float(np.nanmax(p * ra[:, None] + (1 - p) * rb[None, :]))


@pytest.mark.parametrize("m2", [0.04, 0.5, 1.0, 3.0, 12.0])
def test_critical_value_against_brute_force(m2):
    chi = float(cva(m2)[0])
    assert rho(m2, chi) == pytest.approx(0.05, abs=1e-12)
    brute = brentq(lambda c: brute_rho(m2, c) - 0.05, 1.0, 40.0, xtol=1e-12)
    assert chi == pytest.approx(brute, abs=2e-6)


def test_critical_value_limits():
    assert cva(0.0)[0] == norm.ppf(0.975)
    assert cva(0.0, alpha=0.1)[0] == norm.ppf(0.95)
    # where r(., chi) is concave (chi^2 < 3) the worst case is the point mass at m2: the non-central
    # chi-square's critical value
    for m2 in (0.01, 0.1, 0.3):
        chi = cva(m2, alpha=0.2)[0]
        assert chi ** 2 < 3
        assert chi == pytest.approx(np.sqrt(ncx2.ppf(0.8, 1, m2)), rel=1e-12)
    # otherwise it is larger: the worst distribution spreads the bias
    assert cva(1.0)[0] > np.sqrt(ncx2.ppf(0.95, 1, 1.0)) + 0.1
    # grows with m2, elementwise as one by one
    values = np.array([0.1, 0.5, 2.0, 8.0])
    together = cva(values)
    assert np.all(np.diff(together) > 0)
    assert together == pytest.approx(np.array([cva(v)[0] for v in values]), abs=1e-12)


def test_tangency_touches():
    for chi in (1.9, 2.5, 4.0, 9.0):
        t0 = tangency(chi)[0]
        # the line from (0, r(0)) through (t0, r(t0)) lies above r everywhere
        t = np.linspace(0, 6 * chi ** 2, 20001)
        line = rejection(np.zeros(1), chi) + t * (rejection(np.array([t0]), chi) - rejection(np.zeros(1), chi)) / t0
        assert np.all(line >= rejection(t, chi) - 1e-9)
    assert tangency(1.5)[0] == 0.0


def test_shrink_by_hand():
    y = np.array([0.30, 0.42, 0.25, 0.51, 0.38, 0.33, 0.12, 0.47, 0.29, 0.36])
    sd = np.array([0.03, 0.02, 0.04, 0.025, 0.03, 0.05, 0.035, 0.02, 0.045, 0.03])
    p = np.array([0.28, 0.40, 0.30, 0.45, 0.41, 0.30, 0.15, 0.44, 0.27, 0.30])
    out = shrink(y, sd, p, 0.95)
    slope, intercept = np.polyfit(p, y, 1)
    fitted = intercept + slope * p
    mu2 = np.mean((y - fitted) ** 2)
    w = mu2 / (mu2 + sd ** 2)
    assert out.delta == pytest.approx([intercept, slope], rel=1e-10)
    assert out.mu2 == pytest.approx(mu2, rel=1e-12)
    assert out.weight == pytest.approx(w, rel=1e-12)
    assert out.estimate == pytest.approx(fitted + w * (y - fitted), rel=1e-12)
    chi = [brentq(lambda c, s=s: brute_rho(s ** 2 / mu2, c) - 0.05, 1.0, 60.0, xtol=1e-12) for s in sd]
    assert out.half == pytest.approx(np.array(chi) * w * sd, rel=1e-5)


def test_shrink_degenerate():
    y, p = np.linspace(0.2, 0.5, MIN_UNITS), np.linspace(0.1, 0.4, MIN_UNITS) ** 2
    exact = shrink(y, np.zeros(MIN_UNITS), p)                           # no sampling error: nothing moves
    assert exact.estimate == pytest.approx(y) and not exact.half.any()
    se = np.full(MIN_UNITS - 1, 0.02)
    rng = np.random.default_rng(1)
    few = shrink(rng.random(MIN_UNITS - 1), se, rng.random(MIN_UNITS - 1))   # too few to estimate the spread
    assert few.half == pytest.approx(norm.ppf(0.975) * se) and (few.weight == 1).all()
    y = rng.random(MIN_UNITS)
    on_line = shrink(y, np.full(MIN_UNITS, 0.02), 2 * y)
    assert on_line.estimate == pytest.approx(y) and on_line.half == pytest.approx(norm.ppf(0.975) * 0.02)


def _simulated(correlation: float, plans: int = 60, n: int = 100):
    """Coverage and mean squared errors of `shrink` (and of the same estimator with the sampling
    variance subtracted from mu_2, as Armstrong, Kolesar and Plagborg-Moller's moment estimate, with
    their "PMT" floor) when
    the biases come from a skewed two-point distribution (the normal prior is wrong) and the
    estimates' errors correlate with the biases by `correlation`."""
    rng = np.random.default_rng(5)
    covered = 0
    errors, raw, paper = [], [], []
    for _ in range(plans):
        p = rng.uniform(0.1, 0.5, n)
        bias = np.where(rng.random(n) < 0.1, 0.06, -0.06 / 9)      # mean 0, sd 0.02, skewed
        theta = p - bias                                           # the model errs by +bias
        sd = rng.uniform(0.02, 0.04, n)
        noise = correlation * bias / 0.02 + np.sqrt(1 - correlation ** 2) * rng.standard_normal(n)
        y = theta + sd * noise
        out = shrink(y, sd, p)
        covered += np.sum(np.abs(out.estimate - theta) <= out.half)
        fitted = (out.estimate - out.weight * y) / (1 - out.weight)
        mu2 = max(np.mean((y - fitted) ** 2 - sd ** 2), 2 * np.mean(sd ** 4) / (n * np.mean(sd ** 2)))   # and PMT
        w = mu2 / (mu2 + sd ** 2)
        paper.append((np.abs(fitted + w * (y - fitted) - theta), sd ** 2 / mu2, w * sd))
        errors.append(np.mean((out.estimate - theta) ** 2))
        raw.append(np.mean((y - theta) ** 2))
    error, m2, scale = (np.concatenate(column) for column in zip(*paper))
    subtracted_covered = np.sum(error <= cva(m2) * scale)                # one call for every plan: fast
    return covered / (n * plans), subtracted_covered / (n * plans), np.mean(errors) / np.mean(raw)


def test_average_coverage_and_error_by_simulation():
    """Errors independent of the biases: the intervals cover at least 95% of the units on average
    (conservatively: mu_2 keeps the sampling variance) and the shrunk estimates err less than the
    unbiased ones."""
    coverage, subtracted, error_ratio = _simulated(0.0)
    assert 0.95 <= coverage <= 0.995
    assert 0.93 <= subtracted <= 0.97     # the paper's estimate is exact here
    assert error_ratio < 0.75


def test_coverage_when_errors_follow_the_biases():
    """Errors correlated with the model's biases (0.3, as a plan's estimates on TREC RAG 2024): the
    moment estimate with the sampling variance subtracted under-covers, the one kept does not."""
    coverage, subtracted, error_ratio = _simulated(0.3)
    assert coverage >= 0.94
    assert subtracted < coverage - 0.02
    assert error_ratio < 0.9
