"""Permutation deltas r(X', Z) - r(Y', Z) for the rank coefficients (Spearman, Kendall tau-b and
tau-c) at the input, item and global levels, without building the permuted matrices.

For a metric pair (a, b) and a swap mask m, X' = where(m, b, a) and Y' = where(m, a, b): in every
group of cells (a column at the input level, a row at the item level, all cells at the global
level) each cell offers two candidate values, and a mask selects one of them for X' and the other
for Y'. Everything that does not depend on the mask is computed once per pair:
- the candidates sorted by value within their group, cut into runs of equal values. Per mask, the
  number of selected candidates in each run gives the average ranks of X' (Spearman), its tied
  pairs (tau-b) and its distinct values (tau-c), in time linear in the group size.
- Kendall's S is a quadratic form in the mask: with w_ik = sign(z_i - z_k) and
  f_uv(i, k) = sign(u_i - v_k) for candidates u, v of cells i, k (0 = a, 1 = b),
  S(m) = c + L.m + m'Hm / 2 with H = w * (f00 - f01 - f10 + f11). All masks are evaluated with one
  matrix product per group; H holds integers in [-4, 4], so float32 products are exact while
  4 n^2 < 2^24 (n = cells per group).
The results equal the resampling path (tests compare them, ties and missing cells included).
"""
from __future__ import annotations

import warnings

import numpy as np

from sepia.metaeval.correlation import _distinct, _ranks

RANK_COEFFICIENTS = ("spearman", "tau_b", "tau_c")
# Elements per (masks x candidates) working array: bounds memory per block of pairs.
_BLOCK = 6_000_000
_FLOAT32_EXACT = 2 ** 24


def grouped(arr, level):
    """(..., systems, inputs) -> (..., groups, cells per group) for a level."""
    arr = np.asarray(arr)
    if level == "input":
        return np.swapaxes(arr, -1, -2)
    if level == "item":
        return arr
    return arr.reshape(arr.shape[:-2] + (1, -1))


def rank_deltas(M, Z, a, b, masks, level: str, name: str) -> np.ndarray:
    """r(X', Z) - r(Y', Z) for pairs (M[a], M[b]) under every mask: (pairs, masks)."""
    valid = np.isfinite(M[0]) & np.isfinite(Z)
    Mg = np.ascontiguousarray(grouped(np.where(valid, M, 0.0), level))     # (metrics, G, n)
    Vg = np.ascontiguousarray(grouped(valid, level))                      # (G, n)
    Zg = np.where(Vg, grouped(Z, level), 0.0)
    Wg = np.ascontiguousarray(grouped(np.asarray(masks, bool), level))    # (masks, G, n)
    by_cell = np.ascontiguousarray(Wg.reshape(len(Wg), -1).T)              # (G * n, masks)
    human = _Human(Zg, Vg)
    groups, n = Vg.shape
    step = max(1, _BLOCK // (len(masks) * groups * 2 * n))
    out = np.empty((len(a), len(masks)))
    for start in range(0, len(a), step):
        ia, ib = a[start:start + step], b[start:start + step]
        runs = _Runs(Mg[ia], Mg[ib], Vg, human.ranks)
        if name == "spearman" or runs.ties:
            x_stats, y_stats = runs.stats(by_cell, True), runs.stats(by_cell, False)
        else:   # no ties in X' or Y' under any mask
            x_stats = y_stats = {"tied": 0.0, "distinct": human.k}
        if name == "spearman":
            rx, ry = human.spearman(x_stats), human.spearman(y_stats)
        else:
            sx, sy = _kendall_s(Mg[ia], Mg[ib], Zg, Vg, Wg)
            rx, ry = human.kendall(sx, x_stats, name), human.kendall(sy, y_stats, name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)   # a pair whose groups are all undefined
            out[start:start + step] = (np.nanmean(rx, 1) - np.nanmean(ry, 1)).T
    return out


class _Human:
    """What depends on Z only: ranks, rank sums, ties and distinct values per group."""

    def __init__(self, Zg, Vg):
        # Per-group figures are (G, 1), to broadcast against (masks, G, pairs).
        self.k = Vg.sum(-1).astype(float)[:, None]
        self.ranks = np.where(Vg, _ranks(Zg, Vg), 0.0)
        k = self.k
        self.rank_sum = k * (k + 1) / 2
        with np.errstate(invalid="ignore", divide="ignore"):   # groups without valid cells
            self.var = (self.ranks ** 2).sum(-1)[:, None] - self.rank_sum ** 2 / k
            self.distinct = _distinct(Zg, Vg)[:, None]
        sz = np.sign(Zg[:, :, None] - Zg[:, None, :]) * (Vg[:, :, None] & Vg[:, None, :])
        self.untied = ((sz != 0).sum((-1, -2)) / 2)[:, None]

    def spearman(self, st):
        k = self.k
        with np.errstate(invalid="ignore", divide="ignore"):
            cov = st["rank_z"] - self.rank_sum ** 2 / k
            var_x = st["rank_sq"] - self.rank_sum ** 2 / k
            r = cov / np.sqrt(var_x * self.var)
        flat = (k < 2) | (st["distinct"] < 2) | (self.distinct < 2)
        return np.where(flat, np.nan, np.clip(r, -1.0, 1.0))

    def kendall(self, s, st, name):
        k = self.k
        with np.errstate(invalid="ignore", divide="ignore"):
            if name == "tau_b":
                untied_x = k * (k - 1) / 2 - st["tied"]
                tau = s / np.sqrt(untied_x * self.untied)
                return np.where((untied_x == 0) | (self.untied == 0), np.nan, np.clip(tau, -1.0, 1.0))
            m = np.minimum(st["distinct"], self.distinct)
            tau = 2 * s / (k ** 2 * (m - 1) / m)
            return np.where(m < 2, np.nan, np.clip(tau, -1.0, 1.0))


class _Runs:
    """The 2n candidates of every group of a block of pairs, sorted by value, in runs of equal values.

    Laid out flat: pair, then group, then candidates in value order, so that one reduceat per
    statistic serves the whole block."""

    def __init__(self, A, B, Vg, z_ranks):
        pairs, groups, n = A.shape
        values = np.concatenate([A, B], -1)                                  # (pairs, G, 2n)
        cand_valid = np.concatenate([Vg, Vg], -1)
        values = np.where(cand_valid, values, np.inf)                        # invalid cells: one run at the end
        order = np.argsort(values, axis=-1, kind="stable")
        values = np.take_along_axis(values, order, -1)
        cell = order % n + (np.arange(groups) * n)[:, None]                  # flat cell index in (G, n)
        self.cell = cell.reshape(-1)
        self.source = (order >= n).reshape(-1)                               # True: candidate from b
        self.valid = np.take(Vg.reshape(-1), self.cell)
        self.z = np.take(z_ranks.reshape(-1), self.cell)
        starts = np.ones(values.shape, bool)
        starts[..., 1:] = values[..., 1:] != values[..., :-1]
        self.run_start = np.flatnonzero(starts)
        group_start = np.arange(pairs * groups) * 2 * n
        self.group_first_run = np.searchsorted(self.run_start, group_start)
        self.run_group = np.repeat(np.arange(pairs * groups), np.diff(np.append(self.group_first_run, len(self.run_start))))
        self.shape = (pairs, groups)
        # Ties between different cells are possible only where a run holds candidates of two cells.
        same_run = ~starts[..., 1:] & np.isfinite(values[..., 1:])
        self.ties = bool((same_run & (cell[..., 1:] != cell[..., :-1])).any())

    def stats(self, masks_by_cell, first: bool) -> dict:
        """Per mask and group: sum of rank * z-rank, sum of squared ranks, tied pairs, distinct values
        of X' (first) or Y'; each (masks, G, pairs). masks_by_cell is (G * n, masks): candidates are
        rows, so gathers and reductions run over contiguous memory."""
        picked = masks_by_cell[self.cell] == self.source[:, None]
        s = ((picked if first else ~picked) & self.valid[:, None]).astype(float)   # (L, masks)
        count = np.add.reduceat(s, self.run_start, axis=0)
        z_sum = np.add.reduceat(s * self.z[:, None], self.run_start, axis=0)
        before = np.cumsum(count, axis=0) - count
        less = before - before[self.group_first_run][self.run_group]
        rank = less + (count + 1) / 2

        def per_group(v):
            v = np.add.reduceat(v, self.group_first_run, axis=0)              # (pairs * G, masks)
            return v.reshape(self.shape + (-1,)).transpose(2, 1, 0)

        return {"rank_z": per_group(rank * z_sum), "rank_sq": per_group(count * rank * rank),
                "tied": per_group(count * (count - 1) / 2), "distinct": per_group((count > 0).astype(float))}


def _kendall_s(A, B, Zg, Vg, Wg):
    """Kendall's S of X' and of Y' against Z per mask and group: two (masks, G, pairs) arrays."""
    both = (Vg[:, :, None] & Vg[:, None, :])
    w = (np.sign(Zg[:, :, None] - Zg[:, None, :]) * both).astype(np.int8)  # (G, n, n)

    def sign(u, v):
        return np.sign(u[..., :, None] - v[..., None, :]).astype(np.int8) * w

    f00, f11, f01, f10 = sign(A, A), sign(B, B), sign(A, B), sign(B, A)     # (pairs, G, n, n), times w
    c = f00.sum((-1, -2), dtype=float) / 2                                   # (pairs, G)
    L = ((f01 - f00).sum(-2, dtype=float) + (f10 - f00).sum(-1, dtype=float)) / 2   # (pairs, G, n)
    H = (f00 - f01 - f10 + f11)
    del f00, f01, f10, f11
    pairs, groups, n, _ = H.shape
    exact = np.float32 if 4 * n * n < _FLOAT32_EXACT else np.float64
    Wf = np.ascontiguousarray(Wg.transpose(1, 0, 2), dtype=exact)          # (G, masks, n)
    Hs = np.ascontiguousarray(H.transpose(1, 2, 0, 3)).reshape(groups, n, pairs * n).astype(exact)
    T = np.matmul(Wf, Hs).reshape(groups, len(Wg), pairs, n)                # (G, masks, pairs, n)
    q = np.einsum("gmpn,gmn->mgp", T, Wf, dtype=float)                      # m'Hm
    Wd = Wf.astype(float)
    lm = np.einsum("gmn,pgn->mgp", Wd, L)                                   # L.m
    H1 = H.sum(-1, dtype=float)                                             # (pairs, G, n)
    hm = np.einsum("gmn,pgn->mgp", Wd, H1)
    h11 = H1.sum(-1).T                                                      # (G, pairs)
    l1 = L.sum(-1).T
    c = c.T
    sx = c + lm + q / 2
    sy = c + l1 - lm + (h11 - 2 * hm + q) / 2                               # S_X at the mask 1 - m
    return sx, sy
