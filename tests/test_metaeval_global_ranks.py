"""Global-level Spearman, tau-b and tau-c permutation deltas (sepia.metaeval.global_ranks) against
the reference that builds and correlates every permuted matrix (resampled_deltas), and the
p-values of discriminative power against that reference path for the same seed."""
import numpy as np
import pytest

from sepia.metaeval import global_ranks
from sepia.metaeval import properties
from sepia.metaeval.properties import discriminative_power
from sepia.metaeval.significance import pair_deltas, permutation_test, resampled_deltas, standardize, swap_masks

NAMES = ["spearman", "tau_b", "tau_c"]


def _scores(seed, ties, metrics=4, systems=6, inputs=7):
    """Metrics near the human scores, missing cells shared by the metrics (and one in the humans
    only); with `ties`, coarse values so that ranks tie within and across metrics."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(systems, 1)) + rng.normal(size=(systems, inputs))
    M = Z[None] + np.linspace(0.3, 3, metrics)[:, None, None] * rng.normal(size=(metrics, systems, inputs))
    if ties:
        M, Z = np.round(M * 1.5) / 1.5, np.round(Z)
    M[:, 2, 3] = np.nan
    M[:, 0, rng.random(inputs) < 0.3] = np.nan
    Z[systems - 2, 1] = np.nan
    return np.stack([standardize(m) for m in M]), standardize(Z)


def _same(fast, slow):
    assert fast.shape == slow.shape
    assert np.array_equal(np.isnan(fast), np.isnan(slow))
    assert fast == pytest.approx(slow, abs=1e-12, nan_ok=True)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("method", ["both", "systems", "inputs"])
@pytest.mark.parametrize("ties", [False, True])
def test_global_rank_deltas_equal_resampling(name, method, ties):
    for seed in range(3):
        M, Z = _scores(seed, ties)
        masks = swap_masks(np.random.default_rng(seed), 30, Z.shape, method)
        a, b = np.array([0, 1, 3, 2, 1]), np.array([2, 3, 0, 1, 1])   # (1, 1): X' = Y'
        slow = resampled_deltas(M, Z, a, b, masks, "global", name)
        assert np.isfinite(slow).any()
        _same(global_ranks.global_rank_deltas(M, Z, a, b, masks, name), slow)
        _same(pair_deltas(M, Z, a, b, masks, "global", name), slow)


@pytest.fixture(params=["triangle", "sorting"])
def kendall_path(request, monkeypatch):
    """Kendall's S by the triangle (below _SORTING_FROM cells, as these sizes are) or by sorting."""
    if request.param == "sorting":
        monkeypatch.setattr(global_ranks, "_SORTING_FROM", 0)
    return request.param


@pytest.mark.parametrize("name", NAMES)
def test_heavy_ties_and_constant_metrics(name, kendall_path):
    """F-scores: many zeros, a few values; a constant metric, two identical constant metrics (X'
    constant under every mask: undefined, NaN) and a constant human row."""
    rng = np.random.default_rng(11)
    M = rng.choice([0.0, 0.0, 0.0, 0.25, 0.5, 1.0], size=(5, 7, 9))
    Z = rng.choice([0.0, 0.0, 1 / 3, 2 / 3, 1.0], size=(7, 9))
    M[:, :, 0] = 0.0
    M[3] = M[4] = 0.5
    Z[3] = 0.5
    M[:, 5, 2] = np.nan
    masks = swap_masks(np.random.default_rng(2), 25, Z.shape, "both")
    a, b = np.array([0, 1, 2, 3, 0, 3]), np.array([1, 2, 3, 0, 2, 4])
    slow = resampled_deltas(M, Z, a, b, masks, "global", name)
    assert np.isnan(slow[-1]).all() and np.isfinite(slow[:-1]).all()
    _same(global_ranks.global_rank_deltas(M, Z, a, b, masks, name), slow)


@pytest.mark.parametrize("name", NAMES)
def test_long_vectors_equal_scipy(name, kendall_path):
    """Over 200 cells the reference correlates with scipy's rankdata and kendalltau per matrix."""
    rng = np.random.default_rng(5)
    M = np.round(rng.normal(size=(3, 15, 20)) * 2) / 2
    Z = np.round(rng.normal(size=(15, 20)))
    M[:, 2, 3] = np.nan
    masks = swap_masks(np.random.default_rng(2), 12, Z.shape, "both")
    slow = resampled_deltas(M, Z, [0, 1, 2], [1, 2, 0], masks, "global", name)
    _same(global_ranks.global_rank_deltas(M, Z, [0, 1, 2], [1, 2, 0], masks, name), slow)


@pytest.mark.parametrize("name", NAMES)
def test_blocks_and_float64_codes_change_nothing(name, monkeypatch):
    """Small blocks: masks in several blocks, triangle rows cut into segments, cumulative sums in
    row blocks; codes in float64 as for more than 2^24 distinct scores."""
    M, Z = _scores(4, ties=True, systems=8, inputs=9)
    masks = swap_masks(np.random.default_rng(4), 23, Z.shape, "both")
    a, b = np.array([0, 1, 2, 3]), np.array([3, 2, 0, 1])
    expected = global_ranks.global_rank_deltas(M, Z, a, b, masks, name)
    _same(expected, resampled_deltas(M, Z, a, b, masks, "global", name))
    monkeypatch.setattr(global_ranks, "_MASK_BLOCK", 5)
    monkeypatch.setattr(global_ranks, "_TRIANGLE_BLOCK", 150)
    monkeypatch.setattr(global_ranks, "_CUMULATIVE_BLOCK", 100)
    monkeypatch.setattr(global_ranks, "_FLOAT32_EXACT", 0)
    _same(global_ranks.global_rank_deltas(M, Z, a, b, masks, name), expected)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("ties", [False, True])
def test_p_values_are_those_of_the_reference_path(name, ties, monkeypatch):
    """Same seed, same swaps: discriminative power and a permutation test give exactly the
    p-values that resampling the matrices gives (the path used before global_ranks)."""
    M, Z = _scores(7, ties, metrics=5, systems=8, inputs=10)
    power = discriminative_power(M, Z, "global", name, n_resamples=300, seed=3)
    single = permutation_test(M[0], M[2], Z, "global", name, n_resamples=300, seed=3)
    monkeypatch.setattr(properties, "pair_deltas",
                        lambda M, Z, a, b, masks, level, name: resampled_deltas(M, Z, a, b, masks, level, name))
    reference = discriminative_power(M, Z, "global", name, n_resamples=300, seed=3)
    assert power.pvalues == reference.pvalues
    assert power.mean_pvalue == reference.mean_pvalue
    assert 0 < power.mean_pvalue < 1
    assert single.pvalue == power.pvalues[(0, 2)]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("cells", [0, 1, 2, 3])
def test_few_cells(name, cells, kendall_path):
    """No cell, one cell (undefined: NaN), two and three cells scored by the humans."""
    rng = np.random.default_rng(cells)
    M, Z = rng.normal(size=(3, 4, 5)), rng.normal(size=(4, 5))
    Z.flat[cells:] = np.nan
    masks = swap_masks(rng, 6, Z.shape, "both")
    _same(global_ranks.global_rank_deltas(M, Z, [0, 1], [1, 2], masks, name),
          resampled_deltas(M, Z, [0, 1], [1, 2], masks, "global", name))


def test_only_rank_coefficients():
    M, Z = _scores(0, ties=False)
    masks = swap_masks(np.random.default_rng(0), 3, Z.shape, "both")
    with pytest.raises(ValueError, match="pearson"):
        global_ranks.global_rank_deltas(M, Z, [0], [1], masks, "pearson")


@pytest.mark.parametrize("name", ["tau_b", "tau_c"])
@pytest.mark.parametrize("ties", [False, True])
def test_sorting_path_equals_the_triangle_to_the_last_bit(name, ties, monkeypatch):
    """From _SORTING_FROM cells on, S is counted by sorting (Knight's algorithm): the same deltas
    bit for bit as the triangle's quadratic form, and so the same p-values."""
    M, Z = _scores(7, ties, metrics=5, systems=8, inputs=10)
    masks = swap_masks(np.random.default_rng(7), 40, Z.shape, "both")
    a, b = np.array([0, 1, 3, 2, 1, 4]), np.array([2, 3, 0, 1, 1, 0])
    triangle = global_ranks.global_rank_deltas(M, Z, a, b, masks, name)
    power = discriminative_power(M, Z, "global", name, n_resamples=300, seed=3)
    monkeypatch.setattr(global_ranks, "_SORTING_FROM", 0)
    assert np.array_equal(global_ranks.global_rank_deltas(M, Z, a, b, masks, name), triangle, equal_nan=True)
    sorted_power = discriminative_power(M, Z, "global", name, n_resamples=300, seed=3)
    assert sorted_power.pvalues == power.pvalues
    assert 0 < sorted_power.mean_pvalue < 1


def test_sorted_sign_sum_equals_scipy_kendalltau():
    """S from the sorting path against scipy.stats.kendalltau's tau-b over one long X' (2,000 cells)."""
    from scipy.stats import kendalltau
    rng = np.random.default_rng(3)
    z = np.sort(np.round(rng.normal(size=2000) * 3))[::-1].copy()
    A = np.round(z[None] + rng.normal(size=(2, 2000)) * 2)
    mask = rng.random((1, 2000)) < 0.5
    kendall = global_ranks._SortedKendall(A, z, np.array([0]), np.array([1]))
    sx, _ = kendall.sums(mask)
    x = np.where(mask[0], A[1], A[0])
    n = len(z)
    tied_x = sum(t * (t - 1) / 2 for t in np.unique(x, return_counts=True)[1])
    tau = sx[0, 0] / np.sqrt((n * (n - 1) / 2 - tied_x) * kendall.untied)
    assert tau == pytest.approx(kendalltau(x, z).statistic, abs=1e-12)
