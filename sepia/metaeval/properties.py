"""How good is a correlation measure itself (Gao et al. 2024's meta-meta-evaluation)?

- Discriminative power: run the permutation test for every pair of metrics; a measure that tells
  metrics apart gives small p-values. Reported as the mean p-value (smaller is better) and the
  sorted p-values (the p-value curve).
- Ranking consistency: split the inputs in two random halves, rank the metrics by the measure on
  each half, and take Kendall's tau-b between the two rankings; the mean over T splits (larger is
  more stable).
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np

from sepia.metaeval.correlation import MEASURES, Coefficient, Level, check_measure, coefficient, correlate
from sepia.metaeval.significance import (pair_deltas, randomised_pvalue, same_missing_cells, standardize,
                                         swap_masks)


@dataclass(frozen=True)
class DiscriminativePower:
    mean_pvalue: float
    pvalues: dict[tuple[int, int], float]  # (metric a, metric b) -> two-sided p-value

    def curve(self) -> np.ndarray:
        """The p-values in ascending order, for the p-value curve."""
        return np.sort(np.fromiter(self.pvalues.values(), float))


def discriminative_power(metrics, Z, level: Level, coefficient_name: Coefficient, *, method: str = "both",
                         n_resamples: int = 1000, seed=None) -> DiscriminativePower:
    """Mean two-sided permutation-test p-value over all pairs of metrics.

    metrics: (n_metrics, systems, inputs); Z: (systems, inputs). The same random swaps serve every
    pair, which keeps the test valid for each pair and lets the pairs run as one numpy block."""
    check_measure(level, coefficient_name)
    M = np.stack([standardize(m) for m in np.asarray(metrics, float)])
    Z = standardize(Z)
    if M.ndim != 3 or len(M) < 2:
        raise ValueError("need at least two metrics, each a systems x inputs matrix")
    if M.shape[1:] != Z.shape:
        raise ValueError("metric and human matrices differ in shape")
    same_missing_cells(*M)
    observed = np.asarray(correlate(M, Z, level, coefficient_name))  # one value per metric
    masks = swap_masks(np.random.default_rng(seed), n_resamples, Z.shape, method)
    pairs = list(combinations(range(len(M)), 2))
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    samples = pair_deltas(M, Z, a, b, masks, level, coefficient_name)
    delta = observed[a] - observed[b]
    share = randomised_pvalue(np.abs(samples) >= np.abs(delta)[:, None] - 1e-12)
    pvalues = {pair: float(p) if np.isfinite(d) else float("nan") for pair, p, d in zip(pairs, share, delta)}
    values = np.fromiter(pvalues.values(), float)
    return DiscriminativePower(float(np.nanmean(values)) if np.isfinite(values).any() else float("nan"), pvalues)


def ranking_consistency(metrics, Z, level: Level, coefficient_name: Coefficient, *, repetitions: int = 100,
                        seed=None) -> float:
    """Mean Kendall tau-b between the metric rankings on two random halves of the inputs."""
    check_measure(level, coefficient_name)
    M = np.asarray(metrics, float)
    Z = np.asarray(Z, float)
    if M.ndim != 3 or len(M) < 2:
        raise ValueError("need at least two metrics, each a systems x inputs matrix")
    inputs = Z.shape[1]
    if inputs < 2:
        raise ValueError("ranking consistency needs at least two inputs")
    rng = np.random.default_rng(seed)
    order = np.argsort(rng.random((repetitions, inputs)), axis=1)
    half = inputs // 2
    first, second = order[:, :half], order[:, half:2 * half]
    r1 = _halves(M, Z, first, level, coefficient_name)
    r2 = _halves(M, Z, second, level, coefficient_name)
    taus = coefficient(r1, r2, np.isfinite(r1) & np.isfinite(r2), "tau_b")
    return float(np.nanmean(taus)) if np.isfinite(taus).any() else float("nan")


def _halves(M, Z, columns, level, coefficient_name):
    """Correlation of every metric on the given input columns, per repetition: (reps, metrics)."""
    Mh = np.take(M, columns, axis=2)          # (metrics, systems, reps, half)
    Zh = np.take(Z, columns, axis=1)          # (systems, reps, half)
    Mh = np.moveaxis(Mh, 2, 0)                # (reps, metrics, systems, half)
    Zh = np.moveaxis(Zh, 1, 0)[:, None]       # (reps, 1, systems, half)
    return correlate(Mh, Zh, level, coefficient_name)


def measure_properties(metrics, names, Z, *, n_resamples: int = 1000, repetitions: int = 100, seed=None) -> dict:
    """Discriminative power (mean p-value, curve, and every pair's p-value) and ranking consistency
    of all sixteen measures for two or more metrics; consistency needs four inputs or more."""
    power: dict[str, dict[str, float]] = {}
    consistency: dict[str, dict[str, float]] = {}
    curves: dict[str, list[float]] = {}
    pairs: dict[str, dict[str, float]] = {}
    for level, c in MEASURES:
        dp = discriminative_power(metrics, Z, level, c, n_resamples=n_resamples, seed=seed)
        power.setdefault(level, {})[c] = dp.mean_pvalue
        curves[f"{level}/{c}"] = dp.curve().tolist()
        for (a, b), p in dp.pvalues.items():
            pairs.setdefault(f"{names[a]} vs {names[b]}", {})[f"{level}/{c}"] = p
        if np.shape(Z)[1] >= 4:
            consistency.setdefault(level, {})[c] = ranking_consistency(metrics, Z, level, c,
                                                                       repetitions=repetitions, seed=seed)
    return {"discriminative_power": power, "ranking_consistency": consistency, "pvalue_curves": curves,
            "pair_pvalues": pairs}
