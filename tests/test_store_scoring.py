"""Scoring from the campaign store (`sepia evaluate --store`, `sepia evaluate-ir4qa --store`, the
library the web tool calls): the same output as from the files, on SQLite and PostgreSQL."""
import json

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from sepia.cli import main
from sepia.demo import collection_files, sample_collections
from sepia.ir4qa.qrels import combined_level, parse_qrels
from sepia.resources import resource_dir
from sepia.scoring.evaluate import Settings
from sepia.text.tokenize import Tokenizer
from sepia.services import scores
from sepia.services.scores import NothingToScore, score_stored_ir4qa, score_stored_runs
from sepia.store import models as db
from sepia.store.db import Store

COLLECTIONS = sample_collections(resource_dir("corpora"))
SETTINGS = {
    "binarized": [[], ["--theta", "0.3", "--beta", "1", "--weights", "binary", "--set"]],
    "softmatch": [[], ["--stem", "--stopwords", "--allowance", "20", "--allowance", "DEFINITION=30"]],
    "exact": [[], ["--weights", "proportion"]],
    "human": [[], ["--beta", "2", "--allowance", "15"]],
}


def run(*args):
    result = CliRunner().invoke(main, list(map(str, args)))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def cclqa_runs(folder):
    return sorted((folder / "runs").glob("*.xml"))


def ir4qa_runs(folder):
    return sorted((folder / "ir4qa").glob("*.xml"))


@pytest.mark.slow
def test_evaluate_store_prints_what_the_files_give_for_every_matcher(campaign_store):
    """Every format on SQLite; on PostgreSQL the JSON (every figure unrounded) only: what a backend
    does, reading the gold standard, runs and judgments and saving the scores, is the same whatever
    the format, which the same code then applies to the same results on both."""
    assert len(COLLECTIONS) == 3
    outputs = ("table", "json", "tsv") if campaign_store.engine.dialect.name == "sqlite" else ("json",)
    for folder in COLLECTIONS:
        files = collection_files(folder)
        runs = cclqa_runs(folder)
        selection = [a for path in runs for a in ("--run-id", path.stem)]
        for matcher, variants in SETTINGS.items():
            for flags in variants:
                for output in outputs:
                    common = ["--matcher", matcher, *flags, "--format", output]
                    judgments = ["--judgments", files["judgments"]] if matcher == "human" else []
                    from_files = run("evaluate", "--gold", files["gold"], *runs, *judgments, *common)
                    from_store = run("evaluate", "--store", *selection, *common)
                    assert from_files.exit_code == from_store.exit_code == 0, from_store.output
                    assert from_store.stdout == from_files.stdout, (folder.name, matcher, flags, output)
                    assert from_store.stderr == from_files.stderr


def test_evaluate_store_selects_runs_by_language_pair(campaign_store):
    cs = resource_dir("corpora") / "cs"
    from_files = run("evaluate", "--gold", cs / "gold.xml", cs / "runs" / "TEAMX-EN-CS-01-T.xml")
    from_store = run("evaluate", "--store", "--lang-pair", "en-cs")
    assert from_store.exit_code == 0 and from_store.stdout == from_files.stdout
    every = run("evaluate", "--store", "--format", "json").stdout
    assert len(json.loads(every)["runs"]) == 12  # every stored CCLQA run by default, not the IR4QA ones


def test_evaluate_ir4qa_store_equals_the_exported_qrels_and_the_sample_files(campaign_store, tmp_path):
    exported = tmp_path / "qrels.tsv"
    assert run("export", "qrels", "--out", exported).exit_code == 0
    runs = [p for folder in COLLECTIONS for p in ir4qa_runs(folder)]
    for flags in ([], ["--gains", "1:4", "--cutoff", "3"]):
        for output in ("table", "json", "tsv"):
            from_file = run("evaluate-ir4qa", "--qrels", exported, *runs, *flags, "--format", output)
            from_store = run("evaluate-ir4qa", "--store", *flags, "--format", output)
            assert from_file.exit_code == from_store.exit_code == 0, from_store.output
            assert from_store.stdout == from_file.stdout and from_store.stderr == from_file.stderr
    for folder in COLLECTIONS:  # one collection's qrels as shipped, one collection's runs from the store
        pair = f"{folder.name.upper()}-{folder.name.upper()}"
        from_file = run("evaluate-ir4qa", "--qrels", folder / "qrels.tsv", *ir4qa_runs(folder), "--format", "json")
        from_store = run("evaluate-ir4qa", "--store", "--lang-pair", pair, "--format", "json")
        assert from_store.stdout == from_file.stdout
    cs_only = run("export", "qrels", "--lang", "CS").stdout
    assert cs_only == (resource_dir("corpora") / "cs" / "qrels.tsv").read_text()


def test_scores_are_saved_and_replaced_not_piled_up(campaign_store):
    def rows(kind=None):
        query = select(func.count()).select_from(db.EvaluationResult)
        if kind:
            query = query.join(db.Run).where(db.Run.kind == kind)
        with campaign_store.transaction() as session:
            return session.scalar(query)

    assert rows() == 0
    first = score_stored_runs(campaign_store, {"matcher": "human"})
    topics = sum(len(r.topics) for r in first)
    means = 1 + 8  # F3 and TREC RAG's four scores over every topic and over the answered ones
    assert len(first) == 12 and rows("cclqa") == rows() == 12 * means + topics
    again = score_stored_runs(campaign_store, Settings(matcher="human"))
    assert [(r.run_id, r.score) for r in again] == [(r.run_id, r.score) for r in first]
    assert rows() == 12 * means + topics  # replaced
    score_stored_runs(campaign_store, {"matcher": "human", "beta": 1}, run_ids=["TEAMA-CS-CS-01-T"])
    assert rows() == 12 * means + topics + means + 6  # other settings: kept beside
    score_stored_runs(campaign_store, {"matcher": "exact"}, save=False)
    assert rows() == 12 * means + topics + means + 6
    with campaign_store.transaction() as session:
        saved = session.execute(select(db.EvaluationResult.value, db.EvaluationResult.settings).join(db.Run).where(
            db.Run.run_id == "TEAMA-CS-CS-01-T", db.EvaluationResult.topic_id.is_(None),
            db.EvaluationResult.measure == "F3")).one()
    best = next(r for r in first if r.run_id == "TEAMA-CS-CS-01-T")
    assert saved.value == best.score and json.loads(saved.settings) == Settings(matcher="human").describe()

    ir = score_stored_ir4qa(campaign_store)
    assert ir.gains == [1.0, 2.0] and len(ir.runs) == 3
    ir_rows = rows("ir4qa")
    assert ir_rows == sum(3 * (1 + len(r.topics)) for r in ir.runs)
    score_stored_ir4qa(campaign_store, "1:2")  # the same settings, given as text
    assert rows("ir4qa") == ir_rows
    run("evaluate-ir4qa", "--store", "--no-save", "--gains", "1:3")
    assert rows("ir4qa") == ir_rows


def test_runs_are_read_and_scored_one_at_a_time(campaign_store, monkeypatch):
    events = []
    export_run, evaluate = scores.export_run, scores.Evaluator.evaluate

    def logged_export(session, run_id, kind="cclqa"):
        events.append(("read", run_id))
        return export_run(session, run_id, kind)

    def logged_evaluate(self, run, judgments=None):
        events.append(("score", run.run_id))
        return evaluate(self, run, judgments)

    monkeypatch.setattr(scores, "export_run", logged_export)
    monkeypatch.setattr(scores.Evaluator, "evaluate", logged_evaluate)
    score_stored_runs(campaign_store, {"matcher": "human", "tokenizer": Tokenizer()}, save=False)
    assert [e[0] for e in events] == ["read", "score"] * 12
    assert all(a[1] == b[1] for a, b in zip(events[::2], events[1::2]))


def test_an_empty_store_says_so_and_exits_1(on_store):
    for command in (["evaluate", "--store"], ["evaluate", "--store", "--matcher", "human"],
                    ["evaluate-ir4qa", "--store"]):
        result = run(*command)
        assert result.exit_code == 1 and "Traceback" not in result.output, result.output
        assert "the store holds no" in result.output and "runs" in result.output
    with pytest.raises(NothingToScore):
        score_stored_runs(Store(on_store))


def test_what_is_missing_is_named(on_store):
    cs = resource_dir("corpora") / "cs"
    assert run("import", cs / "runs" / "TEAMA-CS-CS-01-T.xml", cs / "ir4qa" / "TEAMA-CS-CS-01-T.xml").exit_code == 0
    no_gold = run("evaluate", "--store")
    assert no_gold.exit_code == 1 and "no gold standard" in no_gold.output
    assert run("import", cs / "topics.xml", cs / "gold.xml").exit_code == 0
    no_judgments = run("evaluate", "--store", "--matcher", "human")
    assert no_judgments.exit_code == 1 and "no nugget judgments" in no_judgments.output
    assert run("evaluate", "--store").exit_code == 0
    unknown = run("evaluate", "--store", "--run-id", "TEAMA-CS-CS-01-T", "--run-id", "NOBODY-CS-CS-01-T")
    assert unknown.exit_code == 1 and "no CCLQA run NOBODY-CS-CS-01-T in the store" in unknown.output
    no_qrels = run("evaluate-ir4qa", "--store")
    assert no_qrels.exit_code == 1 and "no relevance judgments" in no_qrels.output
    mixed = run("evaluate", "--store", "--gold", cs / "gold.xml")
    assert mixed.exit_code == 2 and "leave out --gold" in mixed.output
    assert run("evaluate-ir4qa", "--qrels", cs / "qrels.tsv", "--run-id", "X").exit_code == 2


def test_a_bad_qrels_file_imports_nothing(on_store, tmp_path):
    cs = resource_dir("corpora") / "cs"
    bad = tmp_path / "bad.tsv"
    bad.write_text("topic_id\tdocid\tlevel\nACLIA2-CS-0001\tD1\t2\nACLIA2-CS-0001\tD2\thigh\n"
                   "ACLIA2-CS-0001\tD1\t1\nACLIA2-CS-0001\tD3\t99999999999\n")
    result = run("import", cs / "qrels.tsv", bad)
    assert result.exit_code == 1
    assert f"{bad}:3:19: level must be 0, 1, 2, ... or L0, L1, ..., got 'high'" in result.output
    assert f"{bad}:4:1: document D1 is judged twice for topic ACLIA2-CS-0001 (first on line 2)" in result.output
    assert f"{bad}:5:19: level must be" in result.output  # more than the store's integers hold
    assert "nothing imported" in result.output
    assert "relevance judgments: 0" in run("db", "info").stdout
    long_docid = tmp_path / "long.tsv"
    long_docid.write_text("topic_id\tdocid\tlevel\nACLIA2-CS-0001\t" + "D" * 201 + "\t1\n")
    result = run("import", long_docid)
    assert result.exit_code == 1 and f"{long_docid}:2:16: DOCID is 201 characters long" in result.output


def test_qrels_already_stored_are_refused_whole_unless_replaced(on_store, tmp_path):
    cs = resource_dir("corpora") / "cs"
    assert run("import", cs / "qrels.tsv").exit_code == 0
    changed = tmp_path / "changed.tsv"
    changed.write_text("topic_id\tdocid\tlevel\nSEPIA-CS-0001\tSEPIA_CS_DOC.0001\t0\nSEPIA-CS-0001\tNEW-DOC\t1\n")
    again = run("import", changed)
    assert again.exit_code == 1 and "already judged by qrels" in again.output
    assert "relevance judgments: 48" in run("db", "info").stdout
    assert run("import", "--replace", changed).exit_code == 0
    exported = parse_qrels(run("export", "qrels").stdout)
    assert exported["SEPIA-CS-0001"]["SEPIA_CS_DOC.0001"] == 0 and exported["SEPIA-CS-0001"]["NEW-DOC"] == 1
    assert run("import", "--assessor", "a2", cs / "qrels.tsv").exit_code == 0  # a second assessor
    assert "relevance judgments: 97" in run("db", "info").stdout


def test_several_assessors_combine_to_the_upper_median(on_store, tmp_path):
    assert [combined_level(v) for v in ([0, 2], [0, 1, 2], [0, 0, 1], [1], [0, 0, 2, 2], [3, 0, 0, 1])] \
        == [2, 1, 0, 1, 2, 1]
    by_assessor = tmp_path / "by-assessor.tsv"
    by_assessor.write_text("topic_id\tdocid\tlevel\tassessor\n"
                           "ACLIA2-CS-0001\tD1\t2\ta1\nACLIA2-CS-0001\tD1\t0\ta2\nACLIA2-CS-0001\tD1\t1\ta3\n"
                           "ACLIA2-CS-0001\tD2\tL1\ta1\nACLIA2-CS-0001\tD2\t0\ta2\n"
                           "ACLIA2-CS-0001\tD3\t0\ta1\nACLIA2-CS-0001\tD3\t0\ta2\nACLIA2-CS-0001\tD3\t2\ta3\n")
    assert run("import", by_assessor).exit_code == 0
    assert parse_qrels(by_assessor.read_text()) == {"ACLIA2-CS-0001": {"D1": 1, "D2": 1, "D3": 0}}
    assert run("export", "qrels").stdout == "topic_id\tdocid\tlevel\nACLIA2-CS-0001\tD1\t1\n" \
                                            "ACLIA2-CS-0001\tD2\t1\nACLIA2-CS-0001\tD3\t0\n"
    assert run("export", "qrels", "--by-assessor").stdout == by_assessor.read_text().replace("L1", "1")
