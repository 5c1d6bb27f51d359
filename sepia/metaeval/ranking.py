"""Agreement between two rankings, and pairwise preference accuracy with explicit tie handling.

- `kendall_tau`: Kendall's tau-b between two score vectors (e.g. run scores by human and by an
  automatic matcher).
- `tau_ap`: Yilmaz et al. (2008)'s AP correlation, which weighs swaps near the top more.
- `pairwise_accuracy`: the share of item pairs on which metric and humans prefer the same item.
  Ties are explicit: `acc_eq` (Deutsch et al. 2023) counts a pair as correct when both prefer the
  same item or both call it a tie; `no_human_ties` (the classic pairwise accuracy) drops pairs that
  humans tie and counts a metric tie as wrong.
- `tie_calibrated_accuracy`: acc_eq after tie calibration (Deutsch et al. 2023): metric differences
  up to epsilon count as ties, and epsilon is chosen to maximise acc_eq.
- `grouped` versions compare pairs only within a group (e.g. answers to one question) and average
  the groups, as AEOLLM's accuracy does.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

TIE_MODES = ("acc_eq", "no_human_ties")


PAIRWISE_TAU_ITEMS = 1000  # up to this many items tau-b is counted pair by pair (n^2 / 2 signs in memory)


def kendall_tau(a, b) -> float:
    """Kendall's tau-b between two score vectors over the same items (NaN where undefined).

    Up to PAIRWISE_TAU_ITEMS items, the pairs' signs are counted here: the same integers and the same
    division as SciPy's `kendalltau`, so the same float, without the p-value SciPy computes too (an
    exact one for up to 33 items without ties): 0.1-0.2 ms instead of 1.6-3 ms for 10-60 runs, and
    the budget's trials call it thousands of times."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    keep = np.isfinite(a) & np.isfinite(b)
    n = int(keep.sum())
    if n < 2:
        return float("nan")
    a, b = a[keep], b[keep]
    if n > PAIRWISE_TAU_ITEMS:
        return float(stats.kendalltau(a, b).statistic)
    first, second = np.triu_indices(n, 1)
    sign_a, sign_b = np.sign(a[first] - a[second]), np.sign(b[first] - b[second])
    untied_a, untied_b = int(np.count_nonzero(sign_a)), int(np.count_nonzero(sign_b))
    if not untied_a or not untied_b:
        return float("nan")
    concordant_minus_discordant = int((sign_a * sign_b).sum())
    tau = concordant_minus_discordant / np.sqrt(untied_a) / np.sqrt(untied_b)  # SciPy's tot - xtie, tot - ytie
    return float(min(1.0, max(-1.0, tau)))


def tau_ap(reference, estimate) -> float:
    """AP correlation of the ranking by `estimate` against the ranking by `reference` (higher
    score = better). tau_AP = 2/(N-1) * sum_{i=2..N} C(i)/(i-1) - 1, where C(i) counts the items
    the estimate ranks above its i-th item that the reference also ranks above it.

    Ties, which the original definition does not have: items the estimate ties are taken in every
    order with equal probability (the expected value is returned), and a pair the reference ties
    counts as half correct."""
    ref, est = np.asarray(reference, float), np.asarray(estimate, float)
    keep = np.isfinite(ref) & np.isfinite(est)
    ref, est = ref[keep], est[keep]
    n = len(ref)
    if n < 2:
        return float("nan")
    # above[x, y] = 1 when the reference puts y above x, 0.5 for a reference tie.
    above = (ref[None, :] > ref[:, None]) + 0.5 * (ref[None, :] == ref[:, None])
    np.fill_diagonal(above, 0.0)
    levels = np.unique(est)[::-1]
    total, position = 0.0, 0
    for level in levels:
        members = np.flatnonzero(est == level)
        earlier = np.flatnonzero(est > level)
        size = len(members)
        a = above[np.ix_(members, earlier)].sum(1).mean() if len(earlier) else 0.0   # above x, earlier groups
        b = above[np.ix_(members, members)].sum(1).mean() / (size - 1) if size > 1 else 0.0  # per group mate
        for k in range(size):              # k group mates precede the item at this position
            rank = position + k + 1
            if rank >= 2:
                total += (a + k * b) / (rank - 1)
        position += size
    return float(2 * total / (n - 1) - 1)


@dataclass(frozen=True)
class PairCounts:
    concordant: float
    discordant: float
    human_ties: float   # tied by humans only
    metric_ties: float  # tied by the metric only
    both_ties: float

    @property
    def total(self) -> float:
        return self.concordant + self.discordant + self.human_ties + self.metric_ties + self.both_ties


def _pairs(human, metric, groups):
    """Differences for every pair of items (within each group), with a weight per pair that
    makes every group count equally when groups are given."""
    human, metric = np.asarray(human, float), np.asarray(metric, float)
    if human.shape != metric.shape or human.ndim != 1:
        raise ValueError("human and metric scores must be vectors over the same items")
    if groups is None:
        groups = np.zeros(len(human), int)
        equal_groups = False
    else:
        equal_groups = True
    keep = np.isfinite(human) & np.isfinite(metric)
    dh, dm, weight = [], [], []
    labels = np.asarray(groups)[keep]
    human, metric = human[keep], metric[keep]
    members_by_group = [np.flatnonzero(labels == g) for g in dict.fromkeys(labels.tolist())]
    members_by_group = [m for m in members_by_group if len(m) >= 2]
    for members in members_by_group:
        i, j = np.triu_indices(len(members), 1)
        i, j = members[i], members[j]
        dh.append(human[i] - human[j])
        dm.append(metric[i] - metric[j])
        weight.append(np.full(len(i), 1.0 / len(i) if equal_groups else 1.0))
    if not dh:
        return np.empty(0), np.empty(0), np.empty(0)
    weights = np.concatenate(weight)
    return np.concatenate(dh), np.concatenate(dm), weights / weights.sum()


def pair_counts(human, metric, *, groups=None, epsilon: float = 0.0) -> PairCounts:
    """Weighted counts of pair outcomes; metric differences of at most epsilon are ties."""
    dh, dm, w = _pairs(human, metric, groups)
    h_tie = dh == 0
    m_tie = np.abs(dm) <= epsilon
    same = np.sign(dh) == np.sign(dm)
    return PairCounts(
        concordant=float(w[~h_tie & ~m_tie & same].sum()),
        discordant=float(w[~h_tie & ~m_tie & ~same].sum()),
        human_ties=float(w[h_tie & ~m_tie].sum()),
        metric_ties=float(w[~h_tie & m_tie].sum()),
        both_ties=float(w[h_tie & m_tie].sum()))


def pairwise_accuracy(human, metric, *, ties: str = "acc_eq", groups=None, epsilon: float = 0.0) -> float:
    """Share of item pairs ordered the same way by metric and humans (see the module notes)."""
    c = pair_counts(human, metric, groups=groups, epsilon=epsilon)
    if ties == "acc_eq":
        numerator, denominator = c.concordant + c.both_ties, c.total
    elif ties == "no_human_ties":
        numerator, denominator = c.concordant, c.concordant + c.discordant + c.metric_ties
    else:
        raise ValueError(f"unknown tie handling {ties!r}; choose one of {', '.join(TIE_MODES)}")
    return numerator / denominator if denominator else float("nan")


def tie_calibrated_accuracy(human, metric, *, groups=None) -> tuple[float, float]:
    """(acc_eq*, epsilon): the best acc_eq over all tie thresholds, and the smallest epsilon that
    reaches it. Raising epsilon past a pair's metric difference turns it into a metric tie: a
    human-tied pair becomes correct, a concordant one becomes wrong."""
    dh, dm, w = _pairs(human, metric, groups)
    if not len(dh):
        return float("nan"), 0.0
    gap = np.abs(dm)
    order = np.argsort(gap, kind="stable")
    gap, dh, dm, w = gap[order], dh[order], dm[order], w[order]
    concordant = np.where((dh != 0) & (np.sign(dh) == np.sign(dm)), w, 0.0)
    human_tie = np.where(dh == 0, w, 0.0)
    # With threshold gap[k], pairs 0..k (and any with the same gap) are metric ties.
    gain = np.cumsum(human_tie - concordant)
    last_of_level = np.r_[gap[1:] != gap[:-1], True]
    candidates = gain[last_of_level]
    thresholds = gap[last_of_level]
    base = float(concordant.sum())
    accuracy = base + candidates
    best = int(np.argmax(accuracy))
    # epsilon below the smallest gap means no extra ties: compare with that too.
    strict = base + 0.0 if thresholds[0] > 0 else None
    if strict is not None and strict >= accuracy[best]:
        return strict, 0.0
    return float(accuracy[best]), float(thresholds[best])
