"""Who to judge next in an active plan (active statistical inference, Zrnic and Candes, ICML 2024).

After a first uniform wave, a model trained on the judged pairs predicts every unjudged pair's
judgment. The estimator's variance is smallest when a pair is judged with probability proportional
to the standard deviation of the model's residual on it (their Theorem: pi ~ sqrt(E[(Y - f)^2 | X])),
so a later wave draws pairs the model is unsure of more often. Each pair keeps a floor probability
so that every one can be drawn: the estimator weights a judged pair by 1 / pi, which must be
finite, and a model that is confidently wrong is still caught.

Three pure functions, the only API (a stored plan draws its next wave with them):

- `uncertainty_of(prediction)`: the residual's standard deviation sqrt(p (1 - p)) of a prediction p
  in [0, 1] (exact for a calibrated p of a judgment in {0, 1}; an upper bound for one in [0, 1]);
- `inclusion_probabilities(uncertainty, expected, floor)`: pi_i = min(1, max(floor, c u_i)), with
  c found by water-filling so that sum(pi) = expected;
- `draw(probabilities, rng)`: Poisson sampling, each pair judged independently with its pi.
"""
from __future__ import annotations

import numpy as np


def uncertainty_of(prediction: np.ndarray) -> np.ndarray:
    """sqrt(p (1 - p)) for every predicted judgment value p in [0, 1]: the standard deviation of
    Y - p when Y is 1 with probability p (a judgment in [0, 1] with mean p varies no more)."""
    p = np.asarray(prediction, float)
    if p.size and (np.isnan(p).any() or p.min() < 0 or p.max() > 1):
        raise ValueError("predicted judgment values must lie in [0, 1]")
    return np.sqrt(p * (1 - p))


def inclusion_probabilities(uncertainty: np.ndarray, expected: float, floor: float) -> np.ndarray:
    """Inclusion probabilities pi_i = min(1, max(floor, c * u_i)) summing to `expected` (the wave's
    size): proportional to the uncertainty where that lies between the floor and the cap of 1. The
    constant c is solved exactly (the sum is piecewise linear in c). Where even c -> infinity falls
    short (too many pairs without uncertainty), those pairs share the rest equally."""
    u = np.asarray(uncertainty, float)
    n = u.size
    if u.ndim != 1 or (n and (np.isnan(u).any() or u.min() < 0)):
        raise ValueError("uncertainties must be a list of numbers >= 0")
    if not 0 < floor <= 1:
        raise ValueError(f"the floor probability must lie in (0, 1], not {floor}")
    slack = 1e-9 * max(n, 1)   # floor * n in floating point
    if not floor * n - slack <= expected <= n:
        raise ValueError(f"a wave of {expected} expected draws among {n} pairs with floor {floor} needs "
                         f"between {floor * n:g} and {n} draws")
    if expected <= floor * n + slack:
        return np.full(n, expected / n) if n else np.zeros(0)
    positive = u > 0
    reachable = positive.sum() + floor * (n - positive.sum())
    if expected >= reachable:
        pi = np.ones(n)
        if not positive.all():
            pi[~positive] = (expected - positive.sum()) / (n - positive.sum())
        return pi
    c = _water_level(u[positive], expected - floor * (n - positive.sum()), floor)
    return np.where(positive, np.clip(c * u, floor, 1.0), floor)


def _water_level(u: np.ndarray, target: float, floor: float) -> float:
    """The c with sum_i min(1, max(floor, c u_i)) = target over positive u, floor * len(u) <= target
    < len(u). The sum is continuous, nondecreasing and linear between the breakpoints floor/u_i
    (u_i leaves the floor) and 1/u_i (u_i reaches the cap); evaluate it at every breakpoint, then
    solve on the segment where it crosses the target."""
    enter, cap = np.sort(floor / u), np.sort(1 / u)
    u_by_enter, u_by_cap = u[np.argsort(floor / u)], u[np.argsort(1 / u)]
    points = np.sort(np.concatenate([enter, cap]))
    entered = np.searchsorted(enter, points, side="right")    # u_i with floor/u_i <= c
    capped = np.searchsorted(cap, points, side="right")       # u_i with 1/u_i <= c
    middle_u = (np.concatenate([[0.0], np.cumsum(u_by_enter)])[entered]
                - np.concatenate([[0.0], np.cumsum(u_by_cap)])[capped])
    totals = floor * (len(u) - entered) + points * middle_u + capped
    k = int(np.searchsorted(totals, target, side="left"))     # first breakpoint reaching the target
    if k == 0:
        return float(points[0])
    # on (points[k-1], points[k]] the sets are those just after points[k-1]
    e, cp = entered[k - 1], capped[k - 1]
    slope = middle_u[k - 1]
    return float((target - floor * (len(u) - e) - cp) / slope)


def draw(probabilities: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Poisson sampling: a boolean mask, pair i drawn independently with probability pi_i (the wave's
    size is random, its expectation sum(pi))."""
    pi = np.asarray(probabilities, float)
    if pi.size and (np.isnan(pi).any() or pi.min() < 0 or pi.max() > 1):
        raise ValueError("inclusion probabilities must lie in [0, 1]")
    return rng.random(pi.shape) < pi
