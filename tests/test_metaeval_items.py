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
