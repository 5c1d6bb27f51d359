"""The results pages' charts do not mislead: a 95% interval only from three topics or more (and the
chart says which runs have none), clipped to [0, 1], and an SVG that renders on its own."""
from __future__ import annotations

import statistics

import pytest
from scipy import stats

from sepia.campaign import charts


def scipy_interval(values):
    """A second implementation: scipy's t interval around the mean with the standard error."""
    low, high = stats.t.interval(0.95, len(values) - 1, loc=statistics.fmean(values), scale=stats.sem(values))
    return max(0.0, low), min(1.0, high)


@pytest.mark.parametrize("values", [[0.5, 0.6, 0.7], [0.1, 0.9, 0.4, 0.55, 0.3], [0.8] * 4 + [0.7]])
def test_the_interval_is_scipys_t_interval(values):
    assert charts.interval(values) == pytest.approx(scipy_interval(values), abs=1e-12)


def test_by_hand_three_topics_clipped_at_zero():
    # mean 0.4, sd 0.2, se 0.2/sqrt(3) = 0.115470; t(0.975, 2) = 4.302653: 0.4 -+ 0.496828
    low, high = charts.interval([0.2, 0.4, 0.6])
    assert low == 0.0 and high == pytest.approx(0.896828, abs=1e-6)
    low, high = charts.interval([1.0, 0.8, 0.6])  # 0.8 + 0.496828 clipped to 1
    assert high == 1.0 and low == pytest.approx(0.303172, abs=1e-6)


def test_no_interval_from_fewer_than_three_topics():
    assert charts.interval([0.2, 0.9]) is None and charts.interval([0.5]) is None and charts.interval([]) is None


def test_the_chart_says_which_runs_have_no_interval():
    two = charts.Bars("F3", {"A-CS-CS-01-T": 0.55, "B-CS-CS-01-T": 0.3},
                      {"A-CS-CS-01-T": [0.2, 0.9], "B-CS-CS-01-T": [0.1, 0.2, 0.6]})
    svg = charts.bar_chart_svg("CS-CS", "F3", [two], ["A-CS-CS-01-T", "B-CS-CS-01-T"])
    assert "No interval for 1 run with fewer than 3 topics." in svg
    assert svg.count('id="LineCollection_') == 1  # one run's error bar, B's
    none = charts.bar_chart_svg("CS-CS", "F3", [charts.Bars("F3", {"A": 0.5}, {"A": [0.2, 0.8]})], ["A"])
    assert "LineCollection" not in none and "No interval for 1 run" in none
    every = charts.bar_chart_svg("CS-CS", "F3", [charts.Bars("F3", {"A": 0.5}, {"A": [0.2, 0.8, 0.5]})], ["A"])
    assert "No interval" not in every and 'id="LineCollection_' in every
