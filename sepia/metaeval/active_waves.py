"""An active plan's waves combined (`sepia.metaeval.active_estimates` estimates each): the first,
uniform wave's estimate T_1 and, for every later wave t, the inverse-probability-weighted estimate
T_t whose pi were drawn from the model known before wave t, the items judged in earlier waves entering
it exactly (pi = 1). Each T_t (t >= 2) is unbiased given the waves before t, so the T_t are
uncorrelated (a martingale's increments: E[T_t - truth | waves < t] = 0 and T_s, s < t, is fixed given
them), and sum_t w_t T_t with w_t proportional to 1 / V_t (the runs' summed variances) minimises the
summed variance of the runs' means and of their differences; with two waves w_1 = V_2 / (V_1 + V_2)
(a stored plan's two waves, `sepia.metaeval.item_estimates`, as the simulation's). The interval: t(df) sqrt(sum_t w_t^2 V_t), Satterthwaite's df.
"""
from __future__ import annotations

import numpy as np

from sepia.metaeval.active_estimates import Totals
from sepia.metaeval.items import satterthwaite_half


def wave_weights(waves: list[Totals]) -> np.ndarray:
    """w_t proportional to 1 / V_t, summing to 1 (V_t: wave t's variance summed over the runs); a wave
    without variance takes all the weight (shared equally when several have none)."""
    v = np.array([float(t.variance.sum()) for t in waves])
    if (v <= 0).any():
        exact = (v <= 0).astype(float)
        return exact / exact.sum()
    return (1 / v) / (1 / v).sum()


def waves_interval(waves: list[Totals], weights: np.ndarray, topics: int, level: float) -> tuple[np.ndarray, np.ndarray]:
    """(estimates, half-widths) of the means over the topics of sum_t w_t T_t."""
    estimate = sum(w * t.estimate for w, t in zip(weights, waves))
    variance = sum(w ** 2 * t.variance for w, t in zip(weights, waves))
    spread = sum(w ** 4 * t.spread for w, t in zip(weights, waves))
    return estimate / topics, satterthwaite_half(variance, spread, level) / topics
