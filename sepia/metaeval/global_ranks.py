"""Permutation deltas r(X', Z) - r(Y', Z) for Spearman and Kendall tau-b / tau-c at the global
level (all valid cells in one group), without ranking a permuted matrix.

For a metric pair (a, b) and a swap mask m, X' shows b_i where m_i and a_i elsewhere; Y' shows
the other candidate of every cell. Sort the 2n candidate values of the pair once (per pair, not
per mask): X' shows one candidate per cell, s_j = 1 at those sorted positions j, Y' the rest.
C_x = s_0 + ... + s_{x-1} counts what X' shows before position x; Y' shows x - C_x.

- Spearman: a shown candidate in the run [p, q) of equal values has the mid-rank
  (C_p + C_q + 1) / 2, so 4 cov(X', Z) = sum_j s_j w_j (C_p + C_q) with w = 2 x the centred human
  ranks (integers; they sum to 0 over the cells X' shows). One cumulative sum per mask and pair
  (O(n), exact in integers) replaces a sort; Y''s sum follows from X''s and terms linear in m.
- Kendall: S(X') = sum_{i<k} w_ik sign(x'_i - x'_k), w_ik = sign(z_i - z_k), is rank_deltas'
  quadratic form c_a + L.m + sum_{i<k} H_ik m_i m_k, H = g00 + g11 - g01 - g10 with g_uv(i, k) =
  w_ik sign(u_i - v_k) for u, v in (a, b). With the cells ordered by human score, best first,
  w = 1 on the triangle's entries not tied in Z (the others are left out). The quadratic term is
  a float32 matrix product of the masks' pair products m_i m_k with H, one per block of the
  triangle and for all metric pairs at once (exact: integer entries, block sums below 2^24).
  c and L come from F_u(i, v) = sum_k w_ik sign(v - u_k), read off cumulative sums of w in
  metric u's order (n^2 work per metric, not per pair). S(Y') is the form of the pair (b, a):
  the same H, so the same products.
  From _SORTING_FROM cells on, where the triangle's n^2 work per mask outgrows sorting, S is
  counted as scipy.stats.kendalltau does (Knight's algorithm, O(n log n)): X''s codes and Z's
  ranks sorted as one key per cell, then the discordant pairs by scipy's compiled count.
- Ties of X' (the denominators): only in runs of equal candidates from two cells or more; X''s
  share of a run is the difference of two counts, Y''s the rest of the run.
Masks, triangle and cumulative sums go in blocks that bound memory. The results equal
resampling (tests/test_metaeval_global_ranks.py: ties, constant vectors and missing cells included).
"""
from __future__ import annotations

import warnings

import numpy as np
from scipy.stats import rankdata
try:  # kendalltau's compiled discordant-pair count: private to scipy, so its absence is survived
    from scipy.stats._stats import _kendall_dis
except ImportError:  # pragma: no cover - a scipy that moved it scores by the triangle, slower, same S
    _kendall_dis = None

from sepia.metaeval.rank_deltas import RANK_COEFFICIENTS, rank_coefficient, tie_values

# Masks handled at once: at most _MASK_BLOCK, and (2n x masks) arrays of at most _POSITIONS_BLOCK
# elements (Spearman holds a few of them per pair).
_MASK_BLOCK = 2048
_POSITIONS_BLOCK = 4_000_000
# Elements of each of the triangle's blocks: pair products (entries x masks) and H (entries x pairs).
_TRIANGLE_BLOCK = 8_000_000
# Elements of the cumulative sums of w held at a time (rows x cells).
_CUMULATIVE_BLOCK = 4_000_000
_FLOAT32_EXACT = 2 ** 24
# Cells from which Kendall's S is counted by sorting each mask's X' rather than by the triangle.
_SORTING_FROM = 4096


def global_rank_deltas(M, Z, a, b, masks, name: str) -> np.ndarray:
    """r(X', Z) - r(Y', Z) at the global level for pairs (M[a], M[b]) under every mask: (pairs, masks).
    M (metrics, systems, inputs) shares its missing cells across metrics; masks is (masks, systems,
    inputs), True where the cell's scores are swapped."""
    if name not in RANK_COEFFICIENTS:
        raise ValueError(f"no global rank path for {name}")
    a, b = np.asarray(a), np.asarray(b)
    valid = np.isfinite(M[0]) & np.isfinite(Z)
    z = np.asarray(Z, float)[valid]
    order = np.argsort(-z, kind="stable")                      # cells by human score, best first
    z = z[order]
    A = np.asarray(M, float)[:, valid][:, order]                # (metrics, n)
    cells = np.asarray(masks, bool)[:, valid][:, order]         # (masks, n)
    if len(z) < 2:
        return np.full((len(a), len(cells)), np.nan)           # no pair of cells: undefined
    human = _human(z)
    kendall = None
    if name != "spearman":
        sorting = _kendall_dis is not None and len(z) >= _SORTING_FROM
        kendall = (_SortedKendall if sorting else _Kendall)(A, z, a, b)
    out = np.empty((len(a), len(cells)))
    step = max(1, min(_MASK_BLOCK, _POSITIONS_BLOCK // max(1, 2 * len(z))))
    for start in range(0, len(cells), step):
        block = np.ascontiguousarray(cells[start:start + step])    # (masks, n)
        # Whether X' shows each candidate: a's (columns 1..n) where m is 0, b's where it is 1;
        # column 0 shows nothing, so that counts taken in a candidate order start from 0.
        shown = np.concatenate([np.zeros((len(block), 1), bool), ~block, block], axis=1)
        if name == "spearman":
            sx, sy, tx, ty = _spearman(A, a, b, human["centred"], block, shown)
        else:
            assert kendall is not None  # made above for every coefficient but Spearman's
            sx, sy = kendall.sums(block)
            tx, ty = _ties(A, a, b, shown, name)
        rx = rank_coefficient(sx, tx, name, **human["stats"])
        ry = rank_coefficient(sy, ty, name, **human["stats"])
        out[:, start:start + step] = (rx - ry).T
    return out


def _human(z):
    """What depends on Z only: the centred ranks (times 2, integers) and the figures the
    coefficients need (as rank_deltas._Human has them per group)."""
    k = len(z)
    ranks = rankdata(z)
    _, counts = np.unique(z, return_counts=True)
    var = (ranks ** 2).sum() - (k * (k + 1) / 2) ** 2 / k
    stats = {"k": float(k), "var": var, "distinct": len(counts),
             "untied": (k * (k - 1) - (counts * (counts - 1)).sum()) / 2}
    return {"centred": 2 * ranks - (k + 1), "stats": stats}


class _Merged:
    """A pair's 2n candidates in sorted order: which one each position is, and its run of equal values."""

    def __init__(self, first, second):
        n = len(first)
        values = np.concatenate([first, second])
        order = np.argsort(values, kind="stable")        # < n: a candidate of metric a, else of b
        self.cell = order % n
        ordered = values[order]
        starts = np.flatnonzero(np.concatenate([[True], ordered[1:] != ordered[:-1]]))
        ends = np.append(starts[1:], len(values))
        run = np.repeat(np.arange(len(starts)), ends - starts)
        self.p, self.q = starts[run], ends[run]          # the run [p, q) of every position
        # Runs that can hold a tie in X' or Y': two candidates or more, from two cells or more.
        lowest, highest = np.minimum.reduceat(self.cell, starts), np.maximum.reduceat(self.cell, starts)
        crossing = (ends - starts > 1) & (lowest != highest)
        self.starts, self.ends = starts[crossing], ends[crossing]
        tied = np.repeat(crossing, ends - starts)
        # Columns of `shown` (see global_rank_deltas) in sorted order, after the empty column 0:
        # for all positions, and for the positions in crossing runs only.
        self.columns = np.concatenate([[0], order + 1])
        self.tied_columns = np.concatenate([[0], order[tied] + 1])

    def counts(self, shown, columns):
        """How many of the first x positions X' shows, x = 0..len(columns) - 1: (masks, len(columns))."""
        return np.cumsum(np.take(shown, columns, axis=1), axis=1, dtype=np.int32)

    def ties(self, counts, begin, end, name):
        """X''s and Y''s tie figures (tie_values summed over the crossing runs) from counts over
        positions in which run r spans [begin_r, end_r)."""
        t = (np.take(counts, end, axis=1) - np.take(counts, begin, axis=1)).astype(np.float64)   # (masks, runs)
        return tie_values(t, name).sum(1), tie_values((end - begin) - t, name).sum(1)


def _ties(A, a, b, shown, name):
    """X''s and Y''s tie figures: two (masks, pairs) arrays."""
    tx, ty = (np.zeros((len(shown), len(a))) for _ in range(2))
    for j, (u, v) in enumerate(zip(a, b)):
        merged = _Merged(A[u], A[v])
        if len(merged.starts):
            end = np.cumsum(merged.ends - merged.starts)
            counts = merged.counts(shown, merged.tied_columns)
            tx[:, j], ty[:, j] = merged.ties(counts, end - (merged.ends - merged.starts), end, name)
    return tx, ty


def _spearman(A, a, b, centred, block, shown):
    """4 x the rank covariance of X' and of Y' with the human ranks, and X''s and Y''s tie sums
    (t^3 - t): four (masks, pairs) arrays."""
    masks, n = block.shape
    sx, tx, ty = (np.zeros((masks, len(a))) for _ in range(3))
    constant = np.empty(len(a))
    linear = np.empty((n, len(a)))
    for j, (u, v) in enumerate(zip(a, b)):
        merged = _Merged(A[u], A[v])
        p, q = merged.p, merged.q
        w = centred[merged.cell]                                   # 2 (R - mean R) per position
        s = np.take(shown, merged.columns, axis=1)                 # the empty column, then positions
        C = np.cumsum(s, axis=1, dtype=np.int32)                   # C_x, x = 0..2n: (masks, 2n + 1)
        s = s[:, 1:]                                               # s_j: (masks, 2n)
        # 4 cov(X') = sum_j s_j w_j T_j with T_j = C_{p_j} + C_{q_j} (2 x mid-rank - 1, C counting
        # the positions before). Without crossing runs T_j = 2 C_{j+1} - s_j, and sum_j s_j w_j = 0
        # (X' shows every cell once): 2 sum_j s_j w_j C_{j+1}.
        if len(merged.starts):
            T = np.take(C, p, axis=1) + np.take(C, q, axis=1)
            sx[:, j] = (T * s).astype(np.float64) @ w
            tx[:, j], ty[:, j] = merged.ties(C, merged.starts, merged.ends, "spearman")
        else:
            sx[:, j] = 2 * ((C[:, 1:] * s).astype(np.float64) @ w)
        # Y' shows the others, with counts x - C_x, so T^Y_j = p_j + q_j - T_j and
        # 4 cov(Y') = sum_j w_j (p_j + q_j) - sum_j w_j T_j - sum_j s_j w_j (p_j + q_j) + 4 cov(X'),
        # where sum_j w_j T_j = sum_l s_l g_l, g_l = sum_j w_j ([l < p_j] + [l < q_j]): linear in s,
        # and s is linear in the mask (a's candidates: 1 - m, b's: m).
        g = np.bincount(p, w, 2 * n + 1) + np.bincount(q, w, 2 * n + 1)
        g = np.cumsum(g[::-1])[::-1][1:] + w * (p + q)            # per position
        by_candidate = np.empty(2 * n)
        by_candidate[merged.columns[1:] - 1] = g
        constant[j] = w @ (p + q) - by_candidate[:n].sum()
        linear[:, j] = by_candidate[:n] - by_candidate[n:]
    sy = constant + block.astype(np.float64) @ linear + sx
    return sx, sy, tx, ty


def _sign_sums(A, z, first, second):
    """F[j, i] = sum_k sign(z_i - z_k) sign(A[second[j], i] - A[first[j], k]): (len(first), n)."""
    n = A.shape[1]
    out = np.empty((len(first), n))
    step = max(1, _CUMULATIVE_BLOCK // (n + 1))
    for u in np.unique(first):
        js = np.flatnonzero(first == u)
        order = np.argsort(A[u], kind="stable")
        ordered = A[u, order]
        values = A[second[js]]
        below = np.searchsorted(ordered, values, "left")       # k with A[u, k] < value
        not_above = np.searchsorted(ordered, values, "right")  # k with A[u, k] <= value
        for start in range(0, n, step):
            rows = np.arange(start, min(n, start + step))
            higher = z[rows, None] > z[None, order]
            w = higher.view(np.int8) - (z[rows, None] < z[None, order]).view(np.int8)
            cumulative = np.cumsum(w, axis=1, dtype=np.int32)     # w over the first r + 1 cells in u's order
            r = (rows - start)[None, :]

            # sign(v - u_k) = [u_k < v] + [u_k <= v] - 1
            out[js[:, None], rows] = (_upto(cumulative, r, below[:, rows]) + _upto(cumulative, r, not_above[:, rows])
                                      - cumulative[r, n - 1])
    return out


class _Kendall:
    """Kendall's S of X' and Y' with Z as c + L.m + q(m); c and L are computed once."""

    def __init__(self, A, z, a, b):
        metrics = np.arange(len(A))
        own = _sign_sums(A, z, metrics, metrics)             # F_u(i, u_i): S(u) = sum / 2
        cross = _sign_sums(A, z, np.concatenate([a, b]), np.concatenate([b, a]))
        constant = own.sum(-1) / 2
        self.cx, self.cy = constant[a], constant[b]
        self.Lx = (cross[:len(a)] - own[a]).T                # coefficients of m in S(X'): (n, pairs)
        self.Ly = (cross[len(a):] - own[b]).T                # ... in S(Y'), the pair (b, a)
        # Exact codes of the values: the signs only need their order (float32 while that is exact).
        codes = np.unique(A, return_inverse=True)[1].reshape(A.shape)
        self.codes: np.ndarray = codes.astype(np.float32 if codes.max(initial=0) < _FLOAT32_EXACT else np.float64)
        self.a, self.b = a, b
        self.tie_end = np.searchsorted(-z, -z, "right")     # first cell scored strictly lower

    def sums(self, block):
        """S(X') and S(Y') for the masks (masks, n): two (masks, pairs) arrays."""
        m = block.astype(np.float64)
        q = self._pair_products(np.ascontiguousarray(block.T, dtype=np.float32))
        return self.cx + m @ self.Lx + q, self.cy + m @ self.Ly + q

    def _pair_products(self, by_cell):
        """q(m) = sum over cell pairs (i, k), z_i > z_k, of H_ik m_i m_k with H = g00 + g11 - g01 - g10
        (here w_ik = 1): (masks, pairs). by_cell: the masks as 0/1, (n, masks). Row i of the triangle
        holds the cells from tie_end[i] on; rows are cut into segments and gathered into blocks."""
        codes, a, b = self.codes, self.a, self.b
        n, masks = by_cell.shape
        first, second = codes[a], codes[b]                                # (pairs, n)
        # Block sums stay below 2 x width < 2^24: the float32 products are exact.
        width = max(1, min(_TRIANGLE_BLOCK // max(masks, len(a) + len(codes)), 2 ** 22))
        segments = [(i, s, min(s + width, n)) for i in range(n) for s in range(self.tie_end[i], n, width)]
        own_q = np.zeros((masks, len(codes)))
        cross_q = np.zeros((masks, len(a)))
        products = np.empty((width, masks), np.float32)
        own = np.empty((len(codes), width), np.float32)
        cross = np.empty((len(a), width), np.float32)
        scratch = np.empty((len(a), width), np.float32)
        done = 0
        while done < len(segments):
            filled = 0
            while done < len(segments) and filled + segments[done][2] - segments[done][1] <= width:
                i, s, e = segments[done]
                span = slice(filled, filled + e - s)
                np.multiply(by_cell[s:e], by_cell[i], out=products[span])                # m_i m_k
                # sign(u_i - v_k) as clip(-1, 1) of the code difference (integers)
                np.clip(codes[:, i, None] - codes[:, s:e], -1, 1, out=own[:, span])    # g00, g11
                np.subtract(first[:, i, None], second[:, s:e], out=cross[:, span])     # g01
                np.clip(cross[:, span], -1, 1, out=cross[:, span])
                np.subtract(second[:, i, None], first[:, s:e], out=scratch[:, span])   # g10
                np.clip(scratch[:, span], -1, 1, out=scratch[:, span])
                cross[:, span] += scratch[:, span]
                filled += e - s
                done += 1
            P = products[:filled]
            own_q += P.T @ own[:, :filled].T
            cross_q += P.T @ cross[:, :filled].T
        return own_q[:, a] + own_q[:, b] - cross_q


class _SortedKendall:
    """Kendall's S of X' and Y' with Z counted per mask and pair by sorting (O(n log n) each):
    S = untied-in-Z pairs - pairs tied in X' + pairs tied in both - 2 x discordant pairs."""

    def __init__(self, A, z, a, b):
        n = len(z)
        codes = np.unique(A, return_inverse=True)[1].reshape(A.shape).astype(np.int64)
        self.first, self.second = codes[a], codes[b]                         # (pairs, n)
        # Z's dense ranks from 1 (the count's tree starts there).
        self.ranks = np.unique(z, return_inverse=True)[1].astype(np.int64) + 1
        self.bits = int(n + 1).bit_length()                              # Z's rank in the key's low bits
        _, counts = np.unique(z, return_counts=True)
        self.untied = n * (n - 1) // 2 - int((counts * (counts - 1) // 2).sum())

    def sums(self, block):
        """S(X') and S(Y') for the masks (masks, n): two (masks, pairs) arrays."""
        sx, sy = (np.empty((len(block), len(self.first))) for _ in range(2))
        for j, (u, v) in enumerate(zip(self.first, self.second)):
            sx[:, j] = self._sums(np.where(block, v, u))
            sy[:, j] = self._sums(np.where(block, u, v))
        return sx, sy

    def _sums(self, shown):
        """S of each row of X''s codes (masks, n) with Z."""
        keys = np.sort((shown << self.bits) | self.ranks, axis=1)          # by X', then Z
        x, y = keys >> self.bits, keys & ((1 << self.bits) - 1)
        discordant = np.array([_kendall_dis(row_x, row_y) for row_x, row_y in zip(x, y)], np.int64)
        return self.untied - _tied_pairs(x) + _tied_pairs(keys) - 2 * discordant


def _tied_pairs(rows):
    """Pairs of equal values in each sorted row: t (t - 1) / 2 summed over its runs of t equal values."""
    masks, n = rows.shape
    flat = rows.ravel()
    new = np.empty(flat.size, bool)
    new[0] = True
    np.not_equal(flat[1:], flat[:-1], out=new[1:])
    new[::n] = True                                                 # every row starts a run
    starts = np.flatnonzero(new)
    lengths = np.diff(np.append(starts, flat.size))
    return np.bincount(starts // n, lengths * (lengths - 1) // 2, masks).astype(np.int64)


def _upto(cumulative, r, count):
    """w over the first `count` cells of each row (0 for none)."""
    return np.where(count > 0, cumulative[r, np.maximum(count - 1, 0)], 0)


def item_spearman_deltas(M, Z, a, b, masks) -> np.ndarray:
    """r(X', Z) - r(Y', Z) for Spearman at the item level (the mean over systems of each system's
    correlation over its inputs): the global path's O(n) counts per mask, one system at a time,
    instead of rank_deltas' quadratic forms over every pair of inputs (whose pair products grow as
    inputs squared times masks). The same integer sums and coefficients, so the same values."""
    a, b = np.asarray(a), np.asarray(b)
    masks = np.asarray(masks, bool)
    valid = np.isfinite(M[0]) & np.isfinite(Z)
    systems = valid.shape[0]
    rx = np.full((systems, len(masks), len(a)), np.nan)
    ry = np.full_like(rx, np.nan)
    for g in range(systems):
        keep = valid[g]
        if keep.sum() < 2:
            continue  # no pair of inputs: undefined
        A = np.asarray(M, float)[:, g, keep]
        human = _human(np.asarray(Z, float)[g, keep])
        cells = masks[:, g, keep]
        step = max(1, min(_MASK_BLOCK, _POSITIONS_BLOCK // max(1, 2 * len(human["centred"]))))
        for start in range(0, len(cells), step):
            block = np.ascontiguousarray(cells[start:start + step])
            shown = np.concatenate([np.zeros((len(block), 1), bool), ~block, block], axis=1)
            sx, sy, tx, ty = _spearman(A, a, b, human["centred"], block, shown)
            rx[g, start:start + step] = rank_coefficient(sx, tx, "spearman", **human["stats"])
            ry[g, start:start + step] = rank_coefficient(sy, ty, "spearman", **human["stats"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # a pair whose systems are all undefined
        return (np.nanmean(rx, 0) - np.nanmean(ry, 0)).T
