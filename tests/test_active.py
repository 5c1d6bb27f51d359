"""sepia.metaeval.active: inclusion probabilities of an active wave against hand-computed ones and a
second implementation (bisection), the residual's standard deviation, and Poisson draws whose
expected size is the wave's."""
import numpy as np
import pytest

from sepia.metaeval.active import draw, inclusion_probabilities, uncertainty_of


@pytest.mark.parametrize("u, expected, floor, want", [
    # proportional: c = 0.2
    ([1, 2, 3, 4], 2.0, 0.1, [0.2, 0.4, 0.6, 0.8]),
    # the cap: 10 c > 1, the other three share the remaining 1
    ([1, 1, 1, 10], 2.0, 0.05, [1 / 3, 1 / 3, 1 / 3, 1.0]),
    # the floor: 0.01 c < 0.2, so 0.2 + 3 c = 1.5
    ([0.01, 1, 1, 1], 1.5, 0.2, [0.2, 1.3 / 3, 1.3 / 3, 1.3 / 3]),
    # both: 100 capped, 0.001 floored, c (1 + 2) = 2 - 1 - 0.1
    ([0.001, 1, 2, 100], 2.0, 0.1, [0.1, 0.3, 0.6, 1.0]),
    # a pair without uncertainty keeps the floor
    ([0, 1, 1], 1.0, 0.1, [0.1, 0.45, 0.45]),
    # ... unless the others are all capped: the zeros share what is left
    ([0, 0, 1], 2.0, 0.1, [0.5, 0.5, 1.0]),
    # the extremes: everything, or the floor only
    ([1, 2, 3], 3.0, 0.1, [1.0, 1.0, 1.0]),
    ([1, 2, 3], 0.3, 0.1, [0.1, 0.1, 0.1]),
    # no uncertainty anywhere: uniform
    ([0, 0, 0, 0], 1.0, 0.1, [0.25, 0.25, 0.25, 0.25]),
])
def test_inclusion_probabilities_by_hand(u, expected, floor, want):
    pi = inclusion_probabilities(np.array(u, float), expected, floor)
    assert pi == pytest.approx(want, abs=1e-12)
    assert pi.sum() == pytest.approx(expected, abs=1e-12)


def _bisected(u, expected, floor):
    low, high = 0.0, 1e9
    for _ in range(300):
        c = (low + high) / 2
        low, high = (c, high) if np.clip(c * u, floor, 1).sum() < expected else (low, c)
    return np.clip(high * u, floor, 1)


def test_inclusion_probabilities_agree_with_bisection():
    rng = np.random.default_rng(3)
    for _ in range(50):
        n = int(rng.integers(2, 60))
        u = rng.gamma(0.5, 1.0, n) * (rng.random(n) > 0.1) + 1e-6
        floor = float(rng.uniform(0.001, 0.5 / n))
        expected = float(rng.uniform(floor * n, n))
        pi = inclusion_probabilities(u, expected, floor)
        assert pi == pytest.approx(_bisected(u, expected, floor), abs=1e-8)
        assert pi.min() >= floor - 1e-12 and pi.max() <= 1 + 1e-12
        # proportional to the uncertainty where neither floor nor cap binds
        free = (pi > floor + 1e-9) & (pi < 1 - 1e-9)
        if free.sum() > 1:
            assert np.ptp(pi[free] / u[free]) == pytest.approx(0, abs=1e-9)


@pytest.mark.parametrize("u, expected, floor, message", [
    ([1, 2], 3.0, 0.1, "between"),
    ([1, 2], 0.1, 0.1, "between"),
    ([1, -2], 1.0, 0.1, ">= 0"),
    ([1, 2], 1.0, 0.0, "floor"),
    ([1, np.nan], 1.0, 0.1, ">= 0"),
])
def test_inclusion_probabilities_refuse(u, expected, floor, message):
    with pytest.raises(ValueError, match=message):
        inclusion_probabilities(np.array(u, float), expected, floor)


def test_uncertainty_is_the_residual_standard_deviation():
    assert uncertainty_of(np.array([0.0, 0.5, 0.9, 1.0])) == pytest.approx([0.0, 0.5, 0.3, 0.0])
    # by simulation: Y ~ Bernoulli(p), sd(Y - p)
    rng = np.random.default_rng(0)
    y = rng.random(200_000) < 0.2
    assert np.std(y - 0.2) == pytest.approx(float(uncertainty_of(np.array([0.2]))[0]), abs=0.005)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        uncertainty_of(np.array([0.5, 1.2]))


def test_draws_have_the_expected_size_and_frequencies():
    pi = inclusion_probabilities(np.array([0.001, 1, 2, 100, 0.5, 0.2]), 2.5, 0.05)
    rng = np.random.default_rng(7)
    draws = np.array([draw(pi, rng) for _ in range(20_000)])
    assert draws.dtype == bool
    sizes = draws.sum(axis=1)
    # E[size] = sum(pi) = 2.5, Var[size] = sum pi (1 - pi): within 4 standard errors
    assert abs(sizes.mean() - 2.5) < 4 * np.sqrt((pi * (1 - pi)).sum() / len(draws))
    assert draws.mean(axis=0) == pytest.approx(pi, abs=0.015)
    assert draw(np.array([0.0, 1.0]), rng).tolist() == [False, True]
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        draw(np.array([0.5, 1.5]), rng)
