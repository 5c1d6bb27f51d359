"""Rubric judging: the rubric and grades files, the weighted score, agreement and disputes per
dimension against hand-computed values (and scikit-learn's and the `krippendorff` package's), the
store (both backends) and the `sepia rubric` commands feeding `sepia metaeval scores` and `aeollm`."""
from __future__ import annotations

import json
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.metrics import cohen_kappa_score

from sepia.cli import main
from sepia.formats.errors import FormatError
from sepia.formats.model import Answer, CCLQARun, CCLQATopic, Metadata
from sepia.formats.rubric import RubricError, RubricGrade, grades_tsv, parse_grades, parse_rubric
from sepia.metaeval.rubric_agreement import ScoreAgreement, agreement, score_agreement
from sepia.scoring.rubric import answer_scores, assessor_scores, long_tsv, run_scores
from sepia.store.exchange.runs import import_run
from sepia.store import rubric as store_rubric
from tests.helpers import accounts

RUBRIC = """
[[dimension]]
name = "correctness"
description = "Are the answer's statements true?"
weight = 2
anchors = ["Mostly wrong", "Half wrong", "One small error", "Everything right"]

[[dimension]]
name = "completeness"
anchors = ["Misses the point", "Some of it", "Most of it", "All of it"]

[[dimension]]
name = "fluency"
scale = [1, 3]
anchors = ["Hard to read", "Readable", "Reads well"]
"""
R1, R2 = "TEAMA-EN-EN-01-T", "TEAMB-EN-EN-01-T"


def grades(*rows) -> list[RubricGrade]:
    return [RubricGrade(*row) for row in rows]


def test_a_rubric_is_read_with_its_defaults_and_bad_ones_are_named():
    rubric = parse_rubric(RUBRIC)
    assert rubric.names == ["correctness", "completeness", "fluency"]
    correctness, completeness, fluency = rubric.dimensions
    assert (correctness.weight, correctness.low, correctness.high, correctness.label) == (2.0, 0, 3, "Correctness")
    assert (completeness.weight, list(completeness.grades)) == (1.0, [0, 1, 2, 3])
    assert fluency.anchor(1) == "Hard to read" and fluency.anchor(3) == "Reads well"
    bad = {
        'x = 1': "unknown top-level key 'x'",
        '[[dimension]]\nname = "Correct"\nanchors = ["a", "b", "c", "d"]': "name must be lower-case",
        '[[dimension]]\nname = "c"\nanchors = ["a", "b"]': "anchors must be a list of 4 texts",
        '[[dimension]]\nname = "c"\nscale = [0, 10]\nanchors = []': "HIGH <= 9",
        '[[dimension]]\nname = "c"\nweight = 0\nanchors = ["a", "b", "c", "d"]': "weight must be a number above 0",
        '[[dimension]]\nname = "c"\nanchors = ["a", " ", "c", "d"]': "anchor of grade 1 must be a text",
        '[[dimension]]\nname = "c"\nweights = 2\nanchors = ["a", "b", "c", "d"]': "unknown key 'weights'",
        RUBRIC + '[[dimension]]\nname = "fluency"\nanchors = ["a", "b", "c", "d"]': "'fluency' is defined twice",
        'dimension = [': "not TOML",
    }
    for text, message in bad.items():
        with pytest.raises(RubricError, match=message):
            parse_rubric(text)


def test_the_grades_tsv_round_trips_and_every_bad_line_is_named():
    rubric = parse_rubric(RUBRIC)
    given = grades(("T1", R1, "as1", "correctness", 3), ("T1", R1, "as1", "fluency", 1))
    assert parse_grades(grades_tsv(given), rubric) == sorted(given)
    text = ("topic_id\trun_id\tassessor\tdimension\tgrade\n"
            "T1\tR\tas1\tcorrectness\t3\n"
            "T1\tR\tas1\tstyle\t2\n"         # no such dimension
            "T1\tR\tas1\tfluency\t0\n"       # off the 1-3 scale
            "T1\tR\tas1\tcorrectness\t1\n"   # graded twice
            "T1\tR\tas1\tcompleteness\n"     # a field short
            "T1\t\tas1\tcompleteness\t2\n")  # no run
    with pytest.raises(FormatError) as exc:
        parse_grades(text, rubric, "g.tsv")
    assert [str(p) for p in exc.value.problems] == [
        "g.tsv:3:4: no dimension 'style' in the rubric; its dimensions are correctness, completeness, fluency",
        "g.tsv:4:5: grade '0' is not on the fluency scale 1-3",
        "g.tsv:5:1: as1 already graded correctness of run R on topic T1 on line 2",
        "g.tsv:6:1: expected 5 tab-separated fields (topic_id run_id assessor dimension grade), got 4",
        "g.tsv:7:2: run_id must have 1 to 200 characters"]
    with pytest.raises(FormatError, match="header must be topic_id run_id assessor dimension grade"):
        parse_grades("topic\trun\n", rubric)


# Two assessors on four answers, correctness (0-3): as1 0 1 2 3, as2 0 2 2 3.
PAIR = [("T1", R1, 0, 0), ("T2", R1, 1, 2), ("T1", R2, 2, 2), ("T2", R2, 3, 3)]


def _pair_grades():
    return grades(*[(t, r, a, "correctness", g) for t, r, g1, g2 in PAIR for a, g in (("as1", g1), ("as2", g2))])


def test_weighted_kappa_and_interval_alpha_by_hand_and_by_two_other_implementations():
    rubric = parse_rubric(RUBRIC)
    (kappa,) = agreement(rubric, _pair_grades()).pairs
    # Quadratic: observed sum w*O = (1-2)^2 = 1; expected sum_ij (i-j)^2 r_i c_j / n with r = 1,1,1,1 and
    # c = (1, 0, 2, 1): (17 + 7 + 5 + 11) / 4 = 10, so 1 - 1/10. Linear: (7 + 5 + 3 + 5) / 4 = 5, 1 - 1/5.
    assert (kappa.units, kappa.quadratic, kappa.linear) == (4, pytest.approx(0.9), pytest.approx(0.8))
    a, b = [p[2] for p in PAIR], [p[3] for p in PAIR]
    assert kappa.quadratic == pytest.approx(cohen_kappa_score(a, b, labels=[0, 1, 2, 3], weights="quadratic"))
    assert kappa.linear == pytest.approx(cohen_kappa_score(a, b, labels=[0, 1, 2, 3], weights="linear"))
    row = agreement(rubric, _pair_grades()).dimensions[0]
    # Interval alpha: pooled values 0,0,1,2,2,2,3,3 (n = 8); D_o = 2 * (1-2)^2 / 8 = 0.25;
    # D_e = 2 * sum_{c<k} n_c n_k (c-k)^2 / (n (n-1)) = 2 * 79 / 56; alpha = 1 - 14/158 = 144/158.
    assert row.alpha == pytest.approx(144 / 158)
    assert row.alpha == pytest.approx(krippendorff.alpha(np.array([a, b], float), level_of_measurement="interval"))
    assert (row.dimension, row.units, row.grades, row.assessors, row.exact, row.within_one, row.disputes) == (
        "correctness", 4, 8, 2, 0.75, 1.0, 0)
    assert [r.units for r in agreement(rubric, _pair_grades()).dimensions[1:]] == [0, 0]


def test_three_assessors_alpha_with_a_missing_grade_and_the_disputes():
    rubric = parse_rubric(RUBRIC)
    given = _pair_grades() + grades(("T1", R1, "as3", "correctness", 3), ("T2", R1, "as3", "correctness", 1),
                                    ("T1", R2, "as3", "correctness", 2))  # as3 left T2/R2 out
    data = np.array([[0, 1, 2, 3], [0, 2, 2, 3], [3, 1, 2, np.nan]], float)
    report = agreement(rubric, given)
    row = report.dimensions[0]
    assert row.alpha == pytest.approx(krippendorff.alpha(data, level_of_measurement="interval"))
    # Pairs: T1/R1 (0,0) (0,3) (0,3); T2/R1 (1,2) (1,1) (2,1); T1/R2 (2,2) x 3; T2/R2 (3,3): 10 pairs,
    # 1 + 1 + 3 + 1 = 6 equal, 1 + 3 + 3 + 1 = 8 within one grade; only T1/R1 spreads more than one.
    assert (row.exact, row.within_one, row.disputes) == (pytest.approx(6 / 10), pytest.approx(8 / 10), 1)
    (dispute,) = report.disputes
    assert (dispute.topic_id, dispute.run_id, dispute.spread, dispute.grades) == (
        "T1", R1, 3, (("as1", 0), ("as2", 0), ("as3", 3)))
    wider, none = agreement(rubric, given, tolerance=0), agreement(rubric, given, tolerance=3)
    assert len(wider.disputes) == wider.dimensions[0].disputes == 2 and none.disputes == [] and none.dimensions[0].disputes == 0
    assert [(p.first, p.second, p.units) for p in report.pairs] == [
        ("as1", "as2", 4), ("as1", "as3", 3), ("as2", "as3", 3)]


def test_weighted_scores_by_hand():
    rubric = parse_rubric(RUBRIC)
    given = grades(("T1", R1, "as1", "correctness", 3), ("T1", R1, "as1", "completeness", 2),
                   ("T1", R1, "as1", "fluency", 2), ("T1", R1, "as2", "correctness", 2),
                   ("T1", R1, "as2", "completeness", 2), ("T1", R1, "as2", "fluency", 3),
                   ("T2", R1, "as1", "correctness", 0), ("T2", R1, "as1", "completeness", 3),
                   ("T2", R1, "as1", "fluency", 1),
                   ("T1", R2, "as1", "correctness", 1))  # incomplete: left out
    answers, incomplete = answer_scores(rubric, given)
    # T1/R1: means 2.5, 2, 2.5 -> (2 * 2.5/3 + 1 * 2/3 + 1 * (2.5-1)/2) / 4 = (37/12) / 4 = 37/48.
    # T2/R1: (2 * 0 + 1 * 1 + 1 * 0) / 4 = 1/4.
    assert incomplete == 1 and [(a.topic_id, a.run_id, a.assessors) for a in answers] == [("T1", R1, 2), ("T2", R1, 1)]
    assert [a.score for a in answers] == [pytest.approx(37 / 48), pytest.approx(0.25)]
    (run,) = run_scores(rubric, answers)
    assert (run.run_id, run.topics, run.score) == (R1, 2, pytest.approx((37 / 48 + 0.25) / 2))
    assert run.grades == {"correctness": 1.25, "completeness": 2.5, "fluency": 1.75}
    # One assessor's own score: as1 on T1/R1 (2 * 1 + 2/3 + 0.5) / 4.
    own = assessor_scores(rubric, given)
    assert [(t, r, a) for t, r, a, _ in own] == [("T1", R1, "as1"), ("T1", R1, "as2"), ("T2", R1, "as1")]
    assert own[0][3] == pytest.approx((2 + 2 / 3 + 0.5) / 4)
    assert assessor_scores(rubric, given, "correctness")[0] == ("T1", R1, "as1", 3)
    # The weighted score's alpha: one answer with two different scores (19/24, 3/4): D_o = D_e, alpha 0.
    assert own[1][3] == pytest.approx((2 * 2 / 3 + 2 / 3 + 1) / 4)
    assert score_agreement(rubric, given) == ScoreAgreement(1, pytest.approx(0.0))
    assert long_tsv(rubric, answers).splitlines()[1] == f"{R1}\tT1\trubric\t0.770833"


# ---------------------------------------------------------------- the store and the commands

def _add_runs(session):
    for run_id, topics in ((R1, ("T1", "T2", "T3")), (R2, ("T1", "T2", "T3"))):
        import_run(session, CCLQARun(Metadata(run_id), [
            CCLQATopic(t, [Answer(1, f"One thing about {t} ({run_id[4]}).", []), Answer(2, "And another.", [])])
            for t in topics]))


def test_the_store_keeps_versions_refuses_stranding_grades_and_imports_all_or_nothing(store):
    with store.transaction() as session:
        _add_runs(session)
        assert store_rubric.set_rubric(session, RUBRIC, "org") == 1
        rubric = store_rubric.require(session)
        assert store_rubric.import_grades(session, parse_grades(grades_tsv(_pair_grades()), rubric)) == 8
    with store.transaction() as session:
        bad = grades(("T1", R1, "as9", "correctness", 1), ("T9", R1, "as9", "correctness", 1))
        with pytest.raises(RubricError, match=f"1 graded answers are not in the store .*: run {R1} topic T9"):
            store_rubric.import_grades(session, bad)
    with store.transaction() as session:
        assert store_rubric.grades(session) == sorted(_pair_grades())  # nothing of the bad file written
        narrower = RUBRIC.replace('anchors = ["Mostly wrong", "Half wrong", "One small error", "Everything right"]',
                                  'scale = [1, 3]\nanchors = ["Wrong", "Half", "Right"]')
        with pytest.raises(RubricError, match="stored grades of 'correctness' range 0-3, off the new scale 1-3"):
            store_rubric.set_rubric(session, narrower, "org")
        with pytest.raises(RubricError, match="8 stored grades are of dimension 'correctness', which the new"):
            store_rubric.set_rubric(session, RUBRIC.replace('"correctness"', '"accuracy"'), "org")
        assert store_rubric.set_rubric(session, RUBRIC.replace("weight = 2", "weight = 3"), "org") == 2
        assert store_rubric.require(session).dimensions[0].weight == 3
        # The queue: six answers, none graded on every dimension by as1 yet.
        todo, done = store_rubric.queue(session, "as1", store_rubric.require(session))
        assert (len(todo), done) == (6, 0)
        store_rubric.save_answer(session, todo[0], "as1", {"correctness": 1, "completeness": 2, "fluency": 3})
        store_rubric.save_answer(session, todo[0], "as1", {"correctness": 2, "completeness": 2, "fluency": 3})
        assert store_rubric.queue(session, "as1", store_rubric.require(session)) == (todo[1:], 1)
        shown = store_rubric.answer(session, todo[0], "as1")
        assert shown.grades == {"correctness": 2, "completeness": 2, "fluency": 3}
        assert shown.responses[1] == "And another." and shown.run_id in (R1, R2)
        with pytest.raises(ValueError, match="missing: Fluency"):
            store_rubric.save_answer(session, todo[1], "as1", {"correctness": 1, "completeness": 2})
        with pytest.raises(ValueError, match="Fluency: grade 0 is off the scale 1-3"):
            store_rubric.save_answer(session, todo[1], "as1", {"correctness": 1, "completeness": 2, "fluency": 0})


def test_answers_are_shared_out_topic_by_topic_as_pool_items_are(store):
    with store.transaction() as session:
        _add_runs(session)  # 3 topics x 2 runs: 6 answers
        accounts(session, "as1", "as2", "as3")
        store_rubric.set_rubric(session, RUBRIC, "org")
        rubric = store_rubric.require(session)
        every, _ = store_rubric.queue(session, "as9", rubric)
        topic = {i: store_rubric.answer(session, i, "as9").topic_id for i in every}
        graded = next(i for i in every if topic[i] == "T1")
        store_rubric.save_answer(session, graded, "as3", {"correctness": 1, "completeness": 2, "fluency": 3})
        with pytest.raises(ValueError, match="overlap needs at least two assessors"):
            store_rubric.assign_answers(session, ["as1"], 0.5)
        assert not store_rubric.shared_out(session) and store_rubric.progress(session, rubric) == []
        # By hand: as3 graded a T1 answer, so T1 stays with as3 (its other answer to as3) and its
        # second assessor is the next in as3's order, as1. T2 and T3, held by nobody, go to the least
        # loaded (as3 has one topic): T2 in turn 1 (as2, as3, as1) to as2, T3 in turn 2 (as3, as1,
        # as2) to as1, each overlap to the next assessor (as3, as2). Added: the 5 answers nobody held,
        # and one answer of each topic again (half of 2), to the topic's second assessor.
        assert store_rubric.assign_answers(session, ["as1", "as2", "as3"], 0.5, seed=7) == 5 + 3
        assert store_rubric.shared_out(session)
        queues = {a: store_rubric.queue(session, a, rubric)[0] for a in ("as1", "as2", "as3", "as9")}
        assert {a: sorted(topic[i] for i in q) for a, q in queues.items()} == {
            "as1": ["T1", "T3", "T3"], "as2": ["T2", "T2", "T3"], "as3": ["T1", "T2"], "as9": []}
        assert graded not in queues["as3"]  # the answer as3 graded: held, never handed to as3
        for q in queues.values():  # a topic's answers together in each queue
            assert [topic[i] for i in q] == sorted((topic[i] for i in q), key=[topic[i] for i in q].index)
        assert store_rubric.assign_answers(session, ["as1", "as2", "as3"], 0.5, seed=7) == 0  # nothing lacking
        store_rubric.save_answer(session, queues["as1"][0], "as1", {"correctness": 1, "completeness": 2, "fluency": 3})
        assert store_rubric.queue(session, "as1", rubric) == (queues["as1"][1:], 1)
        # Graded: an assessor's grades of their own assigned answers only; as3 graded an answer
        # assigned to as1 (for the overlap), which is neither as1's nor (unassigned to as3) as3's.
        assert graded in queues["as1"]
        assert store_rubric.progress(session, rubric) == [store_rubric.Progress("as1", 3, 1),
                                                          store_rubric.Progress("as2", 3, 0),
                                                          store_rubric.Progress("as3", 2, 0)]
        assert store_rubric.is_assigned(session, queues["as1"][0], "as1")
        assert not store_rubric.is_assigned(session, next(i for i in queues["as2"] if i not in queues["as1"]), "as1")


def _invoke(*args):
    """(exit code, standard output), or the error output when the command failed."""
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout if result.exit_code == 0 else result.output


def test_commands_from_set_to_metaeval(on_store, store_url, tmp_path):
    from sepia.store.db import Store

    s = Store(store_url)
    with s.transaction() as session:
        _add_runs(session)
        accounts(session, "as1", "as2", organisers=("org",), inactive=("gone",))
    rubric_file, grades_file = tmp_path / "rubric.toml", tmp_path / "grades.tsv"
    rubric_file.write_text(RUBRIC)
    assert _invoke("rubric", "show")[0] == 1
    assert _invoke("rubric", "set", str(rubric_file), "--author", "org") == (
        0, "Rubric version 1 set by org: 3 dimensions (correctness, completeness, fluency).\n")
    code, out = _invoke("rubric", "show")
    assert code == 0 and out.startswith("# version 1, set by org\n") and 'name = "fluency"' in out
    code, out = _invoke("rubric", "assign", "--assessor", "as1", "--overlap", "0.5")
    assert code == 2 and "overlap needs at least two assessors" in out
    # a typo, an organiser, a deactivated assessor: their answers would sit in nobody's queue
    code, out = _invoke("rubric", "assign", "--assessor", "as1", "--assessor", "as3", "--assessor", "org",
                        "--assessor", "gone")
    assert code == 2 and "not active assessors: as3, org, gone" in out
    code, out = _invoke("rubric", "assign", "--assessor", "as1", "--assessor", "as1")
    assert code == 2 and "assessors named more than once: as1" in out
    with s.transaction() as session:
        assert not store_rubric.shared_out(session)
    s.dispose()
    # every answer to the assessor of its topic, and one of each topic's two to the other as well
    assert _invoke("rubric", "assign", "--assessor", "as1", "--assessor", "as2", "--overlap", "0.5") == (
        0, "9 answers assigned to 2 assessors\n")
    # as1 and as2 grade every answer; T3 of R1 is where they disagree most.
    rows = []
    for t, r, c1, c2 in PAIR + [("T3", R1, 0, 3), ("T3", R2, 1, 1)]:
        for assessor, c in (("as1", c1), ("as2", c2)):
            rows += [(t, r, assessor, "correctness", c), (t, r, assessor, "completeness", c),
                     (t, r, assessor, "fluency", 3)]
    grades_file.write_text(grades_tsv(grades(*rows)))
    bad = tmp_path / "bad.tsv"
    bad.write_text(grades_tsv(grades(*rows)).replace("\tfluency\t3\n", "\tfluency\t4\n", 1))
    code, out = _invoke("rubric", "import", str(bad))
    assert code == 1 and ":5: grade '4' is not on the fluency scale 1-3" in out
    assert _invoke("rubric", "export")[1] == "topic_id\trun_id\tassessor\tdimension\tgrade\n"
    assert _invoke("rubric", "import", str(grades_file)) == (0, f"36 grades imported from {grades_file}.\n")
    assert _invoke("rubric", "export")[1] == grades_file.read_text()
    code, out = _invoke("rubric", "agreement")
    assert code == 0 and "correctness   T3     TEAMA-EN-EN-01-T  as1=0 as2=3       3" in out
    stored = json.loads(_invoke("rubric", "agreement", "--format", "json")[1])
    from_files = json.loads(_invoke("rubric", "agreement", "--format", "json", "--rubric", str(rubric_file),
                                    "--grades", str(grades_file))[1])
    assert stored == from_files and [d["dimension"] for d in stored["disputes"]] == ["correctness", "completeness"]
    assert stored["dimensions"][2]["alpha"] is None  # fluency: everyone gave 3, nothing to measure
    code, out = _invoke("rubric", "scores")
    assert code == 0 and out.splitlines()[1].split()[:2] == ["run", "topics"]

    # Meta-evaluation: the rubric's per-answer scores against an evaluator's, in both layouts.
    code, human = _invoke("rubric", "scores", "--format", "long")
    answers = {(line.split("\t")[1], line.split("\t")[0]): float(line.split("\t")[3])
               for line in human.splitlines()[1:]}
    (tmp_path / "human.tsv").write_text(human)
    (tmp_path / "judge.tsv").write_text("system\tinput\tmetric\tvalue\n" + "".join(
        f"{r}\t{t}\tjudge\t{v * 10:g}\n" for (t, r), v in answers.items()))
    code, out = _invoke("metaeval", "scores", str(tmp_path / "human.tsv"), str(tmp_path / "judge.tsv"),
                        "--human", "rubric", "--format", "json", "--permutations", "10", "--repetitions", "5")
    report = json.loads(out)
    assert code == 0, out
    (grid,) = report["groups"]
    assert grid["correlations"]["judge"]["global"]["pearson"] == pytest.approx(1.0)
    code, human = _invoke("rubric", "scores", "--format", "aeollm", "--dimension", "correctness")
    assert human.splitlines()[0] == f"cclqa T1 {R1} 0"  # as1's grade, one line per assessor
    (tmp_path / "human.txt").write_text(human)
    (tmp_path / "pred.txt").write_text(f"cclqa T1 {R1} 0 2\ncclqa T1 {R2} 2 1\ncclqa T2 {R1} 1 2\n"
                                       f"cclqa T2 {R2} 3 1\ncclqa T3 {R1} 1 1\ncclqa T3 {R2} 1 2\n")
    code, out = _invoke("metaeval", "aeollm", "--pred", str(tmp_path / "pred.txt"), "--human",
                        str(tmp_path / "human.txt"), "--format", "json")
    assert code == 0, out
    # Human medians per topic: T1 R1 0, R2 2; T2 R1 1.5, R2 3; T3 R1 1.5, R2 1. The evaluator (as1's
    # grades; 1 and 1 on T3) orders T1 and T2 as the humans do and ties T3's pair: acc = (1 + 1 + 0) / 3.
    assert json.loads(out)["overall"]["acc"] == pytest.approx(2 / 3)


# ---------------------------------------------------------------- the example of docs/rubric.md

DOCS = Path(__file__).resolve().parents[1] / "docs"
EXAMPLE = ("--rubric", str(DOCS / "examples" / "rubric.toml"), "--grades", str(DOCS / "examples" / "rubric-grades-cs.tsv"))


def test_the_docs_example_is_what_the_commands_print_and_what_two_other_implementations_compute():
    page = (DOCS / "rubric.md").read_text()
    for command in ("agreement", "scores"):
        code, out = _invoke("rubric", command, *EXAMPLE)
        assert code == 0 and f"$ sepia rubric {command}\n{out}```" in page, command
    rubric = parse_rubric((DOCS / "examples" / "rubric.toml").read_text())
    given = parse_grades((DOCS / "examples" / "rubric-grades-cs.tsv").read_text(), rubric)
    answers = sorted({(g.topic_id, g.run_id) for g in given})
    assessors = sorted({g.assessor for g in given})
    report = agreement(rubric, given)
    for row, dimension in zip(report.dimensions, rubric.dimensions):
        table = {(g.assessor, g.topic_id, g.run_id): g.grade for g in given if g.dimension == dimension.name}
        data = np.array([[table.get((a, *answer), np.nan) for answer in answers] for a in assessors], float)
        assert row.alpha == pytest.approx(krippendorff.alpha(data, level_of_measurement="interval"))
    own = {(a, t, r): score for t, r, a, score in assessor_scores(rubric, given)}
    data = np.array([[own[a, *answer] for answer in answers] for a in assessors])
    assert report.score == score_agreement(rubric, given)
    assert report.score.alpha == pytest.approx(
        krippendorff.alpha(data, level_of_measurement="interval"))
    for pair in report.pairs:
        dimension = rubric.dimension(pair.dimension)
        first, second = ([g.grade for g in sorted(given) if g.dimension == pair.dimension and g.assessor == who]
                         for who in (pair.first, pair.second))
        for weights in ("linear", "quadratic"):
            assert getattr(pair, weights) == pytest.approx(
                cohen_kappa_score(first, second, labels=list(dimension.grades), weights=weights))
