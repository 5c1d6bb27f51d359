"""Partial and graded nugget judgments (match 1, 0.5, 0), the human matcher's best judgment, --partial,
TREC RAG's four nugget scores against castorini/nuggetizer's own `core/metrics.py`, and the store."""
from __future__ import annotations

import json
import random
import statistics
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import func, select, text

from sepia.cli import main
from sepia.convert.nuggetizer import convert_nuggetizer, write_conversion
from sepia.formats import model
from sepia.formats.errors import FormatError
from sepia.formats.judgments import judgments_to_tsv, parse_judgments
from sepia.scoring.evaluate import evaluate_runs
from sepia.matchers.decisions import upper_median
from sepia.matchers.human import HumanMatcher
from sepia.store.exchange.gold import import_gold
from sepia.store.exchange.judgments import export_judgments, import_judgments
from sepia.store.exchange.runs import import_run
from sepia.store import models as db

ROOT = Path(__file__).resolve().parents[1]
RAG24 = ROOT.parent / "shared" / "data" / "trec-rag24" / "rag24_nugget_assignment.20241108.jl"
needs_rag24 = pytest.mark.skipif(not RAG24.exists(), reason="TREC RAG 2024 data not in ../shared/data")
HEADER = "topic_id\trun_id\tanswer_rank\tnugget_id\tmatch\tassessor\n"


def nuggetizer_metrics():
    """castorini/nuggetizer's metrics module (pip install nuggetizer; it is in the test extra)."""
    return pytest.importorskip("nuggetizer.core.metrics",
                               reason="castorini/nuggetizer is not installed (pip install nuggetizer)")


# ---------------------------------------------------------------- the TSV

def test_tsv_takes_half_and_keeps_old_files_valid():
    old = parse_judgments(HEADER + "A-CS-1\tT-CS-CS-01-T\t1\tN1\t1\ta\nA-CS-1\tT-CS-CS-01-T\t1\tN2\t0\ta\n")
    assert [j.match for j in old] == [1, 0]
    rows = parse_judgments(HEADER + "A-CS-1\tT-CS-CS-01-T\t1\tN1\t0.5\ta\n")
    assert rows[0].match == 0.5
    assert judgments_to_tsv(old + rows) == (HEADER + "A-CS-1\tT-CS-CS-01-T\t1\tN1\t1\ta\n"
                                            "A-CS-1\tT-CS-CS-01-T\t1\tN2\t0\ta\nA-CS-1\tT-CS-CS-01-T\t1\tN1\t0.5\ta\n")


@pytest.mark.parametrize("value", ["0.25", "yes", ".5", "2", "-1", "0,5"])
def test_tsv_refuses_other_values(value):
    with pytest.raises(FormatError) as error:
        parse_judgments(HEADER + f"A-CS-1\tT-CS-CS-01-T\t1\tN1\t{value}\ta\n", "j.tsv")
    assert str(error.value.problems[0]) == f"j.tsv:2:26: match must be 1, 0 or 0.5, got {value!r}"


def test_validate_accepts_half(tmp_path):
    path = tmp_path / "j.tsv"
    path.write_text(HEADER + "A-CS-1\tT-CS-CS-01-T\t1\tN1\t0.5\ta\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 0, result.output


# ---------------------------------------------------------------- combining assessors, best judgment

@given(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=1, max_size=9))
def test_assessors_combine_by_the_upper_median(values):
    assert upper_median(values) == statistics.median_high(values)
    if set(values) <= {0.0, 1.0}:  # the old rule: a match when at least half said so
        assert upper_median(values) == (1.0 if 2 * sum(values) >= len(values) else 0.0)


def test_human_matcher_takes_the_best_judgment_over_the_answers():
    nuggets = [model.GoldNugget(f"N{i}", "x") for i in (1, 2, 3)]
    answers = [model.Answer(1, "a"), model.Answer(2, "b")]
    j = [model.Judgment("A-CS-1", "T-CS-CS-01-T", 1, "N1", 0.5, "a"),
         model.Judgment("A-CS-1", "T-CS-CS-01-T", 2, "N1", 0.0, "a"),
         model.Judgment("A-CS-1", "T-CS-CS-01-T", 1, "N2", 0.5, "a"),
         model.Judgment("A-CS-1", "T-CS-CS-01-T", 2, "N2", 1.0, "a"),
         model.Judgment("A-CS-1", "T-CS-CS-01-T", 2, "N3", 0.0, "a")]
    matcher = HumanMatcher(j)
    assert matcher.scores("T-CS-CS-01-T", "A-CS-1", nuggets, answers) == [0.5, 1.0, 0.0]
    assert HumanMatcher(j, partial=0).credit([0.5, 1.0, 0.0]) == [0.0, 1.0, 0.0]
    assert HumanMatcher(j, partial=1).credit([0.5, 1.0, 0.0]) == [1.0, 1.0, 0.0]


@pytest.mark.parametrize("partial", [0.0, 0.5, 1.0])
def test_f3_with_partial_matches_by_hand(partial):
    """r = sum of w(n) m(n), a = sum of m(n): weights 1, 0.5, 0.5; N1 partial, N2 full, N3 none."""
    gold = model.GoldStandard("CS", [model.GoldTopic("A-CS-1", "WHY", [], [
        model.GoldNugget("N1", "甲乙", votes=[("v", True), ("w", True)]),
        model.GoldNugget("N2", "丙丁", votes=[("v", True), ("w", False)]),
        model.GoldNugget("N3", "戊己", votes=[("v", False), ("w", True)])])])
    run = model.CCLQARun(model.Metadata("T-CS-CS-01-T"), [model.CCLQATopic("A-CS-1", [model.Answer(1, "甲" * 10)])])
    j = [model.Judgment("A-CS-1", "T-CS-CS-01-T", 1, "N1", 0.5, "a"),
         model.Judgment("A-CS-1", "T-CS-CS-01-T", 1, "N2", 1.0, "a")]
    [result] = evaluate_runs(gold, [run], matcher="human", judgments=j, partial=partial, allowance=4)
    recall = (partial * 1 + 0.5) / 2
    allowance = 4 * (partial + 1)
    precision = min(1.0, allowance / 10)
    f3 = 10 * precision * recall / (9 * precision + recall) if recall else 0.0
    topic = result.topics[0]
    assert (topic.recall, topic.matched, topic.allowance) == pytest.approx((recall, partial + 1, allowance))
    assert result.score == pytest.approx(f3)


def test_cli_partial_flag(tmp_path):
    gold = ROOT / "corpora" / "cs" / "gold.xml"
    run = ROOT / "corpora" / "cs" / "runs" / "TEAMA-CS-CS-01-T.xml"
    rows = parse_judgments((ROOT / "corpora" / "cs" / "judgments.tsv").read_text(encoding="utf-8"))
    halved = [model.Judgment(j.topic_id, j.run_id, j.answer_rank, j.nugget_id, 0.5 if j.match else 0.0, j.assessor)
              for j in rows]
    path = tmp_path / "half.tsv"
    path.write_text(judgments_to_tsv(halved), encoding="utf-8")
    scores = {}
    for partial in ("0", "0.5", "1"):
        result = CliRunner().invoke(main, ["evaluate", "--gold", str(gold), "--run", str(run), "--matcher", "human",
                                           "--judgments", str(path), "--partial", partial, "--format", "json"])
        assert result.exit_code == 0, result.output
        document = json.loads(result.stdout)
        assert document["settings"]["partial"] == float(partial)
        scores[partial] = document["runs"][0]["score"]
    whole = CliRunner().invoke(main, ["evaluate", "--gold", str(gold), "--run", str(run), "--matcher", "human",
                                      "--judgments", str(ROOT / "corpora" / "cs" / "judgments.tsv"), "--format", "json"])
    assert scores["0"] == 0 and scores["1"] == pytest.approx(json.loads(whole.stdout)["runs"][0]["score"])
    assert 0 < scores["0.5"] < scores["1"]


# ---------------------------------------------------------------- TREC RAG's four scores

def _random_records(seed: int) -> list[dict]:
    rng = random.Random(seed)
    records = []
    topics = {}
    for q in range(6):
        n = rng.randint(1, 7)
        importance = ["vital" if rng.random() < 0.5 else "okay" for _ in range(n)]
        if q == 0:
            importance = ["okay"] * n  # no vital nugget: nuggetizer's vital scores are 0
        topics[f"2024-{q}"] = [(f"fact {q} {i}", imp) for i, imp in enumerate(importance)]
    for r in range(5):
        for qid, nuggets in topics.items():
            if rng.random() < 0.2:
                continue  # not answered
            records.append({"qid": qid, "query": f"q {qid}", "run_id": f"run{r}", "answer_text": f"answer {r} {qid}",
                            "nuggets": [{"text": t, "importance": i,
                                         "assignment": rng.choice(["support", "partial_support", "not_support"])}
                                        for t, i in nuggets]})
    return records


def _check_against_nuggetizer(records: list[dict], path: Path, tmp_path: Path) -> int:
    metrics = nuggetizer_metrics()
    conversion = convert_nuggetizer(path)
    out = write_conversion(conversion, tmp_path / "out")
    result = CliRunner().invoke(main, ["evaluate", "--gold", str(out / "gold.xml"), "--run", str(out / "runs"),
                                       "--matcher", "human", "--judgments", str(out / "judgments.tsv"),
                                       "--measures", "nuggetizer", "--format", "json"])
    assert result.exit_code == 0, result.output
    runs = {r["run_id"]: r for r in json.loads(result.stdout)["runs"]}
    by_run = defaultdict(list)
    for record in records:
        by_run[record["run_id"]].append(record)
    topics = len({r["qid"] for r in records})
    names = {"strict_vital": "strict_vital_score", "vital": "vital_score", "strict_all": "strict_all_score",
             "all": "all_score"}
    for original, mine in by_run.items():
        theirs = metrics.calculate_global_metrics(mine)
        ours = runs[conversion.run_ids[original]]["nuggetizer"]
        assert ours["answered"] == len(mine) and ours["topics"] == topics
        for measure, name in names.items():
            assert ours["answered_topics"][measure] == pytest.approx(theirs[name], abs=1e-12), (original, measure)
            per_topic = [getattr(metrics.calculate_nugget_scores(r["qid"], r["nuggets"]), name) for r in mine]
            assert ours["all_topics"][measure] == pytest.approx(sum(per_topic) / topics, abs=1e-12)
        topic_rows = {t["topic_id"]: t["nuggetizer"] for t in runs[conversion.run_ids[original]]["topics"]}
        for record in mine:
            theirs_topic = metrics.calculate_nugget_scores(record["qid"], record["nuggets"])
            assert topic_rows[conversion.topic_ids[record["qid"]]] == pytest.approx(
                {m: getattr(theirs_topic, n) for m, n in names.items()}, abs=1e-12)
    return len(by_run)


@pytest.mark.parametrize("seed", range(5))
def test_four_scores_equal_nuggetizer_on_random_assignments(tmp_path, seed):
    records = _random_records(seed)
    path = tmp_path / "random.jl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    assert _check_against_nuggetizer(records, path, tmp_path) == len({r["run_id"] for r in records})


@needs_rag24
@pytest.mark.slow
def test_four_scores_equal_nuggetizer_on_trec_rag24_all_45_runs(tmp_path):
    records = [json.loads(line) for line in RAG24.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert _check_against_nuggetizer(records, RAG24, tmp_path) == 45


def test_table_says_which_mean_is_which(tmp_path):
    records = _random_records(1)
    path = tmp_path / "random.jl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = write_conversion(convert_nuggetizer(path), tmp_path / "out")
    args = ["evaluate", "--gold", str(out / "gold.xml"), "--run", str(out / "runs"), "--matcher", "human",
            "--judgments", str(out / "judgments.tsv"), "--measures", "nuggetizer"]
    table = CliRunner().invoke(main, args).stdout
    assert "/all = mean over all topics of the set" in table and "/ans = mean over the topics answered" in table
    tsv = CliRunner().invoke(main, args + ["--format", "tsv"]).stdout.splitlines()
    assert tsv[0].endswith("\tstrict_vital\tvital\tstrict_all\tall")
    assert sum(line.split("\t")[2] == "ANSWERED" for line in tsv) == len({r["run_id"] for r in records})


# ---------------------------------------------------------------- the store and migration 0004

def _stored_sample(store, judgments):
    gold = model.GoldStandard("CS", [model.GoldTopic("X-CS-1", "WHY", [], [
        model.GoldNugget("N1", "甲", votes=[("a", True)]), model.GoldNugget("N2", "乙", votes=[("a", False)])])])
    run = model.CCLQARun(model.Metadata("T-CS-CS-01-T"), [model.CCLQATopic("X-CS-1", [
        model.Answer(1, "甲"), model.Answer(2, "乙")])])
    with store.transaction() as session:
        import_gold(session, gold)
        import_run(session, run)
        import_judgments(session, judgments)


def test_store_keeps_half(store):
    judgments = [model.Judgment("X-CS-1", "T-CS-CS-01-T", 1, "N1", 0.5, "a"),
                 model.Judgment("X-CS-1", "T-CS-CS-01-T", 2, "N2", 1.0, "a"),
                 model.Judgment("X-CS-1", "T-CS-CS-01-T", 2, "N1", 0.0, "b")]
    _stored_sample(store, judgments)
    with store.transaction() as session:
        assert sorted(export_judgments(session), key=str) == sorted(judgments, key=str)


def test_migration_0004_down_and_up_keeps_every_row(store):
    from alembic import command

    from sepia.store.db import alembic_config

    judgments = [model.Judgment("X-CS-1", "T-CS-CS-01-T", 1, "N1", 1.0, "a"),
                 model.Judgment("X-CS-1", "T-CS-CS-01-T", 2, "N2", 0.5, "a"),
                 model.Judgment("X-CS-1", "T-CS-CS-01-T", 2, "N1", 0.0, "b")]
    _stored_sample(store, judgments)
    cfg = alembic_config(store.engine)
    counts = {}
    with store.engine.connect() as connection:
        for table in ("response", "nugget", "run", "nugget_judgment"):
            counts[table] = connection.execute(text(f"SELECT COUNT(*) FROM {table}")).scalar()
    command.downgrade(cfg, "0003")
    with store.engine.connect() as connection:
        rows = connection.execute(text("SELECT assessor, match FROM nugget_judgment ORDER BY id")).all()
    assert [(a, bool(m)) for a, m in rows] == [("a", True), ("a", False), ("b", False)]  # 0.5 read strictly
    command.upgrade(cfg, "head")
    with store.engine.connect() as connection:
        for table, count in counts.items():
            assert connection.execute(text(f"SELECT COUNT(*) FROM {table}")).scalar() == count, table
    with store.transaction() as session:
        assert [j.match for j in export_judgments(session)] == [1.0, 0.0, 0.0]
        assert session.scalar(select(func.count()).select_from(db.NuggetJudgment)) == 3
