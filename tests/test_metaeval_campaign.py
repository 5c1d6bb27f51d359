"""Assessor disputes, the automatic-vs-human listing, the campaign report and the two commands."""
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.formats.model import (Answer, CCLQARun, CCLQATopic, GoldNugget, GoldStandard, GoldTopic, Judgment,
                                 Metadata)
from sepia.metaeval.agreement import fleiss_kappa
from sepia.metaeval.disagreement import disagreements
from sepia.metaeval.disputes import agreement_table, assessor_disputes, judgment_items, split_items, vote_items

SAMPLE = Path(__file__).resolve().parents[1] / "corpora" / "cs"


def _gold():
    votes = {
        "N1": [("a", True), ("b", True), ("c", True)],
        "N2": [("a", True), ("b", False), ("c", False)],   # a alone says vital
        "N3": [("a", False), ("b", True), ("c", True)],    # a alone says not vital
        "N4": [("a", True), ("b", True), ("c", False)],    # c alone
    }
    nuggets = [GoldNugget(n, f"nugget {n}", votes=v) for n, v in votes.items()]
    counted = [GoldNugget("M1", "counted only", vital_count=1, voter_count=2)]
    return GoldStandard("CS", [GoldTopic("T-CS-0001", "DEFINITION", nuggets=nuggets),
                               GoldTopic("T-JA-0001", "PERSON", nuggets=counted)])


def test_vote_agreement_per_language_and_lone_dissent():
    labelled = vote_items(_gold())
    rows = {(r.kind, r.lang): r for r in agreement_table(labelled)}
    cs = rows[("vote", "CS")]
    # counts per nugget (not vital, vital): [0,3] [2,1] [1,2] [1,2] -> Fleiss by definition
    assert cs.kappa == pytest.approx(fleiss_kappa([[0, 3], [2, 1], [1, 2], [1, 2]]))
    assert cs.items == 4 and cs.decisions == 12 and cs.assessors == 3
    assert cs.observed == pytest.approx((6 + 2 + 2 + 2) / 24)   # agreeing ordered pairs / all ordered pairs
    assert rows[("vote", "JA")].items == 1 and rows[("vote", "ALL")].items == 5
    dissent = {d.assessor: d for d in assessor_disputes([i for _, i in labelled])}
    assert (dissent["a"].lone_dissents, dissent["a"].decided) == (2, 4)
    assert dissent["c"].share == pytest.approx(0.25) and dissent["b"].lone_dissents == 0
    assert [d.assessor for d in assessor_disputes([i for _, i in labelled])] == ["a", "c", "b"]


def test_split_items_most_disputed_first():
    labelled = vote_items(_gold())
    splits = split_items([i for _, i in labelled])
    assert splits[0].label.startswith("T-JA-0001 M1") and splits[0].minority == 0.5   # 1 of 2
    assert {s.label.split(":")[0] for s in splits[1:]} == {"T-CS-0001 N2", "T-CS-0001 N3", "T-CS-0001 N4"}
    assert all("N1" not in s.label for s in splits)     # unanimous
    n2 = next(s for s in splits if "N2" in s.label)
    assert n2.dissenters == ("a",) and n2.yes == 1
    assert len(split_items([i for _, i in labelled], limit=2)) == 2


def test_judgment_items_group_by_response_and_nugget():
    judgments = [Judgment("T-CS-0001", "R1", 1, "N1", True, "a"), Judgment("T-CS-0001", "R1", 1, "N1", False, "b"),
                 Judgment("T-CS-0001", "R1", 2, "N1", True, "a")]
    labelled = judgment_items(judgments)
    assert len(labelled) == 2 and labelled[0][0] == "CS"
    row = agreement_table(labelled)[0]
    assert (row.kind, row.items, row.decisions) == ("judgment", 1, 2)


def _run(run_id, answers):
    return CCLQARun(Metadata(run_id), [CCLQATopic("T-CS-0001", [Answer(r, t) for r, t in answers])])


def test_disagreement_listing():
    gold = GoldStandard("CS", [GoldTopic("T-CS-0001", "DEFINITION", nuggets=[
        GoldNugget("N1", "嫦娥一号卫星", votes=[("a", True)]), GoldNugget("N2", "月球探测", votes=[("a", True)])])])
    run = _run("TEAM-CS-CS-01-T", [(1, "嫦娥一号是人造星"), (2, "月球探测工程")])
    judgments = [Judgment("T-CS-0001", "TEAM-CS-CS-01-T", 1, "N1", False, "a"),   # overlap 5/6 > 0.5, humans say no
                 Judgment("T-CS-0001", "TEAM-CS-CS-01-T", 2, "N2", True, "a"),    # overlap 1: both
                 Judgment("T-CS-0001", "TEAM-CS-CS-01-T", 1, "N2", True, "a"),    # overlap 0: human only
                 Judgment("T-CS-0001", "TEAM-CS-CS-01-T", 9, "N2", True, "a")]    # no such answer
    report = disagreements(gold, [run], judgments)
    assert report.counts == {"both": 1, "neither": 0, "automatic only": 1, "human only": 1}
    assert report.unknown == 1
    auto, human = sorted(report.rows, key=lambda r: r.kind)
    assert auto.kind == "automatic only" and auto.overlap == pytest.approx(5 / 6) and auto.response == "嫦娥一号是人造星"
    assert human.kind == "human only" and human.overlap == 0.0
    assert report.by_group[("T-CS-0001", "DEFINITION")]["both"] == 1


needs_sample = pytest.mark.skipif(not (SAMPLE / "gold.xml").exists(), reason="sample corpus not present")


@needs_sample
@pytest.mark.slow
def test_metaeval_command_on_the_sample_campaign(tmp_path):
    args = ["metaeval", "--gold", str(SAMPLE / "gold.xml"), "--run", str(SAMPLE / "runs"),
            "--judgments", str(SAMPLE / "judgments.tsv"), "--permutations", "100", "--repetitions", "10",
            "--plots", str(tmp_path / "plots"), "--format", "json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["matchers"] == ["binarized", "softmatch", "exact"]
    assert set(report["correlations"]["binarized"]) == {"system", "input", "item", "global"}
    assert report["discriminative_power"]["system"]["tau_b"] is not None
    human = [r["human"] for r in report["scores"]]
    assert human == sorted(human, reverse=True)
    assert sorted(p.name for p in (tmp_path / "plots").iterdir()) == [
        "pvalue_curves.png", "pvalue_curves.svg", "scatter_runs.png", "scatter_runs.svg"]
    again = CliRunner().invoke(main, args)
    assert json.loads(again.stdout)["discriminative_power"] == report["discriminative_power"]  # seeded
    table = CliRunner().invoke(main, args[:-2])
    assert "Discriminative power" in table.output and "Kendall tau" in table.output


@needs_sample
def test_agreement_command_on_the_sample_campaign():
    result = CliRunner().invoke(main, ["agreement", "--gold", str(SAMPLE / "gold.xml"),
                                       "--judgments", str(SAMPLE / "judgments.tsv"), "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    kinds = {r["kind"] for r in report["agreement"]}
    assert kinds == {"vote", "judgment"}
    assert all(-1 <= r["kappa"] <= 1 for r in report["agreement"] if r["kappa"] is not None)


def test_commands_reject_bad_input(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["metaeval"])
    assert result.exit_code == 2 and "needs --gold" in result.output
    bad = tmp_path / "pred.txt"
    bad.write_text("1 q1 a1 oops 1\n1 q1 a2 0.5 2\n", encoding="utf-8")
    human = tmp_path / "human.txt"
    human.write_text("1 q1 a1 1\n1 q1 a2 2\n", encoding="utf-8")
    result = runner.invoke(main, ["metaeval", "aeollm", "--pred", str(bad), "--human", str(human)])
    assert result.exit_code == 1 and f"{bad}:1:" in result.output
    bad.write_text("1 q1 a1 0.2 2\n1 q1 a2 0.5 1\n", encoding="utf-8")
    result = runner.invoke(main, ["metaeval", "aeollm", "--pred", str(bad), "--human", str(human), "--format", "json"])
    assert result.exit_code == 0, result.output
    overall = json.loads(result.stdout)["overall"]
    assert (overall["acc"], overall["tau"], overall["rho"]) == pytest.approx((1.0, 1.0, 1.0))
