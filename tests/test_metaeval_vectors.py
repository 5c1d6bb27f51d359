"""Published test vectors for the correlation and agreement measures (issue 4)."""
import numpy as np
import pytest
from scipy import stats

from sepia.metaeval.agreement import ALPHA_LEVELS, fleiss_kappa, krippendorff_alpha, krippendorff_alpha_counts, value_counts
from sepia.metaeval.correlation import COEFFICIENTS, LEVELS, coefficient, correlate

NAN = np.nan


# mt-metrics-eval: two systems x three items, laid out system by system.
MTME_GOLD = np.array([[1, 2, 3], [4, 5, 6]], float)
MTME_METRIC = np.array([[2, 1, 4], [3, 3, 7]], float)


def test_mt_metrics_eval_vectors():
    assert correlate(MTME_METRIC, MTME_GOLD, "global", "pearson") == pytest.approx(0.776, abs=5e-4)
    # "system-averaged": one correlation per system across its items, averaged (our item level)
    assert correlate(MTME_METRIC, MTME_GOLD, "item", "pearson") == pytest.approx(0.760, abs=5e-4)
    assert correlate(MTME_METRIC, MTME_GOLD, "global", "tau_b") == pytest.approx(0.552, abs=5e-4)
    assert correlate(MTME_METRIC, MTME_GOLD, "global", "tau_c") == pytest.approx(0.556, abs=5e-4)


def test_mt_metrics_eval_kendall_variants_with_ties():
    gold, metric = [1, 2, 2, 3, 4], [2, 1, 1.5, 5, 3]
    assert coefficient(metric, gold, True, "tau_b") == pytest.approx(0.316227766, abs=1e-9)
    assert coefficient(metric, gold, True, "tau_c") == pytest.approx(0.32, abs=1e-12)


def test_nlpstats_vectors():
    X = [[1, 9, 2], [4, 5, 2], [6, 7, 2]]
    Z = [[11, 12, 13], [14, 15, 16], [17, 18, 19]]
    assert correlate(X, Z, "system", "pearson") == pytest.approx(0.7205766921, abs=1e-10)
    assert correlate(X, Z, "global", "pearson") == pytest.approx(0.06691496051, abs=1e-10)


def test_input_level_skips_undefined_correlations():
    X = np.array([[1, 9, 2], [4, 5, 2], [6, 7, 2]], float)
    Z = np.array([[11, 12, 13], [14, 15, 16], [17, 18, 19]], float)
    # the third input's metric scores are constant: only the first two inputs count
    expected = np.mean([stats.pearsonr(X[:, i], Z[:, i]).statistic for i in (0, 1)])
    assert correlate(X, Z, "input", "pearson") == pytest.approx(expected)


SCIPY = {
    "pearson": lambda x, z: stats.pearsonr(x, z).statistic,
    "spearman": lambda x, z: stats.spearmanr(x, z).statistic,
    "tau_b": lambda x, z: stats.kendalltau(x, z, variant="b").statistic,
    "tau_c": lambda x, z: stats.kendalltau(x, z, variant="c").statistic,
}


def _reference(X, Z, level, name):
    """The four levels spelled out with scipy, one vector at a time."""
    f = SCIPY[name]
    v = np.isfinite(X) & np.isfinite(Z)
    if level == "global":
        return f(X[v], Z[v])
    if level == "system":
        rows = v.any(1)
        return f(np.array([X[s][v[s]].mean() for s in np.flatnonzero(rows)]),
                 np.array([Z[s][v[s]].mean() for s in np.flatnonzero(rows)]))
    axis_vectors = [(X[s][v[s]], Z[s][v[s]]) for s in range(X.shape[0])] if level == "item" else \
        [(X[:, i][v[:, i]], Z[:, i][v[:, i]]) for i in range(X.shape[1])]
    return np.nanmean([f(x, z) for x, z in axis_vectors if len(x) >= 2])


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", COEFFICIENTS)
def test_levels_agree_with_scipy_with_missing_cells_and_ties(level, name):
    rng = np.random.default_rng(7)
    Z = rng.integers(0, 5, (6, 9)).astype(float)        # integer scores: many ties
    X = Z + rng.integers(-2, 3, (6, 9))
    X[1, 2] = NAN
    Z[3, 4] = NAN
    X[5, :3] = NAN
    assert correlate(X, Z, level, name) == pytest.approx(_reference(X, Z, level, name), abs=1e-12)


def test_batch_equals_one_at_a_time():
    rng = np.random.default_rng(3)
    batch = rng.normal(size=(4, 5, 7))
    Z = rng.normal(size=(5, 7))
    for level in LEVELS:
        for name in COEFFICIENTS:
            together = correlate(batch, Z, level, name)
            assert together == pytest.approx([correlate(b, Z, level, name) for b in batch])


def test_undefined_correlation_is_nan():
    assert np.isnan(correlate([[1, 1], [1, 1]], [[1, 2], [3, 4]], "global", "pearson"))
    assert np.isnan(correlate([[1, NAN], [NAN, 2]], [[1, 2], [3, 4]], "item", "spearman"))


def test_unknown_measure_is_rejected():
    with pytest.raises(ValueError, match="level"):
        correlate(MTME_METRIC, MTME_GOLD, "corpus", "pearson")
    with pytest.raises(ValueError, match="coefficient"):
        correlate(MTME_METRIC, MTME_GOLD, "global", "kendall")


# Fleiss (1971): 10 subjects, 14 raters, 5 categories.
FLEISS = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
          [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]


def test_fleiss_1971_vector():
    assert fleiss_kappa(FLEISS) == pytest.approx(0.20993, abs=5e-6)


def test_fleiss_agrees_with_statsmodels_and_handles_uneven_raters():
    from statsmodels.stats.inter_rater import fleiss_kappa as statsmodels_kappa
    rng = np.random.default_rng(0)
    table = rng.multinomial(5, [0.5, 0.3, 0.2], size=12)
    assert fleiss_kappa(table) == pytest.approx(statsmodels_kappa(table))
    # perfect agreement with different numbers of raters per unit
    assert fleiss_kappa([[3, 0], [0, 2], [4, 0], [0, 5]]) == pytest.approx(1.0)
    # a unit with a single rating carries no information
    assert fleiss_kappa([[3, 0], [0, 2], [1, 0]]) == pytest.approx(fleiss_kappa([[3, 0], [0, 2]]))


# Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 coders x 12 units.
KRIPP = [[1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
         [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN]]


@pytest.mark.parametrize("level,expected", [("nominal", 0.743), ("ordinal", 0.815),
                                            ("interval", 0.849), ("ratio", 0.797)])
def test_krippendorff_2011_vectors(level, expected):
    assert krippendorff_alpha(KRIPP, level) == pytest.approx(expected, abs=5e-4)


@pytest.mark.parametrize("level", ALPHA_LEVELS)
def test_krippendorff_against_reference_package(level):
    krippendorff = pytest.importorskip("krippendorff")  # GPL: a test oracle only, never imported by sepia
    rng = np.random.default_rng(11)
    data = rng.integers(1, 6, (5, 30)).astype(float)
    data[rng.random(data.shape) < 0.25] = NAN
    assert krippendorff_alpha(data, level) == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement=level), abs=1e-10)


def test_krippendorff_from_counts_equals_from_data():
    counts, values = value_counts(KRIPP)
    assert krippendorff_alpha_counts(counts, values, "interval") == pytest.approx(krippendorff_alpha(KRIPP, "interval"))


def test_agreement_undefined_cases():
    assert np.isnan(fleiss_kappa([[1, 0], [0, 1]]))          # nobody rated a unit twice
    assert np.isnan(krippendorff_alpha([[1, 1, 1], [1, 1, 1]]))  # a single value: no variation
