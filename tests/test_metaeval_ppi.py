"""The PPI++ estimator of a human mean over a finite topic set: a hand-computed case, the design-based
mean and variance by enumerating every sample, lambda against scipy's least squares, and coverage."""
from itertools import combinations

import numpy as np
import pytest
from scipy import stats

from sepia.metaeval.ppi import (ppi_arrays, ppi_mean, ppi_means, projected_width, stratified_ppi_mean,
                               stratified_ppi_means, tuned_lambda)

AUTOMATIC = [0.2, 0.4, 0.6, 0.8, 0.5]   # all five topics
HUMAN = [0.3, 0.5, 0.5]                  # the judged topics 1-3


def test_hand_computed_case():
    # f = .2 .4 .6 (mean .4), Y = .3 .5 .5 (mean .4333): cov = ((-.2)(-.1333) + 0 + (.2)(.0667)) / 2 = .02,
    # var f = .04, lambda = .5; mean f over all five = 2.5 / 5 = .5;
    # residuals Y - .5 f = .2 .3 .2 (mean .2333): estimate = .5 * .5 + .2333 = .48333.
    # Jackknife, lambda re-tuned on the two topics left (the slope through them, clipped):
    # without 1: slope 0, .5 * 0 + (.5 + .5) / 2 = .5; without 2: slope .5, .25 + (.2 + .2) / 2 = .45;
    # without 3: slope 1, .5 + (.1 + .1) / 2 = .6. Mean .51667, squared deviations sum .011667;
    # variance = (1 - 3/5) * (2/3) * .011667 = .0031111, se .0557773; t(2, .975) = 4.302653: half-width .239991.
    e = ppi_mean(HUMAN, AUTOMATIC[:3], AUTOMATIC)
    assert e.lam == pytest.approx(0.5)
    assert e.automatic == pytest.approx(0.5)
    assert e.estimate == pytest.approx(0.483333, abs=1e-6)
    assert (e.low, e.high) == pytest.approx((0.483333 - 0.239991, 0.483333 + 0.239991), abs=1e-6)
    assert (e.judged, e.population) == (3, 5)
    # human only (lambda 0): mean .4333, sample variance .013333, se .0421637, half-width .181416
    h = ppi_mean(HUMAN, AUTOMATIC[:3], AUTOMATIC, lam=0)
    assert h.estimate == pytest.approx(0.433333, abs=1e-6)
    assert h.width / 2 == pytest.approx(0.181416, abs=1e-6)


def test_human_only_is_scipys_t_interval_with_the_finite_population_correction():
    rng = np.random.default_rng(4)
    y, f_all = rng.random(8), rng.random(30)
    h = ppi_mean(y, f_all[:8], f_all, level=0.9, lam=0)
    low, high = stats.t.interval(0.9, 7, loc=y.mean(), scale=stats.sem(y) * np.sqrt(1 - 8 / 30))
    assert (h.low, h.high) == pytest.approx((low, high))


def test_jackknife_against_recomputing_without_each_topic():
    rng = np.random.default_rng(7)
    f_all = rng.random(25)
    judged = rng.choice(25, 9, replace=False)
    y = np.clip(0.3 * f_all[judged] + rng.normal(0.2, 0.2, 9), 0, 1)
    e = ppi_mean(y, f_all[judged], f_all, level=0.9)
    dropped = []
    for i in range(9):
        keep = np.arange(9) != i
        yc, fc = y[keep] - y[keep].mean(), f_all[judged][keep] - f_all[judged][keep].mean()
        lam = min(max((yc @ fc) / (fc @ fc), 0.0), 1.0)
        dropped.append(lam * f_all.mean() + np.mean(y[keep] - lam * f_all[judged][keep]))
    variance = (1 - 9 / 25) * 8 / 9 * np.sum((np.array(dropped) - np.mean(dropped)) ** 2)
    assert e.width / 2 == pytest.approx(stats.t.ppf(0.95, 8) * np.sqrt(variance))


def test_shared_lambda_hand_computed_case():
    # Run A as above (sum of products of centred f and Y .04, of squared centred f .08); run B:
    # f = .1 .1 .4 judged (.3 over all five), Y = .2 0 .4: products .06, squares .06. Shared lambda
    # = (.04 + .06) / (.08 + .06) = .714286; A: .714286 * .5 + .43333 - .714286 * .4 = .504762,
    # B: .714286 * .3 + .2 - .714286 * .2 = .271429. Jackknife, one lambda re-tuned for both runs:
    # without 1: A's Y constant (0 / .02), B .06 / .045: lambda .06 / .065 = .923077, A .5, B .246154;
    # without 2: (.04 + .03) / (.08 + .045) = .56, A .456, B .328; without 3: B's f constant,
    # lambda .02 / .02 = 1, A .6, B .3. Squared deviations A .0108907, B .0034607; times
    # (1 - 3/5)(2/3), square root, t(2) 4.302653: half-widths .231872 and .130709.
    a, b = ppi_means([HUMAN, [0.2, 0.0, 0.4]], [AUTOMATIC[:3], [0.1, 0.1, 0.4]], [AUTOMATIC, [0.1, 0.1, 0.4, 0.3, 0.6]])
    assert a.lam == b.lam == pytest.approx(0.714286, abs=1e-6)
    assert (a.estimate, b.estimate) == pytest.approx((0.504762, 0.271429), abs=1e-6)
    assert (a.width / 2, b.width / 2) == pytest.approx((0.231872, 0.130709), abs=1e-6)


def _direct_shared(y, f, f_all, level):
    """An independent computation of the shared-lambda intervals with numpy's covariances, one
    left-out topic at a time."""
    def fit(y, f):
        lam = sum(np.cov(a, b)[0, 1] for a, b in zip(y, f)) / sum(np.var(b, ddof=1) for b in f)
        lam = min(max(lam, 0.0), 1.0)
        return lam * f_all.mean(axis=1) + (y - lam * f).mean(axis=1), lam
    n, N = y.shape[1], f_all.shape[1]
    estimate, lam = fit(y, f)
    dropped = np.array([fit(np.delete(y, i, 1), np.delete(f, i, 1))[0] for i in range(n)])
    variance = (1 - n / N) * (n - 1) / n * ((dropped - dropped.mean(axis=0)) ** 2).sum(axis=0)
    return estimate, stats.t.ppf((1 + level) / 2, n - 1) * np.sqrt(variance), lam


def test_shared_lambda_against_a_direct_computation():
    rng = np.random.default_rng(11)
    f_all = rng.random((6, 30))
    judged = rng.choice(30, 8, replace=False)
    y = np.clip(0.5 * f_all[:, judged] + rng.normal(0.2, 0.15, (6, 8)), 0, 1)
    estimate, half, lam = _direct_shared(y, f_all[:, judged], f_all, 0.9)
    got = ppi_means(y, f_all[:, judged], f_all, level=0.9)
    assert [e.estimate for e in got] == pytest.approx(list(estimate))
    assert [e.width / 2 for e in got] == pytest.approx(list(half))
    assert all(e.lam == pytest.approx(lam) for e in got)
    one = ppi_means(y[:1], f_all[:1, judged], f_all[:1], level=0.9)[0]           # one run: its own lambda
    alone = ppi_mean(y[0], f_all[0, judged], f_all[0], level=0.9)
    assert (one.estimate, one.low, one.high, one.lam) == pytest.approx((alone.estimate, alone.low, alone.high, alone.lam))
    stratified = stratified_ppi_means([(y, f_all[:, judged], f_all)], level=0.9)  # one stratum: the same
    assert [e.width for e in stratified] == pytest.approx([e.width for e in got])


def test_shared_lambda_covers_on_few_topics():
    # 20 runs whose matcher explains a third of the human variance, 4 of 21 topics judged: the shared
    # lambda's intervals cover about 95% (a lambda per run: 92.2%), and are narrower than the human-only ones.
    rng = np.random.default_rng(12)
    N, n, trials = 21, 4, 2000
    difficulty = rng.random(N)
    f_pop = np.clip(difficulty + rng.normal(0, 0.2, (20, N)), 0, 1)
    y_pop = np.clip(0.6 * difficulty + 0.3 * f_pop + rng.normal(0, 0.15, (20, N)), 0, 1)
    samples = np.argsort(rng.random((trials, N)), axis=1)[:, :n]
    truth = y_pop.mean(axis=1)[:, None]
    estimate, half, lam = ppi_arrays(y_pop[:, samples], f_pop[:, samples], f_pop.mean(axis=1)[:, None], N, shared=True)
    _, human_half, _ = ppi_arrays(y_pop[:, samples], f_pop[:, samples], f_pop.mean(axis=1)[:, None], N, lam=0)
    assert np.all(lam == lam[:1])                                                  # one lambda per sample
    assert 0.93 <= np.mean(np.abs(estimate - truth) <= half) <= 0.97
    assert half.mean() < 0.9 * human_half.mean()


def test_every_topic_judged_gives_the_human_mean_exactly():
    y = np.array([0.1, 0.7, 0.4, 0.9])
    e = ppi_mean(y, [0.3, 0.2, 0.8, 0.1], [0.3, 0.2, 0.8, 0.1])
    assert e.estimate == pytest.approx(y.mean()) and e.width == pytest.approx(0.0)


def test_lambda_is_the_least_squares_slope_clipped_to_0_1():
    rng = np.random.default_rng(5)
    for _ in range(50):
        f = rng.random(9)
        y = rng.normal(0, 1) * f + rng.normal(0, 0.3, 9)
        slope = stats.linregress(f, y).slope
        assert float(tuned_lambda(y, f)) == pytest.approx(min(max(slope, 0.0), 1.0))
    assert float(tuned_lambda(np.array([0.1, 0.5]), np.array([0.3, 0.3]))) == 0.0   # constant f


def test_unbiased_with_the_stated_variance_over_every_possible_sample():
    # Design-based check: for a fixed lambda, averaging over all C(7, 3) samples gives the population
    # mean exactly, the estimates' variance is (1 - n/N) S_e^2 / n, and the estimated variance is unbiased.
    y_pop = np.array([0.9, 0.1, 0.4, 0.35, 0.8, 0.0, 0.55])
    f_pop = np.array([0.7, 0.3, 0.3, 0.5, 0.9, 0.2, 0.4])
    N, n, lam = 7, 3, 0.6
    samples = np.array(list(combinations(range(N), n)))
    estimates, half, _ = ppi_arrays(y_pop[samples], f_pop[samples], f_pop.mean(), N, lam=lam)
    assert estimates.mean() == pytest.approx(y_pop.mean())
    true_variance = (1 - n / N) * np.var(y_pop - lam * f_pop, ddof=1) / n
    assert estimates.var() == pytest.approx(true_variance)
    estimated_variance = (half / stats.t.ppf(0.975, n - 1)) ** 2
    assert estimated_variance.mean() == pytest.approx(true_variance)


def test_coverage_and_width_on_a_simulated_population():
    rng = np.random.default_rng(6)
    N, n, trials = 400, 60, 4000
    f_pop = rng.random(N)
    y_pop = np.clip(0.2 + 0.6 * f_pop + rng.normal(0, 0.15, N), 0, 1)
    samples = np.argsort(rng.random((trials, N)), axis=1)[:, :n]
    estimates, half, lam = ppi_arrays(y_pop[samples], f_pop[samples], f_pop.mean(), N)
    human, human_half, _ = ppi_arrays(y_pop[samples], f_pop[samples], f_pop.mean(), N, lam=0)
    coverage = np.mean(np.abs(estimates - y_pop.mean()) <= half)
    assert 0.93 <= coverage <= 0.97
    assert np.all(half <= human_half + 1e-12)       # power tuning: never wider than human only
    assert np.mean(half) < 0.75 * np.mean(human_half)   # correlated matcher: much narrower
    assert 0.5 < lam.mean() < 0.7


def test_bad_input():
    with pytest.raises(ValueError):
        ppi_mean([0.3, 0.5], [0.3], [0.3, 0.5])
    with pytest.raises(ValueError):
        ppi_mean([0.3, 0.5, 0.1], [0.3, 0.5, 0.1], [0.3, 0.5])      # more judged than exist
    with pytest.raises(ValueError):
        ppi_mean(HUMAN, AUTOMATIC[:3], AUTOMATIC, level=1.0)
    one = ppi_mean([0.4], [0.2], AUTOMATIC)
    assert np.isnan(one.low) and one.estimate == pytest.approx(0.4)


def test_projected_width_by_hand():
    # 0.4 wide on 4 of 20 topics: t(3) sqrt(1/4 - 1/20) = 3.182446 * 0.447214 = 1.423233; with 8 judged:
    # t(7) sqrt(1/8 - 1/20) = 2.364624 * 0.273861 = 0.647579; 0.4 * 0.647579 / 1.423233 = 0.182002.
    assert projected_width(0.4, 4, 8, 20) == pytest.approx(0.182002, abs=1e-6)
    assert projected_width(0.4, 4, 20, 20) == 0.0          # every topic judged: no uncertainty left
    assert np.isnan(projected_width(0.4, 1, 8, 20))


def _strata(seed=8, sizes=((6, 3), (9, 4), (5, 5))):
    rng = np.random.default_rng(seed)
    parts = []
    for population, judged in sizes:
        f_all = rng.random(population)
        y = np.clip(0.6 * f_all[:judged] + rng.normal(0.1, 0.1, judged), 0, 1)
        parts.append((y, f_all[:judged], f_all))
    return parts


def test_one_stratum_is_ppi_mean():
    (y, f, f_all), = _strata(sizes=((12, 5),))
    one, plain = stratified_ppi_mean([(y, f, f_all)]), ppi_mean(y, f, f_all)
    assert (one.estimate, one.low, one.high, one.lam) == pytest.approx((plain.estimate, plain.low, plain.high, plain.lam))


def test_stratified_human_only_is_the_textbook_stratified_mean():
    parts = _strata()
    e = stratified_ppi_mean(parts, lam=0)
    N = sum(len(a) for _, _, a in parts)
    W = [len(a) / N for _, _, a in parts]
    mean = sum(w * y.mean() for w, (y, _, _) in zip(W, parts))
    variance = sum(w * w * (1 - len(y) / len(a)) * np.var(y, ddof=1) / len(y) for w, (y, _, a) in zip(W, parts))
    df = sum(len(y) - 1 for y, _, a in parts if len(y) < len(a))          # the fully judged stratum adds nothing
    assert e.estimate == pytest.approx(mean)
    assert e.width / 2 == pytest.approx(stats.t.ppf(0.975, df) * np.sqrt(variance))


def test_stratified_lambda_of_several_runs_minimises_the_sum_of_their_variances():
    from scipy.optimize import minimize_scalar

    runs = [_strata(seed) for seed in (8, 9, 10)]
    parts = [tuple(np.array([run[h][k] for run in runs]) for k in range(3)) for h in range(3)]
    N = sum(len(a) for _, _, a in runs[0])

    def estimated_variance(lam):
        return sum((len(a) / N) ** 2 * (1 - len(y) / len(a)) * np.var(y - lam * f, ddof=1) / len(y)
                   for run in runs for y, f, a in run)

    best = minimize_scalar(estimated_variance, bounds=(0, 1), method="bounded", options={"xatol": 1e-10}).x
    estimates = stratified_ppi_means(parts)
    assert all(e.lam == pytest.approx(best, abs=1e-6) for e in estimates)
    assert [e.estimate for e in estimates] == pytest.approx(
        [stratified_ppi_mean(run, lam=estimates[0].lam).estimate for run in runs])


def test_stratified_lambda_minimises_the_estimated_variance():
    from scipy.optimize import minimize_scalar

    parts = _strata()
    N = sum(len(a) for _, _, a in parts)

    def estimated_variance(lam):
        return sum((len(a) / N) ** 2 * (1 - len(y) / len(a)) * np.var(y - lam * f, ddof=1) / len(y)
                   for y, f, a in parts)

    best = minimize_scalar(estimated_variance, bounds=(0, 1), method="bounded", options={"xatol": 1e-10}).x
    assert stratified_ppi_mean(parts).lam == pytest.approx(best, abs=1e-6)


def test_stratified_estimate_is_unbiased_over_every_sample():
    y_pops = [np.array([0.9, 0.1, 0.4, 0.35]), np.array([0.8, 0.0, 0.55, 0.2, 0.6])]
    f_pops = [np.array([0.7, 0.3, 0.3, 0.5]), np.array([0.9, 0.2, 0.4, 0.1, 0.5])]
    truth = np.concatenate(y_pops).mean()
    values = [stratified_ppi_mean([(y_pops[0][list(a)], f_pops[0][list(a)], f_pops[0]),
                                   (y_pops[1][list(b)], f_pops[1][list(b)], f_pops[1])], lam=0.7).estimate
              for a in combinations(range(4), 2) for b in combinations(range(5), 3)]
    assert np.mean(values) == pytest.approx(truth)
