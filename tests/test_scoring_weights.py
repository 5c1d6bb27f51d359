"""Pyramid, proportion and binary weights from vital votes (spec section 3)."""
import pytest

from sepia.formats.model import GoldNugget
from sepia.scoring.weights import nugget_weights
from tests.helpers import nugget

# v(n) of 4 voters each: 4, 2, 1, 0
NUGGETS = [nugget("N1", "a", 4, 4), nugget("N2", "b", 2, 4), nugget("N3", "c", 1, 4), nugget("N4", "d", 0, 4)]


def test_pyramid():
    assert nugget_weights(NUGGETS, "pyramid") == ([1.0, 0.5, 0.25, 0.0], [])


def test_pyramid_divides_by_the_most_votes_not_the_voters():
    weights, _ = nugget_weights([nugget("N1", "a", 2, 4), nugget("N2", "b", 1, 4)], "pyramid")
    assert weights == [1.0, 0.5]


def test_proportion_divides_by_who_voted_on_the_nugget():
    ns = NUGGETS + [nugget("N5", "e", 2, 3)]
    assert nugget_weights(ns, "proportion")[0] == pytest.approx([1.0, 0.5, 0.25, 0.0, 2 / 3])


def test_binary_needs_a_strict_majority():
    assert nugget_weights(NUGGETS + [nugget("N5", "e", 2, 3)], "binary")[0] == [1.0, 0.0, 0.0, 0.0, 1.0]


@pytest.mark.parametrize("scheme", ["pyramid", "proportion", "binary"])
def test_no_vital_vote_means_every_nugget_weighs_one_with_a_warning(scheme):
    weights, warnings = nugget_weights([nugget("N1", "a", 0, 3), nugget("N2", "b", 0, 3)], scheme)
    assert weights == [1.0, 1.0]
    assert warnings and "weighs 1" in warnings[0]


def test_counts_without_individual_votes():
    ns = [GoldNugget("N1", "a", vital_count=3, voter_count=3), GoldNugget("N2", "b", vital_count=1, voter_count=3)]
    assert nugget_weights(ns, "pyramid")[0] == pytest.approx([1.0, 1 / 3])


def test_nuggets_without_votes_keep_their_given_weight():
    ns = [GoldNugget("N1", "a", weight=0.5), GoldNugget("N2", "b")]
    assert nugget_weights(ns, "pyramid") == ([0.5, 1.0], [])


def test_unknown_scheme_is_refused():
    with pytest.raises(ValueError, match="unknown weighting scheme"):
        nugget_weights(NUGGETS, "median")
