"""The official F-score, checked against the spec's worked example and hand calculations."""
from fractions import Fraction

import pytest

from sepia.scoring.evaluate import evaluate_runs
from sepia.scoring.fscore import f_beta, topic_score
from tests.helpers import gold, nugget, run, topic


def test_worked_example_of_the_spec():
    # weights {1.0, 0.4, 0.2, 0.5, 0.7}; SRs total 200 characters; C = 24; nuggets 2 and 5 matched.
    score = topic_score("T", "DEFINITION", weights=[1.0, 0.4, 0.2, 0.5, 0.7], match_scores=[0, 1, 0, 0, 1],
                        length=200, char_allowance=24, beta=3)
    assert score.recall == pytest.approx(1.1 / 2.8)
    assert score.allowance == 48
    assert score.precision == pytest.approx(0.24)
    assert round(score.f, 4) == 0.3693
    # the same by exact rational arithmetic
    p, r = Fraction(48, 200), Fraction(11, 28)
    assert score.f == pytest.approx(float(10 * p * r / (9 * p + r)), abs=1e-15)


def test_worked_example_end_to_end_through_votes_and_matching():
    # 10 assessors; vital votes 10, 4, 2, 5, 7 give pyramid weights 1.0, 0.4, 0.2, 0.5, 0.7.
    texts = ["甲乙丙丁", "戊己庚辛", "子丑寅卯", "辰巳午未", "申酉戌亥"]
    g = gold("CS", topic("X-CS-0001", "DEFINITION", *[
        nugget(f"N{i + 1}", t, v, 10) for i, (t, v) in enumerate(zip(texts, [10, 4, 2, 5, 7]))]))
    filler = "天" * (200 - 8)  # nugget 2 and nugget 5 appear; 200 characters in all, white space not counted
    r = run("T1-CS-CS-01-T", {"X-CS-0001": ["戊己庚辛 " + filler[:100], "申酉戌亥\n" + filler[100:]]})
    [result] = evaluate_runs(g, [r], matcher="binarized", allowance=24)
    [t] = result.topics
    assert (t.matched, t.length, t.allowance) == (2, 200, 48)
    assert round(t.f, 4) == 0.3693 and round(result.score, 4) == 0.3693


@pytest.mark.parametrize("precision, recall, beta, expected", [
    (0.5, 0.5, 3, 0.5),
    (1.0, 0.0, 3, 0.0),
    (0.0, 0.0, 3, 0.0),
    (0.2, 0.8, 1, 0.32),
    (0.24, 11 / 28, 3, 10 * 0.24 * (11 / 28) / (9 * 0.24 + 11 / 28)),
])
def test_f_beta(precision, recall, beta, expected):
    assert f_beta(precision, recall, beta) == pytest.approx(expected)


def test_short_answers_get_full_precision():
    score = topic_score("T", "PERSON", weights=[1.0], match_scores=[1], length=3, char_allowance=3.4, beta=3)
    assert score.precision == 1.0 and score.f == 1.0


def test_topic_without_responses_scores_zero_and_still_counts():
    g = gold("CS", topic("X-CS-0001", "PERSON", nugget("N1", "张三", 2, 2)),
             topic("X-CS-0002", "PERSON", nugget("N1", "李四", 2, 2)))
    r = run("T1-CS-CS-01-T", {"X-CS-0001": ["张三"]})  # no answer for topic 2
    [result] = evaluate_runs(g, [r], matcher="exact")
    assert [t.f for t in result.topics] == [1.0, 0.0]
    assert result.score == 0.5
    assert result.by_type == {"PERSON": 0.5}


def test_topic_without_nuggets_is_left_out_with_a_warning():
    g = gold("CS", topic("X-CS-0001", "PERSON", nugget("N1", "张三", 1, 1)), topic("X-CS-0002", "DATE"))
    [result] = evaluate_runs(g, [run("T1-CS-CS-01-T", {"X-CS-0001": ["张三"]})], matcher="exact")
    assert [t.topic_id for t in result.topics] == ["X-CS-0001"]
    assert result.score == 1.0
    assert any("X-CS-0002" in w and "no nuggets" in w for w in result.warnings)


def test_macro_average_and_by_type():
    g = gold("JA", topic("X-JA-0001", "PERSON", nugget("N1", "山田", 1, 1)),
             topic("X-JA-0002", "DEFINITION", nugget("N1", "東京", 1, 1), nugget("N2", "大阪", 1, 1)),
             topic("X-JA-0003", "DEFINITION", nugget("N1", "京都", 1, 1)))
    r = run("T1-JA-JA-01-T", {"X-JA-0001": ["山田"], "X-JA-0002": ["東京"], "X-JA-0003": ["奈良"]})
    [result] = evaluate_runs(g, [r], matcher="exact", allowance=2)
    # topic 2: recall 1/2, precision 1 (2 <= 2), F3 = 10 * 0.5 / (9 + 0.5)
    f2 = 10 * 0.5 / 9.5
    assert [t.f for t in result.topics] == pytest.approx([1.0, f2, 0.0])
    assert result.score == pytest.approx((1 + f2) / 3)
    assert result.by_type == pytest.approx({"DEFINITION": f2 / 2, "PERSON": 1.0})


def test_runs_are_ranked_best_first():
    g = gold("CS", topic("X-CS-0001", "PERSON", nugget("N1", "张三", 1, 1)))
    results = evaluate_runs(g, [run("B-CS-CS-01-T", {"X-CS-0001": ["李四"]}),
                                run("A-CS-CS-01-T", {"X-CS-0001": ["张三"]})], matcher="exact")
    assert [r.run_id for r in results] == ["A-CS-CS-01-T", "B-CS-CS-01-T"]


def test_default_allowance_is_the_mean_nugget_length_of_language_and_type():
    # DEFINITION nuggets in CS: 4 and 6 characters -> C = 5; the run says 20 characters with 1 match.
    g = gold("CS", topic("X-CS-0001", "DEFINITION", nugget("N1", "甲乙丙丁", 1, 1)),
             topic("X-CS-0002", "DEFINITION", nugget("N1", "子丑 寅卯辰巳", 1, 1)))
    r = run("T1-CS-CS-01-T", {"X-CS-0001": ["甲乙丙丁" + "天" * 16]})
    [result] = evaluate_runs(g, [r], matcher="exact")
    t = result.topics[0]
    assert (t.allowance, t.length, t.precision) == (5, 20, 0.25)
    assert result.topics[0].f == pytest.approx(10 * 0.25 / (9 * 0.25 + 1))


def test_allowance_per_type_override_wins():
    g = gold("CS", topic("X-CS-0001", "DEFINITION", nugget("N1", "甲乙丙丁", 1, 1)))
    r = run("T1-CS-CS-01-T", {"X-CS-0001": ["甲乙丙丁" + "天" * 16]})
    [result] = evaluate_runs(g, [r], matcher="exact", allowance=1, allowance_per_type={"DEFINITION": 10})
    assert result.topics[0].precision == 0.5
