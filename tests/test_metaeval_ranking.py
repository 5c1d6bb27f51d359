"""Ranking agreement, pairwise accuracy with ties, tie calibration, and the AEOLLM reader."""
import itertools

import numpy as np
import pytest

from sepia.formats.errors import FormatError
from sepia.metaeval.aeollm import compare, parse_scores
from sepia.metaeval.ranking import (kendall_tau, pair_counts, pairwise_accuracy, tau_ap,
                                    tie_calibrated_accuracy)


def _tau_ap_by_definition(reference, order):
    """Yilmaz et al. (2008): walk the estimated order, C(i) = items above that belong above."""
    n, total = len(order), 0.0
    for i in range(1, n):
        item = order[i]
        total += sum(reference[order[j]] > reference[item] for j in range(i)) / i
    return 2 * total / (n - 1) - 1


def test_tau_ap_hand_example():
    # reference ranking A > B > C > D; the estimate puts B first: B A C D
    # C(2) = 1 (B above A, correct), C(3) = 2, C(4) = 3: tau_AP = 2/3 * (0/1... ) -> 2/3*(0 + 1 + 1) - 1
    reference = [4, 3, 2, 1]           # A B C D
    estimate = [3, 4, 2, 1]            # B first
    # i=2: item A, above it B, reference puts B below A: C=0 -> 0/1
    # i=3: item C, above A and B, both correct: 2/2; i=4: 3/3
    assert tau_ap(reference, estimate) == pytest.approx(2 / 3 * (0 + 1 + 1) - 1)
    assert tau_ap(reference, reference) == pytest.approx(1.0)
    assert tau_ap(reference, [1, 2, 3, 4]) == pytest.approx(-1.0)


def test_tau_ap_random_strict_rankings_match_definition():
    rng = np.random.default_rng(0)
    for _ in range(5):
        ref = rng.normal(size=9)
        est = ref + rng.normal(size=9)
        assert tau_ap(ref, est) == pytest.approx(_tau_ap_by_definition(ref, list(np.argsort(-est))))


def test_tau_ap_with_ties_is_the_mean_over_tie_orders():
    ref = np.array([6.0, 5, 4, 3, 2, 1])
    est = np.array([3.0, 3, 2, 2, 2, 0])
    orders = [list(a) + list(b) + [5] for a in itertools.permutations([0, 1]) for b in itertools.permutations([2, 3, 4])]
    expected = np.mean([_tau_ap_by_definition(ref, o) for o in orders])
    assert tau_ap(ref, est) == pytest.approx(expected)


def test_kendall_tau_between_rankings():
    assert kendall_tau([0.5, 0.4, 0.3], [0.9, 0.2, 0.1]) == pytest.approx(1.0)
    assert kendall_tau([0.5, 0.4, 0.3, 0.1], [0.1, 0.4, 0.3, 0.5]) == pytest.approx(-2 / 3)
    assert np.isnan(kendall_tau([1.0], [2.0]))


def test_kendall_tau_is_scipys_tau_b_to_the_last_bit(monkeypatch):
    """Counted pair by pair: SciPy's float exactly, with ties, NaNs left out and undefined cases; past
    PAIRWISE_TAU_ITEMS, SciPy's own."""
    from scipy import stats

    from sepia.metaeval import ranking

    rng = np.random.default_rng(7)
    cases = [(rng.random(n), rng.random(n)) for n in (2, 3, 10, 34, 60) for _ in range(20)]
    cases += [(rng.integers(0, 4, n).astype(float), rng.integers(0, 3, n).astype(float)) for n in (2, 5, 40) for _ in range(20)]
    cases += [([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]), ([1.0, np.nan, 2.0, 3.0], [3.0, 1.0, np.inf, 1.0])]
    for a, b in cases:
        a, b = np.asarray(a), np.asarray(b)
        keep = np.isfinite(a) & np.isfinite(b)
        expected = float(stats.kendalltau(a[keep], b[keep]).statistic) if keep.sum() > 1 else float("nan")
        assert kendall_tau(a, b) == expected or (np.isnan(expected) and np.isnan(kendall_tau(a, b))), (a, b)
    monkeypatch.setattr(ranking, "PAIRWISE_TAU_ITEMS", 3)
    a, b = rng.random(5), rng.random(5)
    assert kendall_tau(a, b) == float(stats.kendalltau(a, b).statistic)


# humans [1, 2, 3, 3, 5], metric [1, 3, 2, 3.5, 5]: of the 10 pairs,
# (2,3) items 1-2 are discordant, (3,3) is a human tie the metric splits, the other 8 are concordant.
HUMAN = [1, 2, 3, 3, 5]
METRIC = [1, 3, 2, 3.5, 5]


def test_pair_counts_and_accuracies_by_hand():
    c = pair_counts(HUMAN, METRIC)
    assert (c.concordant, c.discordant, c.human_ties, c.metric_ties, c.both_ties) == pytest.approx((0.8, 0.1, 0.1, 0, 0))
    assert pairwise_accuracy(HUMAN, METRIC) == pytest.approx(0.8)                         # acc_eq = 8/10
    assert pairwise_accuracy(HUMAN, METRIC, ties="no_human_ties") == pytest.approx(8 / 9)
    # epsilon 1.5: the pairs whose metric scores differ by at most 1.5 become metric ties:
    # 1 vs 2 (concordant, lost), 3 vs 2 (discordant, no change), 3 vs 3.5 (concordant, lost),
    # 2 vs 3.5 (the human tie, now correct), 3.5 vs 5 (concordant, lost): (8 - 3 + 1) / 10
    assert pairwise_accuracy(HUMAN, METRIC, epsilon=1.5) == pytest.approx(0.6)


def _best_by_brute_force(human, metric, groups=None):
    gaps = sorted({abs(a - b) for a, b in itertools.combinations(metric, 2)} | {0.0})
    return max(pairwise_accuracy(human, metric, groups=groups, epsilon=e) for e in gaps)


def test_tie_calibration_finds_the_best_epsilon():
    human = [1, 1, 2, 2, 3, 3, 4]
    metric = [0.10, 0.12, 0.30, 0.31, 0.50, 0.70, 0.71]
    acc, eps = tie_calibrated_accuracy(human, metric)
    assert acc == pytest.approx(_best_by_brute_force(human, metric))
    assert pairwise_accuracy(human, metric, epsilon=eps) == pytest.approx(acc)
    assert acc > pairwise_accuracy(human, metric)   # calibration turns near-equal scores into ties
    rng = np.random.default_rng(2)
    h = rng.integers(0, 3, 12).astype(float)
    m = h + rng.normal(scale=0.4, size=12)
    groups = np.repeat([0, 1, 2], 4)
    acc, eps = tie_calibrated_accuracy(h, m, groups=groups)
    assert acc == pytest.approx(_best_by_brute_force(h, m, groups))
    assert pairwise_accuracy(h, m, groups=groups, epsilon=eps) == pytest.approx(acc)


def test_grouped_accuracy_is_the_mean_over_groups():
    h = [1, 2, 3, 1, 2]
    m = [1, 3, 2, 2, 1]
    groups = ["q1", "q1", "q1", "q2", "q2"]
    assert pairwise_accuracy(h, m, groups=groups) == pytest.approx(np.mean([2 / 3, 0.0]))


AEOLLM_HUMAN = """taskId questionId answerId score rank
1 q1 a1 5 1
1 q1 a2 3 2
1 q1 a3 3 2
1 q2 a1 1 2
1 q2 a2 2 1
2 q9 a1 4 1
2 q9 a2 2 2
2 q9 a3 1 3
"""
AEOLLM_PRED = """1 q1 a1 0.9 1
1 q1 a2 0.2 3
1 q1 a3 0.5 2
1 q2 a1 0.3 1
1 q2 a2 0.1 2
2 q9 a1 0.8 1
2 q9 a2 0.4 2
2 q9 a3 0.1 3
"""


def test_aeollm_report_by_hand():
    rows, overall, warnings = compare(parse_scores(AEOLLM_PRED), parse_scores(AEOLLM_HUMAN))
    assert not warnings
    task1, task2 = rows
    # task 1, q1: pairs (a1,a2) agree, (a1,a3) agree, (a2,a3) human tie but metric prefers a3: 2/3
    #          q2: the one pair is reversed: 0.   acc = mean(2/3, 0)
    assert task1.acc == pytest.approx(1 / 3)
    # q1: tau-b = (2 - 0) / sqrt(3 * 2) ; q2: tau = -1; mean
    assert task1.tau == pytest.approx(np.mean([2 / np.sqrt(6), -1]))
    # q1 Spearman: human ranks [3, 1.5, 1.5], metric ranks [3, 1, 2] -> 0.866; q2: -1
    assert task1.rho == pytest.approx(np.mean([np.sqrt(3) / 2, -1]))
    assert (task2.acc, task2.tau, task2.rho) == pytest.approx((1, 1, 1))
    assert overall.acc == pytest.approx(np.mean([1 / 3, 1]))
    assert overall.questions == 3 and overall.answers == 8


def test_aeollm_reader_reports_every_bad_line_and_unmatched_answers():
    with pytest.raises(FormatError) as exc:
        parse_scores("1 q1 a1 0.5 1\n1 q1 a2 high 2\n1 q1\n1 q1 a1 0.3 2\n1 q1 a3 0.1 x\n", "p.txt")
    messages = [str(p) for p in exc.value.problems]
    assert len(messages) == 4
    assert messages[0].startswith("p.txt:2:") and "not a number" in messages[0]
    assert "already scored on line 1" in messages[2]
    with pytest.raises(FormatError, match="no scores"):
        parse_scores("taskId questionId answerId score rank\n")
    rows, overall, warnings = compare(parse_scores("1 q a 1\n1 q b 2\n1 q c 3\n"), parse_scores("1 q a 1\n1 q b 2\n"))
    assert rows[0].answers == 2 and len(warnings) == 1 and "no human score" in warnings[0]


# Three annotators for a1 (5, 1, 1) and two for a2 (2, 2): the medians 1 and 2 put a2 above a1,
# the means (2.33 and 2) and the first annotator alone (5 against 2) put a1 above a2.
# a3 has one annotator; q2's a1 one, a2 two (in a second file).
AEOLLM_ANNOTATORS = """taskId questionId answerId score
1 q1 a1 5
1 q1 a1 1
1 q1 a1 1
1 q1 a2 2
1 q1 a2 2
1 q1 a3 0
1 q2 a1 2
"""
AEOLLM_ANNOTATORS_MORE = "1 q2 a2 4\n1 q2 a2 4\n"


def test_aeollm_human_score_is_the_median_of_the_annotators(tmp_path):
    from sepia.metaeval.aeollm import read_human_scores

    (tmp_path / "h1.txt").write_text(AEOLLM_ANNOTATORS)
    (tmp_path / "h2.txt").write_text(AEOLLM_ANNOTATORS_MORE)
    human, several = read_human_scores([tmp_path / "h1.txt", tmp_path / "h2.txt"])
    assert human == {("1", "q1", "a1"): 1.0, ("1", "q1", "a2"): 2.0, ("1", "q1", "a3"): 0.0,
                     ("1", "q2", "a1"): 2.0, ("1", "q2", "a2"): 4.0}
    assert several == 3                 # q1 a1, q1 a2, q2 a2 (two lines in the second file)
    # a prediction file must still score each answer once
    with pytest.raises(FormatError, match="already scored on line 1"):
        parse_scores("1 q1 a1 0.5\n1 q1 a1 0.7\n")


def test_aeollm_leaderboard_ranks_by_acc_then_tau_and_shares_ranks():
    from sepia.metaeval.aeollm import leaderboard

    human = parse_scores(AEOLLM_HUMAN)
    perfect = parse_scores(AEOLLM_PRED.replace("1 q2 a1 0.3 1", "1 q2 a1 0.05 2"))
    entries, warnings = leaderboard({"as_is": parse_scores(AEOLLM_PRED), "fixed": perfect, "twin": dict(perfect)},
                                    human)
    # "fixed" orders q2 as the humans do: task 1 acc = mean(2/3, 1), overall mean(5/6, 1) = 11/12
    assert [(e.rank, e.run) for e in entries] == [(1, "fixed"), (1, "twin"), (3, "as_is")]
    assert entries[0].overall.acc == pytest.approx(11 / 12)
    assert entries[2].overall.acc == pytest.approx(np.mean([1 / 3, 1]))    # as in test_aeollm_report_by_hand
    assert warnings == {"as_is": [], "fixed": [], "twin": []}


def test_aeollm_command_leaderboard(tmp_path):
    import json

    from click.testing import CliRunner

    from sepia.cli import main

    (tmp_path / "human.txt").write_text(AEOLLM_ANNOTATORS + AEOLLM_ANNOTATORS_MORE)
    # run_a agrees with the medians on every pair; run_b puts a1 above a2, as the means would
    (tmp_path / "run_a.txt").write_text("1 q1 a1 0.2 2\n1 q1 a2 0.6 1\n1 q1 a3 0.1 3\n1 q2 a1 0.1 2\n1 q2 a2 0.9 1\n")
    (tmp_path / "run_b.txt").write_text("1 q1 a1 0.9 1\n1 q1 a2 0.6 2\n1 q1 a3 0.1 3\n1 q2 a1 0.1 2\n1 q2 a2 0.9 1\n")
    args = ["metaeval", "aeollm", "--pred", str(tmp_path / "run_b.txt"), "--pred", str(tmp_path / "run_a.txt"),
            "--human", str(tmp_path / "human.txt")]
    result = CliRunner().invoke(main, args + ["--format", "json"])
    assert result.exit_code == 0, result.output
    board = json.loads(result.stdout)["leaderboard"]
    assert [(e["rank"], e["run"]) for e in board] == [(1, "run_a"), (2, "run_b")]
    # run_b: q1 has 3 pairs, (a1, a2) reversed: 2/3; q2: 1 -> acc 5/6; tau-b on q1 = (2 - 1) / 3
    assert board[1]["overall"]["acc"] == pytest.approx(5 / 6)
    assert board[1]["overall"]["tau"] == pytest.approx(np.mean([1 / 3, 1]))
    assert board[0]["overall"]["acc"] == pytest.approx(1.0)
    table = CliRunner().invoke(main, args)
    assert table.output.splitlines()[0].split() == ["rank", "run", "answers", "acc", "tau", "rho", "acc", "1"]
    assert "median of the annotators for 3 of 5 answers" in table.output
    missing = tmp_path / "run_c.txt"
    missing.write_text("9 q9 a1 0.5\n")
    result = CliRunner().invoke(main, args + ["--pred", str(missing)])
    assert result.exit_code == 1 and "run_c" in result.output

