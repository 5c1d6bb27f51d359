"""Permutation deltas r(X', Z) - r(Y', Z) for the rank coefficients (Spearman, Kendall tau-b and
tau-c) at the input and item levels, without building the permuted matrices.

For a metric pair (a, b) and a swap mask m, X' = where(m, b, a) and Y' = where(m, a, b): in every
group of cells (a column at the input level, a row at the item level) each cell offers two
candidate values, and a mask selects one of them for X' and the other for Y'.

- The numerators are weighted sign sums S_w(x) = sum_{i<k} w_ik sign(x_i - x_k): Kendall's S with
  w_ik = sign(z_i - z_k); Spearman's covariance times 4 with w_ik = 2 (R_i - R_k), R = Z's ranks
  (a mid-rank is (k + 1) / 2 + sum_k sign(x_i - x_k) / 2, ties included). Under a mask, S_w is a
  quadratic form: with G_uv(i, k) = w_ik sign(u_i - v_k) for candidates u, v of cells i, k
  (0 = a, 1 = b), S_w(m) = c + L.m + sum_{i<k} H_ik m_i m_k with H = G00 + G11 - G01 - G01'.
  The pair products m_i m_k of every mask times H's upper triangle is one matrix product per
  group and block of pairs. G00 and G11 belong to one metric each and are computed once.
- The denominators need the ties of X' (tau-b: tied pairs, tau-c: distinct values, Spearman: the
  tie correction sum (t^3 - t)). X' can tie only in a run of equal candidate values that spans
  two cells or more; only those runs are counted per mask, by a sparse product.
H and w hold integers, so float32 products are exact while the largest sum stays below 2^24
(checked on the data; float64 otherwise). The results equal the resampling path (tests compare
them, ties and missing cells included).
"""
from __future__ import annotations

import warnings

import numpy as np
from scipy import sparse

from sepia.metaeval.correlation import _distinct, _ranks

GROUP_LEVELS = ("input", "item")
RANK_COEFFICIENTS = ("spearman", "tau_b", "tau_c")
# Per block of pairs: elements of H's upper triangle, and of each (groups, masks, pairs) array.
_TRIANGLE_BLOCK = 8_000_000
_RESULT_BLOCK = 2_000_000
# The pair products of the masks are kept for all groups up to this many elements.
_PRODUCTS_KEPT = 16_000_000
# Elements of the n x n cross-sign arrays built at a time.
_SIGN_BLOCK = 2_000_000
_FLOAT32_EXACT = 2 ** 24
# From this many cells a group, groups are taken one at a time and the quadratic term is the masks'
# product with the full matrix H + H' (masks x n^2 work, no masks x n^2 / 2 pair products held).
_LARGE_GROUP = 256


def grouped(arr, level):
    """(..., systems, inputs) -> (..., groups, cells per group): inputs are columns, items rows."""
    arr = np.asarray(arr)
    return np.swapaxes(arr, -1, -2) if level == "input" else arr


def rank_deltas(M, Z, a, b, masks, level: str, name: str) -> np.ndarray:
    """r(X', Z) - r(Y', Z) for pairs (M[a], M[b]) under every mask: (pairs, masks)."""
    if level not in GROUP_LEVELS or name not in RANK_COEFFICIENTS:
        raise ValueError(f"no rank fast path for {level}/{name}")
    a, b = np.asarray(a), np.asarray(b)
    valid = np.isfinite(M[0]) & np.isfinite(Z)
    Mg = np.ascontiguousarray(grouped(np.where(valid, M, 0.0), level))     # (metrics, G, n)
    Vg = np.ascontiguousarray(grouped(valid, level))                      # (G, n)
    Wg = np.ascontiguousarray(grouped(np.asarray(masks, bool), level))    # (masks, G, n)
    Zg = grouped(Z, level)
    if Vg.shape[1] >= _LARGE_GROUP:
        parts = [_coefficients(Mg[:, g:g + 1], Zg[g:g + 1], Vg[g:g + 1], Wg[:, g:g + 1], a, b, name)
                 for g in range(Vg.shape[0])]
        rx, ry = np.concatenate([x for x, _ in parts]), np.concatenate([y for _, y in parts])
    else:
        rx, ry = _coefficients(Mg, Zg, Vg, Wg, a, b, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # a pair whose groups are all undefined
        return (np.nanmean(rx, 0) - np.nanmean(ry, 0)).T


def _coefficients(Mg, Zg, Vg, Wg, a, b, name):
    """The coefficient of X' and of Y' per group, mask and pair: two (G, masks, pairs) arrays."""
    human = _Human(np.where(Vg, Zg, 0.0), Vg)
    forms = _Forms(Mg, human.rank_weights if name == "spearman" else human.sign_weights, Wg)
    by_cell = np.ascontiguousarray(Wg.reshape(len(Wg), -1).T, dtype=np.float32)   # (G * n, masks)
    groups, n = Vg.shape
    triangle = max(1, n * (n - 1) // 2)
    step = max(1, min(_TRIANGLE_BLOCK // (groups * triangle), _RESULT_BLOCK // (groups * len(Wg))))
    rx, ry = (np.empty((groups, len(Wg), len(a))) for _ in range(2))
    for start in range(0, len(a), step):
        ia, ib = a[start:start + step], b[start:start + step]
        sx, sy = forms.sums(ia, ib)                                         # (G, masks, pairs)
        tx, ty = _tie_stats(Mg[ia], Mg[ib], Vg, by_cell, name)
        rx[:, :, start:start + step] = human.coefficient(sx, tx, name)
        ry[:, :, start:start + step] = human.coefficient(sy, ty, name)
    return rx, ry


class _Human:
    """What depends on Z only: the weights of the sign sums, ranks, ties and distinct values per group."""

    def __init__(self, Zg, Vg):
        # Per-group figures are (G, 1, 1), to broadcast against (G, masks, pairs).
        self.k = Vg.sum(-1).astype(float)[:, None, None]
        ranks = np.where(Vg, _ranks(Zg, Vg), 0.0)
        both = Vg[:, :, None] & Vg[:, None, :]
        self.sign_weights = np.sign(Zg[:, :, None] - Zg[:, None, :]) * both
        self.rank_weights = 2 * (ranks[:, :, None] - ranks[:, None, :]) * both   # integers: ranks are halves
        k = self.k
        with np.errstate(invalid="ignore", divide="ignore"):   # groups without valid cells
            self.var = (ranks ** 2).sum(-1)[:, None, None] - (k * (k + 1) / 2) ** 2 / k
            self.distinct = _distinct(Zg, Vg)[:, None, None]
        self.untied = ((self.sign_weights != 0).sum((-1, -2)) / 2)[:, None, None]

    def coefficient(self, s, ties, name):
        """The coefficient per group, mask and pair from the sign sum s and X''s ties (_tie_stats)."""
        return rank_coefficient(s, ties, name, k=self.k, var=self.var, distinct=self.distinct, untied=self.untied)


def rank_coefficient(s, ties, name, *, k, var, distinct, untied):
    """Spearman, tau-b or tau-c from the sign sum s (Spearman: 4 x the rank covariance) and X''s
    tie figure (tie_values summed over its tie groups), given Z's figures over the k cells: the
    variance of its ranks times k, its distinct values and its untied pairs."""
    with np.errstate(invalid="ignore", divide="ignore"):
        if name == "spearman":
            var_x = (k ** 3 - k - ties) / 12
            r = (s / 4) / np.sqrt(var_x * var)
            flat = (k < 2) | (var_x <= 0) | (distinct < 2)
            return np.where(flat, np.nan, np.clip(r, -1.0, 1.0))
        if name == "tau_b":
            untied_x = k * (k - 1) / 2 - ties
            tau = s / np.sqrt(untied_x * untied)
            return np.where((untied_x == 0) | (untied == 0), np.nan, np.clip(tau, -1.0, 1.0))
        m = np.minimum(k - ties, distinct)
        tau = 2 * s / (k ** 2 * (m - 1) / m)
        return np.where(m < 2, np.nan, np.clip(tau, -1.0, 1.0))


def tie_values(t, name):
    """What a tie group of t values costs the coefficient: tied pairs t (t - 1) / 2 (tau-b),
    values lost t - 1 (tau-c), t^3 - t (Spearman)."""
    if name == "tau_b":
        return t * (t - 1) / 2
    if name == "tau_c":
        return np.maximum(t - 1, 0)
    return t * t * t - t


class _Forms:
    """The quadratic forms S_w(m) = c + L.m + sum_{i<k} H_ik m_i m_k of metric pairs."""

    def __init__(self, Mg, weights, Wg):
        self.Mg, self.w, self.Wg = Mg, weights, Wg
        n = Mg.shape[-1]
        self.upper = np.triu_indices(n, 1)
        # One metric alone (G00 of a, G11 of b): its upper triangle and row sums, once per metric.
        upper, rows = [], []
        for metric in Mg:
            own = self._signs(metric, metric)
            upper.append(own[..., self.upper[0], self.upper[1]])
            rows.append(own.sum(-1))
        self.own_upper, self.own_rows = np.stack(upper), np.stack(rows)    # (metrics, G, T), (metrics, G, n)
        self.masks = np.ascontiguousarray(Wg.transpose(1, 0, 2))           # (G, masks, n)
        self.masks_float = self.masks.astype(float)
        triangle = len(Wg) * len(self.upper[0])
        keep = Wg.shape[1] * triangle <= _PRODUCTS_KEPT and n < _LARGE_GROUP
        self.products = [self._products(g) for g in range(Wg.shape[1])] if keep else None

    def _signs(self, A, B):
        """w_ik sign(A_i - B_k): (pairs, G, n, n)."""
        return self.w * np.sign(A[..., :, None] - B[..., None, :])

    def _products(self, g):
        """m_i m_k for i < k of every mask in group g: (masks, T), 0/1 as float32 (exact)."""
        m = self.masks[g]
        return (m[:, self.upper[0]] & m[:, self.upper[1]]).astype(np.float32)

    def _quadratic(self, g, H, exact):
        """sum_{i<k} H_ik m_i m_k of every mask of group g and each pair's H (pairs, T), as
        m' (H + H') m / 2: one product of the masks with the full matrix a pair. In integers: exact
        in float32 while H's absolute sum stays below 2^24 (`exact` says), summed in float64."""
        i, k = self.upper
        n = self.Mg.shape[-1]
        m = self.masks[g].astype(exact)                                     # (masks, n)
        full = np.zeros((n, n), exact)
        out = np.empty((len(m), len(H)))
        for j, h in enumerate(H):
            full[i, k] = h
            full[k, i] = h
            out[:, j] = ((m @ full) * m).sum(1, dtype=np.float64) / 2
        return out

    def sums(self, ia, ib):
        """S_w of X' and of Y' for every group, mask and pair: two (G, masks, pairs) arrays."""
        i, k = self.upper
        H, cross_rows, cross_cols = [], [], []
        step = max(1, _SIGN_BLOCK // self.w.size)
        for start in range(0, len(ia), step):
            C = self._signs(self.Mg[ia[start:start + step]], self.Mg[ib[start:start + step]])   # G01
            H.append(-(C[..., i, k] + C[..., k, i]))
            cross_rows.append(C.sum(-1))
            cross_cols.append(C.sum(-2))
        H = np.concatenate(H) + self.own_upper[ia] + self.own_upper[ib]     # (pairs, G, T)
        rows_a = self.own_rows[ia]
        c = rows_a.sum(-1) / 2                                              # (pairs, G)
        L = np.concatenate(cross_cols) - rows_a                             # (pairs, G, n)
        H1 = rows_a + self.own_rows[ib] - np.concatenate(cross_rows) - np.concatenate(cross_cols)

        # sum_{i<k} H_ik m_i m_k = (m_i m_k over the triangle) @ H, one product per group.
        exact = np.float32 if np.abs(H).sum(-1).max(initial=0) < _FLOAT32_EXACT else np.float64
        groups = H.shape[1]
        q = np.empty((groups, len(self.Wg), len(ia)))
        for g in range(groups):
            if self.Mg.shape[-1] >= _LARGE_GROUP:
                q[g] = self._quadratic(g, H[:, g], exact)
                continue
            products = self.products[g] if self.products is not None else self._products(g)
            q[g] = products.astype(exact, copy=False) @ np.ascontiguousarray(H[:, g].T, dtype=exact)
        lm = np.matmul(self.masks_float, L.transpose(1, 2, 0))              # (G, masks, pairs)
        hm = np.matmul(self.masks_float, H1.transpose(1, 2, 0))
        h11 = H1.sum(-1).T[:, None] / 2                                     # sum_{i<k} H_ik
        l1, c = L.sum(-1).T[:, None], c.T[:, None]
        sx = c + lm + q
        # Y' is X' under the complement 1 - m; expand the form there.
        sy = c + l1 - lm + h11 - hm + q
        return sx, sy


def _tie_stats(A, B, Vg, by_cell, name):
    """X''s and Y''s ties per group, mask and pair, as the coefficient needs them: over the tie
    groups of size t, the tied pairs t (t - 1) / 2 (tau-b), the values lost t - 1 (tau-c) or
    t^3 - t (Spearman). Only a run of equal candidate values that spans two cells or more can
    hold a tie. The number of its candidates that X' shows is its candidates from a plus, per
    candidate, m_cell (from b) or -m_cell (from a): one sparse product for all masks; Y' shows
    the others. A block of pairs without such runs gives (0, 0)."""
    pairs, groups, n = A.shape
    values = np.where(np.concatenate([Vg, Vg], -1), np.concatenate([A, B], -1), np.inf)   # (pairs, G, 2n)
    order = np.argsort(values, axis=-1, kind="stable")
    values = np.take_along_axis(values, order, -1)
    cell = order % n
    same = (values[..., 1:] == values[..., :-1]) & np.isfinite(values[..., 1:])
    starts = np.concatenate([np.ones(values.shape[:-1] + (1,), bool), ~same], -1).reshape(-1)
    run = np.cumsum(starts) - 1                                          # run of each sorted candidate
    crossing = np.zeros(values.shape, bool)
    crossing[..., 1:] = same & (cell[..., 1:] != cell[..., :-1])
    keep = np.isin(run, run[crossing.reshape(-1)])
    if not keep.any():
        return 0.0, 0.0
    flat = np.flatnonzero(keep)
    slot = flat // (2 * n)                                               # pair * G + group
    cells = (slot % groups) * n + cell.reshape(-1)[flat]
    from_b = order.reshape(-1)[flat] >= n
    runs, index = np.unique(run[flat], return_inverse=True)
    run_slot = slot[np.searchsorted(run[flat], runs)]
    # Sums over the runs of each (pair, group), as a sparse product too.
    gather = sparse.csr_matrix((np.ones(len(runs), np.float32), (run_slot, np.arange(len(runs)))),
                               shape=(pairs * groups, len(runs)))
    E = sparse.csr_matrix((np.where(from_b, 1.0, -1.0).astype(np.float32), (index, cells)),
                          shape=(len(runs), groups * n))
    size = np.bincount(index).astype(np.float32)[:, None]
    tx = E @ by_cell + np.bincount(index, weights=~from_b).astype(np.float32)[:, None]   # (runs, masks)

    def per_slot(t):
        return (gather @ tie_values(t, name)).reshape(pairs, groups, -1).transpose(1, 2, 0)   # (G, masks, pairs)

    return per_slot(tx), per_slot(size - tx)
