"""Permutation tests, Williams' test, bootstrap intervals, paired tests, discriminative power."""
import itertools

import numpy as np
import pytest

from sepia.metaeval.correlation import COEFFICIENTS, LEVELS, correlate
from sepia.metaeval.properties import discriminative_power, ranking_consistency
from sepia.metaeval.significance import (bootstrap_ci, pair_deltas, paired_bootstrap, paired_randomization_test,
                                         permutation_test, standardize, swap_masks, williams_t, williams_test)


def _campaign(seed=0, metrics=4, systems=8, inputs=12):
    rng = np.random.default_rng(seed)
    human = rng.normal(size=(systems, 1)) + rng.normal(size=(systems, inputs))
    noise = np.linspace(0.3, 3, metrics)[:, None, None]
    return human[None] + noise * rng.normal(size=(metrics, systems, inputs)), human


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", COEFFICIENTS)
def test_fast_paths_equal_resampling_the_matrices(level, name):
    M, Z = _campaign()
    M[:, 2, 3] = np.nan   # shared missing cell in the metrics, another in the humans
    Z[5, 1] = np.nan
    M = np.stack([standardize(m) for m in M])
    Z = standardize(Z)
    masks = swap_masks(np.random.default_rng(1), 40, Z.shape, "both")
    a, b = np.array([0, 1, 3]), np.array([2, 3, 0])
    X, Y = M[a][:, None], M[b][:, None]
    direct = correlate(np.where(masks, Y, X), Z, level, name) - correlate(np.where(masks, X, Y), Z, level, name)
    assert pair_deltas(M, Z, a, b, masks, level, name) == pytest.approx(direct, abs=1e-12, nan_ok=True)


def test_swap_masks_follow_the_permutation_method():
    rng = np.random.default_rng(0)
    systems = swap_masks(rng, 50, (4, 6), "systems")
    inputs = swap_masks(rng, 50, (4, 6), "inputs")
    assert (systems == systems[:, :, :1]).all() and (inputs == inputs[:, :1, :]).all()
    assert 0.3 < swap_masks(rng, 200, (4, 6), "both").mean() < 0.7
    with pytest.raises(ValueError):
        swap_masks(rng, 1, (2, 2), "topics")


def test_permutation_test_is_reproducible_and_sensible():
    M, Z = _campaign()
    first = permutation_test(M[0], M[3], Z, "system", "tau_b", "both", n_resamples=300, seed=5)
    assert first == permutation_test(M[0], M[3], Z, "system", "tau_b", "both", n_resamples=300, seed=5)
    # a metric against itself: every permuted difference is 0, so p = 1
    assert permutation_test(M[0], M[0], Z, "global", "pearson", n_resamples=50, seed=1).pvalue == 1.0
    # the close-to-human metric beats the noisy one at the global level
    strong = permutation_test(M[0], M[3], Z, "global", "pearson", "both", alternative="greater", n_resamples=300, seed=2)
    assert strong.statistic > 0 and strong.pvalue < 0.01
    with pytest.raises(ValueError, match="missing cells"):
        X = M[1].copy()
        X[0, 0] = np.nan
        permutation_test(M[0], X, Z, "system", "pearson")


def test_permutation_p_values_are_roughly_uniform_under_the_null():
    rng = np.random.default_rng(3)
    pvalues = []
    for _ in range(60):
        Z = rng.normal(size=(6, 10))
        X, Y = Z + rng.normal(size=Z.shape), Z + rng.normal(size=Z.shape)  # same quality
        pvalues.append(permutation_test(X, Y, Z, "global", "pearson", n_resamples=200, seed=rng.integers(1 << 30)).pvalue)
    assert 0.3 < np.mean(pvalues) < 0.7
    assert np.mean(np.array(pvalues) < 0.05) < 0.15


def test_williams_t_hand_calculation():
    # r12 = .6, r13 = .4, r23 = .5, n = 20:
    # K = 1 - .36 - .16 - .25 + 2*.6*.4*.5 = .47
    # t = .2 * sqrt(19 * 1.5) / sqrt(2 * .47 * 19/17 + (1/4) * .5**3) = 1.067708 / 1.040114
    assert williams_t(0.6, 0.4, 0.5, 20) == pytest.approx(1.026530, abs=1e-6)
    assert williams_t(0.5, 0.5, 0.3, 10) == 0.0


def test_williams_test_on_matrices():
    M, Z = _campaign(systems=12)
    result = williams_test(M[0], M[3], Z)
    r12 = correlate(M[0], Z, "system", "pearson")
    r13 = correlate(M[3], Z, "system", "pearson")
    r23 = correlate(M[0], M[3], "system", "pearson")
    assert result.statistic == pytest.approx(williams_t(r12, r13, r23, 12))
    assert 0 <= result.pvalue <= 1
    two_sided = williams_test(M[0], M[3], Z, alternative="two-sided").pvalue
    assert two_sided == pytest.approx(2 * min(result.pvalue, 1 - result.pvalue))


def test_bootstrap_interval_is_reproducible_and_brackets_the_estimate():
    M, Z = _campaign()
    ci = bootstrap_ci(M[0], Z, "system", "pearson", n_resamples=400, seed=9)
    assert ci == bootstrap_ci(M[0], Z, "system", "pearson", n_resamples=400, seed=9)
    assert ci.low <= ci.estimate <= ci.high
    assert ci.estimate == pytest.approx(correlate(M[0], Z, "system", "pearson"))
    diff = bootstrap_ci(M[0], Z, "global", "pearson", Y=M[3], resample="inputs", n_resamples=400, seed=9)
    assert diff.low > 0   # the better metric stays better when topics are resampled
    fixed = bootstrap_ci(M[0], Z, "global", "pearson", resample="systems", n_resamples=50, seed=1)
    assert fixed.low <= fixed.high


def _exact_randomization_p(d):
    d = np.asarray(d, float)
    observed = abs(d.mean())
    means = [abs((np.array(s) * d).mean()) for s in itertools.product([-1, 1], repeat=len(d))]
    return np.mean(np.array(means) >= observed - 1e-12)


def test_paired_randomization_matches_full_enumeration():
    a = np.array([0.42, 0.31, 0.55, 0.18, 0.60, 0.47, 0.29, 0.51, 0.33, 0.40])
    b = np.array([0.38, 0.30, 0.41, 0.22, 0.52, 0.40, 0.31, 0.43, 0.30, 0.35])
    exact = _exact_randomization_p(a - b)            # 1,024 sign patterns
    result = paired_randomization_test(a, b, n_resamples=40000, seed=4)
    assert result.statistic == pytest.approx((a - b).mean())
    assert result.pvalue == pytest.approx(exact, abs=0.01)
    assert result == paired_randomization_test(a, b, n_resamples=40000, seed=4)


def test_randomised_p_values_count_the_observed_statistic_as_scipy_does():
    """p = (k + 1) / (n + 1) (Phipson and Smyth 2010): never 0. scipy.stats.permutation_test uses the
    same convention for randomised (not exhaustive) tests; its sign flips of one sample are our null."""
    from scipy import stats

    a = np.array([0.42, 0.31, 0.55, 0.18, 0.60, 0.47, 0.29, 0.51, 0.33, 0.40, 0.52, 0.47, 0.3, 0.2, 0.6, 0.5])
    b = a - np.array([0.04, 0.01, 0.14, -0.04, 0.08, 0.07, -0.02, 0.08, 0.03, 0.05, 0.06, 0.09, -0.05, 0.0, 0.02,
                      -0.06])
    ours = paired_randomization_test(a, b, n_resamples=20000, seed=4).pvalue
    # 20,000 draws < 2^16 sign patterns: scipy resamples (and adds one) rather than enumerating
    theirs = stats.permutation_test((a - b,), lambda d, axis: np.abs(d.mean(axis=axis)), permutation_type="samples",
                                    vectorized=True, n_resamples=20000, alternative="greater",
                                    random_state=np.random.default_rng(1)).pvalue
    exact = _exact_randomization_p(a - b)                  # 65,536 sign patterns
    assert ours == pytest.approx(exact, abs=0.006) and theirs == pytest.approx(exact, abs=0.006)   # 4 SD
    # Differences all of one sign and equal: only the two all-same-sign flips reach |mean|, so with
    # n = 3 resamples of 12 topics k is 0 for this seed and p = 1 / 4, where the share of k was 0.
    flips = np.where(np.random.default_rng(0).random((3, 12)) < 0.5, -1.0, 1.0)
    assert not (np.abs(flips.mean(-1)) >= 1).any()
    assert paired_randomization_test(np.ones(12), np.zeros(12), n_resamples=3, seed=0).pvalue == 0.25
    # a metric identical to the other: every permuted difference equals the observed 0, k = n
    M, Z = _campaign()
    assert permutation_test(M[0], M[0], Z, "system", "pearson", n_resamples=9, seed=0).pvalue == 1.0


def test_paired_bootstrap():
    a = np.array([0.42, 0.31, 0.55, 0.18, 0.60, 0.47, 0.29, 0.51, 0.33, 0.40])
    b = a - 0.05
    interval, test = paired_bootstrap(a, b, n_resamples=2000, seed=1)
    assert interval.estimate == pytest.approx(0.05)
    assert interval.low == pytest.approx(0.05) and interval.high == pytest.approx(0.05)  # constant difference
    # no resampled mean (all equal to the observed one) is away from it by 0.05: k = 0, p = 1 / 2001
    assert test.pvalue == 1 / 2001
    noisy_b = b + np.array([0.1, -0.1] * 5)
    interval, test = paired_bootstrap(a, noisy_b, n_resamples=2000, seed=1)
    assert interval.low < interval.estimate < interval.high and 0 < test.pvalue <= 1
    with pytest.raises(ValueError):
        paired_bootstrap([1.0, np.nan], [np.nan, 2.0])


def test_discriminative_power_equals_pairwise_permutation_tests():
    M, Z = _campaign()
    power = discriminative_power(M, Z, "item", "spearman", n_resamples=150, seed=8)
    assert set(power.pvalues) == {(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)}
    # the same seed draws the same swaps, so each pair's p-value is that pair's own test
    for (a, b), p in power.pvalues.items():
        assert p == permutation_test(M[a], M[b], Z, "item", "spearman", n_resamples=150, seed=8).pvalue
    assert power.mean_pvalue == pytest.approx(np.mean(list(power.pvalues.values())))
    assert list(power.curve()) == sorted(power.pvalues.values())


def test_ranking_consistency():
    M, Z = _campaign(inputs=40)
    value = ranking_consistency(M, Z, "global", "pearson", repetitions=30, seed=3)
    assert value == ranking_consistency(M, Z, "global", "pearson", repetitions=30, seed=3)
    assert value > 0.5  # metrics with clearly different noise keep their order on any half
    with pytest.raises(ValueError):
        ranking_consistency(M[:1], Z, "global", "pearson")


def _tied_campaign(seed, ties):
    """Small scores with missing cells (shared by the metrics, and some in the humans only);
    with `ties`, coarse values so that ranks tie within and across metrics."""
    rng = np.random.default_rng(seed)
    M, Z = _campaign(seed, metrics=4, systems=6, inputs=7)
    if ties:
        M, Z = np.round(M * 1.5) / 1.5, np.round(Z)
    M[:, 2, 3] = np.nan
    M[:, 0, rng.random(7) < 0.3] = np.nan
    Z[4, 1] = np.nan
    return np.stack([standardize(m) for m in M]), standardize(Z)


@pytest.mark.parametrize("level", ["input", "item"])
@pytest.mark.parametrize("name", ["spearman", "tau_b", "tau_c"])
@pytest.mark.parametrize("method", ["both", "systems", "inputs"])
@pytest.mark.parametrize("ties", [False, True])
def test_rank_fast_paths_equal_resampling(level, name, method, ties):
    from sepia.metaeval.rank_deltas import rank_deltas
    from sepia.metaeval.significance import resampled_deltas

    for seed in range(3):
        M, Z = _tied_campaign(seed, ties)
        masks = swap_masks(np.random.default_rng(seed), 30, Z.shape, method)
        a, b = np.array([0, 1, 3, 2]), np.array([2, 3, 0, 1])
        slow = resampled_deltas(M, Z, a, b, masks, level, name)
        assert np.isfinite(slow).any()
        assert rank_deltas(M, Z, a, b, masks, level, name) == pytest.approx(slow, abs=1e-12, nan_ok=True)
        assert pair_deltas(M, Z, a, b, masks, level, name) == pytest.approx(slow, abs=1e-12, nan_ok=True)


@pytest.mark.parametrize("level", ["input", "item"])
@pytest.mark.parametrize("name", ["spearman", "tau_b", "tau_c"])
def test_rank_fast_paths_with_heavy_ties_and_float64_products(level, name, monkeypatch):
    """F-scores tie a lot (many zeros, a few values): runs of equal values across many cells,
    groups where one side is constant. Forcing float64 products must give the same results."""
    from sepia.metaeval import rank_deltas as module
    from sepia.metaeval.significance import resampled_deltas

    rng = np.random.default_rng(11)
    M = rng.choice([0.0, 0.0, 0.0, 0.25, 0.5, 1.0], size=(4, 7, 9))
    Z = rng.choice([0.0, 0.0, 1 / 3, 2 / 3, 1.0], size=(7, 9))
    M[:, :, 0] = 0.0                 # input 0: every metric constant
    Z[3] = 0.5                       # system 3: human constant
    M[:, 5, 2] = np.nan
    masks = swap_masks(np.random.default_rng(2), 25, Z.shape, "both")
    a, b = np.array([0, 1, 2, 3, 0]), np.array([1, 2, 3, 0, 2])
    slow = resampled_deltas(M, Z, a, b, masks, level, name)
    assert np.isfinite(slow).any()
    assert module.rank_deltas(M, Z, a, b, masks, level, name) == pytest.approx(slow, abs=1e-12, nan_ok=True)
    monkeypatch.setattr(module, "_FLOAT32_EXACT", 0)
    assert module.rank_deltas(M, Z, a, b, masks, level, name) == pytest.approx(slow, abs=1e-12, nan_ok=True)


def test_rank_fast_paths_cover_only_the_grouped_levels():
    from sepia.metaeval.rank_deltas import rank_deltas

    M, Z = _campaign()
    masks = swap_masks(np.random.default_rng(0), 3, Z.shape, "both")
    with pytest.raises(ValueError, match="global/tau_b"):
        rank_deltas(M, Z, [0], [1], masks, "global", "tau_b")


@pytest.mark.parametrize("method", ["both", "systems", "inputs"])
@pytest.mark.parametrize("ties", [False, True])
def test_item_spearman_by_counts_equals_the_quadratic_forms_exactly(method, ties, monkeypatch):
    """Item-level Spearman now comes from the global level's counts, one system at a time: the same
    values as rank_deltas' quadratic forms gave (to the last bit), so the same p-values."""
    from sepia.metaeval import global_ranks, properties, significance
    from sepia.metaeval.rank_deltas import rank_deltas

    for seed in range(3):
        M, Z = _tied_campaign(seed, ties)
        masks = swap_masks(np.random.default_rng(seed), 40, Z.shape, method)
        a, b = np.array([0, 1, 3, 2]), np.array([2, 3, 0, 1])
        before = rank_deltas(M, Z, a, b, masks, "item", "spearman")
        monkeypatch.setattr(global_ranks, "_MASK_BLOCK", 7)  # masks in blocks too
        assert np.array_equal(global_ranks.item_spearman_deltas(M, Z, a, b, masks), before, equal_nan=True)
        now = properties.discriminative_power(M, Z, "item", "spearman", method=method, n_resamples=60, seed=seed)
        monkeypatch.setattr(significance, "item_spearman_deltas",
                            lambda M, Z, a, b, masks: rank_deltas(M, Z, a, b, masks, "item", "spearman"))
        assert properties.discriminative_power(M, Z, "item", "spearman", method=method, n_resamples=60,
                                               seed=seed).pvalues == now.pvalues
        monkeypatch.undo()


def test_item_spearman_with_heavy_ties_and_a_system_without_pairs():
    from sepia.metaeval.global_ranks import item_spearman_deltas
    from sepia.metaeval.significance import resampled_deltas

    rng = np.random.default_rng(11)
    M = rng.choice([0.0, 0.0, 0.0, 0.25, 0.5, 1.0], size=(4, 7, 9))
    Z = rng.choice([0.0, 0.0, 1 / 3, 2 / 3, 1.0], size=(7, 9))
    Z[3] = 0.5                       # system 3: human constant
    M[:, 5, 1:] = np.nan             # system 5: one input left, no pair
    masks = swap_masks(np.random.default_rng(2), 25, Z.shape, "both")
    a, b = np.array([0, 1, 2, 3, 0]), np.array([1, 2, 3, 0, 2])
    slow = resampled_deltas(M, Z, a, b, masks, "item", "spearman")
    assert np.isfinite(slow).any()
    assert item_spearman_deltas(M, Z, a, b, masks) == pytest.approx(slow, abs=1e-12, nan_ok=True)


@pytest.mark.parametrize("level", ["input", "item"])
@pytest.mark.parametrize("name", ["spearman", "tau_b", "tau_c"])
@pytest.mark.parametrize("ties", [False, True])
def test_large_groups_one_at_a_time_equal_the_triangle_products_exactly(level, name, ties, monkeypatch):
    """Groups of many cells (the item level at scale) go one at a time, their quadratic term as the
    masks' product with the full matrix: the same values to the last bit, float32 or float64."""
    from sepia.metaeval import rank_deltas as module

    for seed in range(2):
        M, Z = _tied_campaign(seed, ties)
        masks = swap_masks(np.random.default_rng(seed), 30, Z.shape, "both")
        a, b = np.array([0, 1, 3, 2]), np.array([2, 3, 0, 1])
        before = module.rank_deltas(M, Z, a, b, masks, level, name)
        monkeypatch.setattr(module, "_LARGE_GROUP", 2)
        assert np.array_equal(module.rank_deltas(M, Z, a, b, masks, level, name), before, equal_nan=True)
        monkeypatch.setattr(module, "_FLOAT32_EXACT", 0)
        assert np.array_equal(module.rank_deltas(M, Z, a, b, masks, level, name), before, equal_nan=True)
        monkeypatch.undo()
