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
    rows = {r.assessor: r for r in assessor_quality(_units(), {("match", "alice"): [3.0, 10.0, 4.0], ("vote", "bob"): [1.0]})}
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


# ---------------------------------------------------------------- score change between two rounds

def _round_campaign():
    from sepia.formats.model import Answer, CCLQARun, CCLQATopic, Metadata

    nuggets = [GoldNugget("N1", "a", votes=[("v", True)]), GoldNugget("N2", "b", votes=[("v", True)])]
    gold = GoldStandard("CS", [GoldTopic("ACLIA2-CS-0001", "PERSON", [], nuggets),
                               GoldTopic("ACLIA2-CS-0002", "PERSON", [], nuggets)])
    run = CCLQARun(Metadata("TEAM-CS-CS-01-T"), [CCLQATopic("ACLIA2-CS-0001", [Answer(1, "x")]),
                                                CCLQATopic("ACLIA2-CS-0002", [Answer(1, "y")])])
    return gold, run


def _j(topic, nugget, match, assessor):
    return Judgment(f"ACLIA2-CS-000{topic}", "TEAM-CS-CS-01-T", 1, nugget, match, assessor)


def test_score_change_split_by_topic_and_assessor_by_hand():
    from sepia.metaeval.rounds import score_change
    from sepia.scoring.evaluate import Settings

    gold, run = _round_campaign()
    before = [_j(1, "N1", 0, "alice"), _j(1, "N2", 0, "alice"),
              _j(2, "N1", 0, "bob"), _j(2, "N1", 0, "carol"), _j(2, "N2", 0, "bob"), _j(2, "N2", 0, "carol")]
    # topic 1: alice alone finds N1; topic 2: bob and carol both find N1, and one of two is a match
    # (at least half), so either change alone flips it: they share that topic's change equally.
    after = [_j(1, "N1", 1, "alice"), _j(1, "N2", 0, "alice"),
             _j(2, "N1", 1, "bob"), _j(2, "N1", 1, "carol"), _j(2, "N2", 0, "bob"), _j(2, "N2", 0, "carol")]
    [change] = score_change(gold, [run], before, after, Settings(allowance=1000))
    f_half = 10 * 1 * 0.5 / (9 * 1 + 0.5)  # precision 1 (allowance 1000), recall 1/2
    assert change.before == 0 and change.after == pytest.approx(f_half)
    assert change.by_topic == pytest.approx({"ACLIA2-CS-0001": f_half / 2, "ACLIA2-CS-0002": f_half / 2})
    assert change.by_assessor == pytest.approx({"alice": f_half / 2, "bob": f_half / 4, "carol": f_half / 4})
    assert sum(change.by_assessor.values()) == pytest.approx(change.change)


def test_an_adjudication_that_overrules_is_its_own_part():
    from sepia.metaeval.rounds import score_change
    from sepia.scoring.evaluate import Settings

    gold, run = _round_campaign()
    before = [_j(1, "N1", 1, "alice"), _j(1, "N1", 0, "bob")]  # one of two: a match
    after = before + [_j(1, "N1", 0, ADJUDICATED)]  # the organiser decides: no match
    [change] = score_change(gold, [run], before, after, Settings(allowance=1000))
    f_half = 5 / 9.5
    assert change.change == pytest.approx(-f_half / 2)
    assert change.by_assessor == pytest.approx({ADJUDICATED: -f_half / 2})
    [same] = score_change(gold, [run], before, before, Settings(allowance=1000))
    assert same.change == 0 and same.by_topic == {} and same.by_assessor == {}


# ---------------------------------------------------------------- the command

def test_agreement_command_by_group_and_between_rounds(tmp_path):
    import json
    from pathlib import Path

    from click.testing import CliRunner

    from sepia.cli import main
    from sepia.formats.judgments import read_judgments

    sample = Path(__file__).resolve().parents[1] / "corpora" / "cs"
    source = (sample / "judgments.tsv").read_text(encoding="utf-8").splitlines()
    # the second round: cs-a2 now sees a nugget that nobody saw in any of TEAMA's responses to a topic
    rows = [line.split("\t") for line in source[1:]]
    seen = {(r[0], r[3]) for r in rows if r[1] == "TEAMA-CS-CS-01-T" and r[4] != "0"}
    index = 1 + next(i for i, r in enumerate(rows) if r[1] == "TEAMA-CS-CS-01-T" and r[5] == "cs-a2"
                     and (r[0], r[3]) not in seen)
    cells = source[index].split("\t")
    cells[4] = "1"
    after = tmp_path / "after.tsv"
    after.write_text("\n".join(source[:index] + ["\t".join(cells)] + source[index + 1:]) + "\n", encoding="utf-8")
    args = ["agreement", "--gold", str(sample / "gold.xml"), "--judgments", str(sample / "judgments.tsv"),
            "--by", "assessor", "--by", "topic", "--by", "run", "--format", "json"]
    result = CliRunner().invoke(main, args + ["--after", str(after), "--run", str(sample / "runs")])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    quality = {(r["kind"], r["assessor"]): r for r in report["by"]["assessor"]["quality"]}
    assert quality["match", "cs-a2"]["items"] == len({(j.topic_id, j.run_id, j.answer_rank, j.nugget_id)
                                                      for j in read_judgments(sample / "judgments.tsv")
                                                      if j.assessor == "cs-a2"})
    assert set(report["by"]["disputes"]) == {"assessor", "topic", "run"}
    changes = {c["run_id"]: c for c in report["changes"]}
    moved = changes["TEAMA-CS-CS-01-T"]
    assert sum(moved["by_assessor"].values()) == pytest.approx(moved["change"])
    assert moved["change"] > 0 and list(moved["by_assessor"]) == ["cs-a2"] and list(moved["by_topic"]) == [cells[0]]
    assert all(c["change"] == 0 for r, c in changes.items() if r != "TEAMA-CS-CS-01-T")
    table = CliRunner().invoke(main, args[:-2] + ["--by", "type"])
    assert "Cohen's kappa per pair" in table.output and "Disputes by type" in table.output
    assert "kappa 3 cat." in table.output
    refused = CliRunner().invoke(main, args + ["--after", str(after)])
    assert refused.exit_code == 2 and "--after and --run go together" in refused.output


@pytest.mark.parametrize("weights, wt", [(None, None), ("linear", "linear"), ("quadratic", "quadratic")])
def test_cohen_kappa_equals_statsmodels_on_a_contingency_table(weights, wt):
    from statsmodels.stats.inter_rater import cohens_kappa

    # four relevance levels, 40 documents: first rater's level x second rater's level
    table = np.array([[8, 2, 1, 0], [1, 6, 3, 0], [0, 2, 7, 2], [0, 0, 1, 7]])
    first = [i for i in range(4) for j in range(4) for _ in range(table[i, j])]
    second = [j for i in range(4) for j in range(4) for _ in range(table[i, j])]
    expected = cohens_kappa(table, wt=wt).kappa if wt else cohens_kappa(table).kappa
    assert cohen_kappa(first, second, [0, 1, 2, 3], weights) == pytest.approx(expected)


def test_before_and_after_adjudication_as_the_store_exports_them():
    """before = each assessor's own (export --individual), after = the official ones (export): the
    change goes half to the decision, half to the overruled assessor; who agreed with it gets none."""
    from sepia.metaeval.rounds import score_change
    from sepia.scoring.evaluate import Settings

    gold, run = _round_campaign()
    before = [_j(1, "N1", 1, "alice"), _j(1, "N1", 0, "bob")]  # one of two: a match
    after = [_j(1, "N1", 0, ADJUDICATED)]  # the decision replaces both
    [change] = score_change(gold, [run], before, after, Settings(allowance=1000))
    f_half = 5 / 9.5
    assert change.by_assessor == pytest.approx({"alice": -f_half / 4, ADJUDICATED: -f_half / 4})
    assert change.change == pytest.approx(-f_half / 2)
