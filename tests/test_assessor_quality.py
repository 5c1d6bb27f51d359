"""Per-assessor quality and dispute sources (issue 24): Cohen's kappa against hand-computed values and
sklearn, agreement with adjudication, lone dissent, dispute rates, Wilson intervals against statsmodels,
and three-category agreement on partial support (issue 21)."""
import math

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa
from statsmodels.stats.proportion import proportion_confint

from sepia.formats.model import GoldNugget, GoldStandard, GoldTopic, Judgment
from sepia.metaeval.assessors import (
    ADJUDICATED, Unit, assessor_quality, cohen_kappa, dispute_rates, kappa_matrix, match_units, vote_units,
    wilson_interval,
)
from sepia.metaeval.disputes import agreement_table, judgment_items


def test_cohen_kappa_by_hand():
    # 10 units: both yes 4, both no 3, first yes second no 2, first no second yes 1.
    a = [1] * 4 + [0] * 3 + [1] * 2 + [0]
    b = [1] * 4 + [0] * 3 + [0] * 2 + [1]
    # po = 0.7; first says yes 6/10, second 5/10: pe = .6*.5 + .4*.5 = 0.5; kappa = 0.2 / 0.5 = 0.4
    assert cohen_kappa(a, b) == pytest.approx(0.4)


def test_weighted_kappa_by_hand():
    # three levels, linear weights: pairs (0,0) (1,2) (2,2) (0,1)
    a, b = [0, 1, 2, 0], [0, 2, 2, 1]
    # observed penalty: 0 + 1 + 0 + 1 = 2 (per unit 0.5); marginals a: 0:2 1:1 2:1, b: 0:1 1:1 2:2
    # expected penalty sum_ij |i-j| * ra_i * rb_j / n = (2*(0+1+4) + 1*(1+0+2) + 1*(2+1+0)) / 4 = 16/4 = 4
    assert cohen_kappa(a, b, weights="linear") == pytest.approx(1 - 2 / 4)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_kappa_equals_sklearn(weights):
    rng = np.random.default_rng(7)
    for _ in range(30):
        n = int(rng.integers(5, 40))
        a = rng.choice([0.0, 0.5, 1.0], n)
        b = np.where(rng.random(n) < 0.6, a, rng.choice([0.0, 0.5, 1.0], n))
        labels = [0.0, 0.5, 1.0]
        expected = cohen_kappa_score(_codes(a), _codes(b), labels=[0, 1, 2], weights=weights)
        assert cohen_kappa(list(a), list(b), labels, weights) == pytest.approx(expected, nan_ok=True)


def _codes(values):
    """Matches as sklearn's class labels (it refuses 0.5 as a class): 0 -> 0, 0.5 -> 1, 1 -> 2."""
    return [int(2 * v) for v in values]


def test_kappa_undefined_when_chance_agrees_fully():
    assert math.isnan(cohen_kappa([1, 1, 1], [1, 1, 1]))
    with pytest.raises(ValueError, match="same units"):
        cohen_kappa([1], [1, 0])


def _units():
    """Four match units of one topic: three assessors, one adjudication."""
    rows = [  # (rank, nugget, alice, bob, carol, adjudicated)
        (1, "N1", 1, 1, 0, 1),
        (1, "N2", 0, 0, 0, None),
        (2, "N1", 1, 0.5, 1, 0.5),
        (2, "N2", 0, 0, 1, None),
    ]
    judgments = []
    for rank, nugget, *marks in rows:
        for assessor, mark in zip(("alice", "bob", "carol", ADJUDICATED), marks):
            if mark is not None:
                judgments.append(Judgment("T-CS-1", "TEAM-CS-CS-01-T", rank, nugget, mark, assessor))
    gold = GoldStandard("CS", [GoldTopic("T-CS-1", "PERSON", [], [GoldNugget("N1", "a"), GoldNugget("N2", "b")])])
    return match_units(judgments, gold)


def test_assessor_quality_by_hand():
    rows = {r.assessor: r for r in assessor_quality(_units(), {"alice": [3.0, 10.0, 4.0]})}
    assert set(rows) == {"alice", "bob", "carol"}  # the adjudication is no assessor
    alice, bob, carol = rows["alice"], rows["bob"], rows["carol"]
    assert (alice.items, alice.adjudicated, alice.agree_adjudicated) == (4, 2, 1)   # 1 = 1, 1 != 0.5
    assert (bob.agree_adjudicated, bob.agreement_adjudicated) == (2, 1.0)
    assert (carol.agree_adjudicated, carol.agreement_adjudicated) == (0, 0.0)  # 0 != 1, 1 != 0.5
    # lone dissent: unit 1 carol alone (0 vs 1, 1), unit 3 bob alone (0.5 vs 1, 1), unit 4 carol alone
    assert (carol.shared, carol.lone_dissents, carol.lone_dissent_rate) == (4, 2, 0.5)
    assert (bob.lone_dissents, alice.lone_dissents) == (1, 0)
    assert alice.median_seconds == 4.0 and bob.median_seconds is None


def test_kappa_matrix_matches_sklearn_weighted_for_partial_matches():
    units = _units()
    pairs = {(p.first, p.second): p for p in kappa_matrix(units)}
    assert set(pairs) == {("alice", "bob"), ("alice", "carol"), ("bob", "carol")}
    ab = pairs["alice", "bob"]
    a, b = [1, 0, 1, 0], [1, 0, 0.5, 0]
    assert ab.units == 4 and ab.weights == "linear"
    assert ab.kappa == pytest.approx(cohen_kappa_score(_codes(a), _codes(b), labels=[0, 1, 2]))
    assert ab.weighted == pytest.approx(cohen_kappa_score(_codes(a), _codes(b), labels=[0, 1, 2], weights="linear"))
    assert ab.weighted > ab.kappa  # a partial is half a disagreement


def test_relevance_kappa_counts_unused_levels_as_steps():
    units = []
    for i, (x, y) in enumerate([(0, 0), (1, 3), (3, 3), (0, 1), (2, 2)]):
        u = Unit("relevance", (i,), "T-JA-1", "JA", "EVENT")
        u.add("ann", x)
        u.add("ben", y)
        units.append(u)
    [pair] = kappa_matrix(units)
    assert pair.weighted == pytest.approx(cohen_kappa_score([0, 1, 3, 0, 2], [0, 3, 3, 1, 2], labels=[0, 1, 2, 3],
                                                            weights="linear"))


def test_votes_are_nominal():
    gold = GoldStandard("JA", [GoldTopic("T-JA-1", "EVENT", [], [
        GoldNugget("N1", "x", votes=[("a", True), ("b", True)]),
        GoldNugget("N2", "y", votes=[("a", True), ("b", False)]),
        GoldNugget("N3", "z", votes=[("a", False), ("b", False)])])])
    [pair] = kappa_matrix(vote_units(gold))
    assert pair.kind == "vote" and pair.weights == "none" and pair.kappa == pair.weighted
    assert pair.kappa == pytest.approx(cohen_kappa_score([1, 1, 0], [1, 0, 0]))


def test_dispute_rates_by_group():
    units = _units()
    by_topic = dispute_rates(units, "topic")
    assert [(r.group, r.units, r.disputed) for r in by_topic] == [("T-CS-1", 4, 3)]
    assert [(r.group, r.rate) for r in dispute_rates(units, "type")] == [("PERSON", 0.75)]
    assert [(r.group, r.units) for r in dispute_rates(units, "run")] == [("TEAM-CS-CS-01-T", 4)]
    assert {r.group: r.disputed for r in dispute_rates(units, "assessor")} == {"alice": 3, "bob": 3, "carol": 3}
    with pytest.raises(ValueError, match="group by one of"):
        dispute_rates(units, "colour")


@pytest.mark.parametrize("k, n", [(0, 10), (3, 10), (10, 10), (17, 20), (1, 1)])
def test_wilson_interval_equals_statsmodels(k, n):
    assert wilson_interval(k, n) == pytest.approx(proportion_confint(k, n, alpha=0.05, method="wilson"))


def test_three_category_agreement_beside_the_yes_no_collapse():
    judgments = [Judgment("T-CS-1", "R-CS-CS-01-T", 1, f"N{i}", m, a)
                 for i, marks in enumerate([(1, 0.5), (0.5, 0.5), (0, 0), (1, 1), (0.5, 0)])
                 for a, m in zip(("x", "y"), marks)]
    [row] = agreement_table(judgment_items(judgments, "CS"))
    three = np.array([[0, 1, 1], [0, 2, 0], [2, 0, 0], [0, 0, 2], [1, 1, 0]])
    two = np.array([[0, 2], [0, 2], [2, 0], [0, 2], [1, 1]])
    assert row.kappa == pytest.approx(sm_fleiss_kappa(two))
    assert row.kappa3 == pytest.approx(sm_fleiss_kappa(three))
    assert row.kappa3 < row.kappa  # (1, 0.5) agrees only when partial counts as a yes
