"""Item-level judging plans: the per-nugget data reproduce the scorer's F3, the difference
estimator of a topic's sums is unbiased over every sample, the jackknife equals recomputing without
each nugget, and a full or perfect plan has no uncertainty left."""
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from sepia.formats.judgments import read_judgments
from sepia.formats.read import read_file
from sepia.metaeval.budget import paired_scores
from sepia.metaeval.items import TopicItems, estimated_sums, f_from_sums, item_plan_figures, item_scores, topic_estimates

CS = Path(__file__).resolve().parents[1] / "corpora" / "cs"


def _topic(seed=3, runs=3, K=6):
    rng = np.random.default_rng(seed)
    human = rng.choice([0.0, 0.5, 1.0], (runs, K))
    automatic = np.where(rng.random((runs, K)) < 0.7, human, 1 - human)
    return TopicItems("T", rng.choice([0.0, 0.5, 1.0], K) + 0.5, 5.0, np.array([40.0, 10.0, 0.0])[:runs],
                      np.array([True, True, False])[:runs], human, automatic)


def test_item_scores_reproduce_the_scorer():
    gold, judgments = read_file(CS / "gold.xml"), read_judgments(CS / "judgments.tsv")
    runs = [read_file(p) for p in sorted((CS / "runs").glob("*.xml"))]
    groups, _ = paired_scores(gold, runs, judgments, "softmatch")
    items = item_scores(gold, runs, judgments, "softmatch")
    for group in groups:
        ids, topics = items[group.language_pair]
        assert ids == group.runs and [t.topic_id for t in topics] == group.topics
        for j, t in enumerate(topics):
            for values, matrix in ((t.human, group.human), (t.automatic, group.automatic)):
                assert f_from_sums(values @ t.weights, values.sum(axis=1), t, 3.0) == pytest.approx(matrix[:, j])


def test_the_sums_are_unbiased_over_every_sample():
    topic = _topic()
    samples = np.array(list(combinations(range(6), 3)))
    for g in (topic.weights, np.ones(6)):
        estimate, _ = estimated_sums(topic, samples, g)
        assert estimate.mean(axis=1) == pytest.approx(topic.human @ g)


def test_jackknife_replicates_recompute_without_each_nugget():
    topic = _topic()
    sample = np.array([[0, 2, 3, 5]])
    _, replicates = topic_estimates(topic, sample, 3.0)
    for i in range(4):
        kept = np.delete(sample, i, axis=1)
        again, _ = topic_estimates(topic, kept, 3.0)
        assert replicates[:, 0, i] == pytest.approx(again[:, 0])


def test_full_or_perfect_plans_leave_no_uncertainty():
    topic = _topic()
    full, _ = topic_estimates(topic, np.arange(6)[None, :], 3.0)
    assert full[:, 0] == pytest.approx(f_from_sums(topic.human @ topic.weights, topic.human.sum(axis=1), topic, 3.0))
    assert full[2, 0] == 0.0                                   # a run without responses scores 0
    pairs = np.array([[0, 1], [0, 2], [1, 2]])
    every = item_plan_figures([topic, _topic(4)], 1.0, 20, np.random.default_rng(0), 0.95, 3.0, pairs)
    assert every["means"] == {"coverage": 1.0, "width": 0.0, "decided": pytest.approx(every["means"]["decided"])}
    assert every["judgments"] == 2 * 6 * 2                     # two answered runs, six nuggets, two topics
    perfect = TopicItems("P", topic.weights, 5.0, topic.lengths, topic.answered, topic.human, topic.human.copy())
    exact = item_plan_figures([perfect], 0.5, 20, np.random.default_rng(0), 0.95, 3.0, pairs)
    assert exact["means"]["width"] == 0.0 and exact["differences"]["coverage"] == 1.0


def test_item_correlation_is_pearsons_r_over_a_runs_answered_items():
    from scipy import stats

    from sepia.metaeval.items import item_correlation

    topics = [_topic(seed) for seed in (3, 4)]          # the third run answers neither topic: left out
    expected = np.mean([stats.pearsonr(np.concatenate([t.human[r] for t in topics]),
                                       np.concatenate([t.automatic[r] for t in topics])).statistic for r in (0, 1)])
    assert item_correlation(topics) == pytest.approx(expected)


def test_one_plan_estimates_against_the_simulations_pieces():
    # The store's item-plan estimate (one given sample per topic): a run's estimate is the mean of its
    # topics' estimates, its variance the sum of their jackknife variances over T^2, and its interval
    # t(df) with Satterthwaite's df = (v_0 + v_1)^2 / (v_0^2 / (3 - 1) + v_1^2 / (2 - 1)).
    from scipy import stats

    from sepia.metaeval.item_estimates import item_plan_estimates

    topics = [TopicItems(f"T{i}", t.weights, t.allowance, t.lengths, t.answered, t.human, t.automatic,
                         tuple(f"N{j}" for j in range(6))) for i, t in enumerate(_topic(seed) for seed in (6, 5))]
    from sepia.metaeval.item_estimates import Drawn

    planned = {"T0": {None: {n: Drawn(0, 0.5) for n in ("N1", "N4", "N5")}},
               "T1": {None: {n: Drawn(0, 1 / 3) for n in ("N0", "N2")}}}
    group = item_plan_estimates(topics, planned, 0.9, 3.0, ["A", "B", "C"])
    samples = [np.array([[1, 4, 5]]), np.array([[0, 2]])]
    estimates, replicates = zip(*[topic_estimates(t, s, 3.0) for t, s in zip(topics, samples)])
    v = [(1 - s.shape[1] / 6) * (s.shape[1] - 1) / s.shape[1] * ((r[:, 0] - r[:, 0].mean(axis=-1, keepdims=True)) ** 2).sum(axis=-1)
         for r, s in zip(replicates, samples)]
    rows = {r["run_id"]: r for r in group["runs"]}
    # run A: both topics' variances positive (.0771 and .039); B: both 0 (width 0); C answers neither
    df = (v[0][0] + v[1][0]) ** 2 / (v[0][0] ** 2 / 2 + v[1][0] ** 2 / 1)
    assert 1 < df < 3 and v[0][1] + v[1][1] == pytest.approx(0, abs=1e-20)
    half = stats.t.ppf(0.95, df) * np.sqrt(v[0][0] + v[1][0]) / 2
    for i, run in enumerate("AB"):
        assert rows[run]["estimate"] == pytest.approx((estimates[0][i, 0] + estimates[1][i, 0]) / 2)
    assert rows["A"]["raw_high"] - rows["A"]["raw_low"] == pytest.approx(2 * half)
    assert rows["B"]["raw_high"] == pytest.approx(rows["B"]["raw_low"])
    assert rows["C"]["estimate"] == 0 and rows["C"]["raw_low"] == rows["C"]["raw_high"] == 0
    assert (group["judged_nuggets"], group["nuggets"], group["complete"]) == (5, 12, False)


def test_satterthwaite_degrees_of_freedom_by_hand():
    from scipy import stats

    from sepia.metaeval.items import satterthwaite_half

    # variances .04 (1 df) and .01 (3 df): df = .05^2 / (.0016 + .0001 / 3) = .0025 / .00163333 = 1.530612
    half = satterthwaite_half(np.array([0.05]), np.array([0.04 ** 2 / 1 + 0.01 ** 2 / 3]), 0.95)
    assert half[0] == pytest.approx(stats.t.ppf(0.975, 1.530612) * np.sqrt(0.05), rel=1e-6)
    equal = satterthwaite_half(np.array([0.04]), np.array([4 * 0.01 ** 2 / 2]), 0.95)   # four alike: 4 x 2 df
    assert equal[0] == pytest.approx(stats.t.ppf(0.975, 8) * 0.2)
    assert satterthwaite_half(np.array([0.0]), np.array([0.0]), 0.95)[0] == 0.0
