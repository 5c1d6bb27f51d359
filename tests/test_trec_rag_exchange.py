"""TREC RAG's topic JSONL in and out, and SEPIA's judgments out as nuggetizer JSONL whose own metrics
give SEPIA's four scores with zero difference."""
from __future__ import annotations

import json
import random
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner
from nuggetizer.core.metrics import calculate_global_metrics, calculate_nugget_scores

from sepia.cli import main
from sepia.convert.nuggetizer import convert_nuggetizer, write_conversion
from sepia.convert.nuggetizer_export import assignments, nugget_lists
from sepia.convert.rag_topics import convert_rag_topics, rag_topics_jsonl
from sepia.formats.errors import FormatError
from sepia.formats.model import (Answer, CCLQARun, CCLQATopic, GoldNugget, GoldStandard, GoldTopic, Judgment,
                                 LangText, Metadata, TopicSet)
from sepia.formats.read import read_file
from sepia.scoring.evaluate import evaluate_runs

ROOT = Path(__file__).resolve().parents[1]
# ../shared beside the repository, or two levels up from a worktree in wt/
RAG24 = next((base / "shared" / "data" / "trec-rag24" / "rag24_nugget_assignment.20241108.jl"
              for base in (ROOT.parent, ROOT.parents[1]) if (base / "shared" / "data").is_dir()), Path("missing"))
needs_rag24 = pytest.mark.skipif(not RAG24.exists(), reason="TREC RAG 2024 data not in ../shared/data")
MEASURES = ("strict_vital", "vital", "strict_all", "all")

TOPICS25 = [{"id": "1", "title": "I'm trying to understand how the Industrial Revolution began. What caused it?"},
            {"id": "2", "title": "How do prisons operate? Explain inmate rights and rehabilitation."},
            {"id": "2024-145979", "title": "what is vicarious trauma and how can it be coped with?"}]


def write_jsonl(path: Path, rows) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


# ---------------------------------------------------------------- topics

def test_topics_in_with_year_and_back(tmp_path):
    conv = convert_rag_topics(write_jsonl(tmp_path / "q.jsonl", TOPICS25), year="2025")
    assert conv.topic_ids == {"1": "RAG2025-EN-1", "2": "RAG2025-EN-2", "2024-145979": "RAG2024-EN-145979"}
    assert conv.warnings == []
    assert [(t.topic_id, t.questions, t.answer_type, t.status) for t in conv.topics.topics] == [
        (conv.topic_ids[r["id"]], [LangText("EN", r["title"])], "OTHER", "completed") for r in TOPICS25]
    out = write_conversion(conv, tmp_path / "out")
    topics = read_file(out / "topics.xml")
    assert isinstance(topics, TopicSet) and topics.lang == "EN"
    assert (out / "topics.tsv").read_text() == (
        "qid\ttopic_id\n1\tRAG2025-EN-1\n2\tRAG2025-EN-2\n2024-145979\tRAG2024-EN-145979\n")
    back = {v: k for k, v in conv.topic_ids.items()}
    assert [json.loads(line) for line in rag_topics_jsonl(topics, back).splitlines()] == TOPICS25


def test_topics_without_year_are_numbered_with_a_warning(tmp_path):
    conv = convert_rag_topics(write_jsonl(tmp_path / "q.jsonl", TOPICS25 + [{"id": 7, "title": "  t  "}]))
    assert conv.topic_ids == {"1": "RAG-EN-0001", "2": "RAG-EN-0002", "2024-145979": "RAG2024-EN-145979",
                              "7": "RAG-EN-0003"}
    assert len(conv.warnings) == 3 and "its topic ID is RAG-EN-0003" in conv.warnings[2]
    assert conv.topics.topics[3].questions[0].text == "t"
    assert json.loads(rag_topics_jsonl(conv.topics).splitlines()[0]) == {"id": "RAG-EN-0001", "title": TOPICS25[0]["title"]}


def test_nuggetizer_conversion_takes_the_year_too(tmp_path):
    line = {"qid": "3", "query": "q", "run_id": "r", "answer_text": "a",
            "nuggets": [{"text": "n", "importance": "vital", "assignment": "support"}]}
    conv = convert_nuggetizer(write_jsonl(tmp_path / "a.jl", [line]), year="2025")
    assert conv.topic_ids == {"3": "RAG2025-EN-3"} and conv.warnings == []


def test_bad_topics_report_every_problem_and_write_nothing(tmp_path):
    lines = [json.dumps(TOPICS25[0]), '{"id": "3", "title": ', '  {"id": "", "title": "x"}', '{"title": "x"}',
             json.dumps(TOPICS25[0]), '{"id": "4", "title": "a\\u0001"}', '{"id": "5", "title": 5}', "[]",
             '{"id": "a\\tb", "title": "x"}']
    path = write_jsonl(tmp_path / "bad.jsonl", lines)
    with pytest.raises(FormatError) as info:
        convert_rag_topics(path)
    assert [(p.path, p.line, p.column, p.message) for p in info.value.problems] == [(str(path), *p) for p in [
        (2, len(lines[1]) + 1, "not valid JSON: Expecting value"),
        (3, 3, 'field \'id\' must be a non-empty string without tabs or line breaks, got ""'),
        (4, 1, "field 'id' must be a non-empty string without tabs or line breaks, got nothing"),
        (5, 1, "topic '1' already given on line 1"),
        (6, 1, "field 'title' contains a character XML cannot carry (U+0001)"),
        (7, 1, "field 'title' must be a non-empty string"),
        (8, 1, "expected a JSON object, got a list"),
        (9, 1, 'field \'id\' must be a non-empty string without tabs or line breaks, got "a\\tb"')]]
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["convert", "rag-topics", str(path), "--out", str(out)])
    assert result.exit_code == 1 and f"{path}:5:1: topic '1' already given on line 1" in result.output
    assert not out.exists() and not list(tmp_path.glob(".out.*"))
    with pytest.raises(FormatError, match="no topics"):
        convert_rag_topics(write_jsonl(tmp_path / "empty.jsonl", []))


def test_topics_cli_round_trip(tmp_path):
    path = write_jsonl(tmp_path / "q.jsonl", TOPICS25)
    out = tmp_path / "rag25"
    result = CliRunner().invoke(main, ["convert", "rag-topics", str(path), "--year", "2025", "--out", str(out)])
    assert result.exit_code == 0 and "3 topics" in result.output, result.output
    back = tmp_path / "back.jsonl"
    result = CliRunner().invoke(main, ["convert", "to-rag-topics", str(out / "topics.xml"),
                                       "--topics-map", str(out / "topics.tsv"), "--out", str(back)])
    assert result.exit_code == 0, result.output
    assert back.read_text(encoding="utf-8") == path.read_text(encoding="utf-8")
    result = CliRunner().invoke(main, ["convert", "rag-topics", str(path), "--year", "20-25", "--out", str(tmp_path / "x")])
    assert result.exit_code == 2 and not (tmp_path / "x").exists()


# ---------------------------------------------------------------- nuggetizer export

def nugget(nid, text, vital_votes, voters):
    return GoldNugget(nid, text, votes=[(f"a{i}", i < vital_votes) for i in range(voters)])


def test_assignments_by_hand():
    """Assessors judge; the decision is their upper median (1, 0.5, 0.5 is 0.5), the best over the answers."""
    gold = GoldStandard("EN", [GoldTopic("RAG-EN-0001", "OTHER", [LangText("EN", "why?")], [
        nugget("N1", "alpha", 2, 3), nugget("N2", "beta", 1, 3), nugget("N3", "gamma", 1, 1)])])
    run = CCLQARun(Metadata("T-EN-EN-01-T"), [CCLQATopic("RAG-EN-0001", [Answer(1, "one two"), Answer(2, "three")])])
    judgments = [Judgment("RAG-EN-0001", "T-EN-EN-01-T", 1, "N1", 1, "x"), Judgment("RAG-EN-0001", "T-EN-EN-01-T", 1, "N1", 0.5, "y"),
                 Judgment("RAG-EN-0001", "T-EN-EN-01-T", 1, "N1", 0.5, "z"), Judgment("RAG-EN-0001", "T-EN-EN-01-T", 1, "N2", 0, "x"),
                 Judgment("RAG-EN-0001", "T-EN-EN-01-T", 2, "N2", 1, "x"), Judgment("RAG-EN-0001", "T-EN-EN-01-T", 2, "N2", 1, "y"),
                 Judgment("RAG-EN-0001", "T-EN-EN-01-T", 1, "N3", 0, "x")]
    record, = assignments(gold, [run], judgments, {"RAG-EN-0001": "q1"}, {"T-EN-EN-01-T": "team run"})
    assert record == {"qid": "q1", "query": "why?", "run_id": "team run", "answer_text": "one two\n\nthree",
                      "response_length": 3, "nuggets": [
                          {"text": "alpha", "importance": "vital", "assignment": "partial_support"},
                          {"text": "beta", "importance": "okay", "assignment": "support"},
                          {"text": "gamma", "importance": "vital", "assignment": "not_support"}]}
    # vital: N1 (2 of 3) and N3 (1 of 1); strict vital 0/2, vital 0.5/2, strict all 1/3, all 1.5/3
    m = calculate_nugget_scores("q1", record["nuggets"])
    assert (m.strict_vital_score, m.vital_score, m.strict_all_score, m.all_score) == (0.0, 0.25, 1 / 3, 0.5)
    sepia = evaluate_runs(gold, [run], matcher="human", judgments=judgments)[0].nuggetizer["answered_topics"]
    assert sepia == {"strict_vital": 0.0, "vital": 0.25, "strict_all": 1 / 3, "all": 0.5}
    assert list(nugget_lists(gold)) == [{"qid": "RAG-EN-0001", "query": "why?", "nuggets": [
        {"text": "alpha", "importance": "vital"}, {"text": "beta", "importance": "okay"},
        {"text": "gamma", "importance": "vital"}]}]


def assert_same_scores(gold, runs, judgments, records):
    """nuggetizer's global metrics per run == SEPIA's four means over the answered topics, bit for bit."""
    by_run = defaultdict(list)
    for r in records:
        by_run[r["run_id"]].append(r)
    results = evaluate_runs(gold, runs, matcher="human", judgments=judgments)
    checked = 0
    for result in results:
        means = result.nuggetizer
        if not by_run[result.run_id]:
            assert means["answered"] == 0
            continue
        theirs = calculate_global_metrics(by_run[result.run_id])
        assert {m: theirs[f"{m}_score"] for m in MEASURES} == means["answered_topics"]
        assert len(by_run[result.run_id]) == means["answered"]
        checked += 1
    return checked


@pytest.mark.parametrize("seed", range(5))
def test_random_campaigns_score_alike_in_nuggetizer(seed):
    rng = random.Random(seed)
    topics = [GoldTopic(f"RAG-EN-{t:04d}", "OTHER", [LangText("EN", f"q{t}")],
                        [nugget(f"N{i}", f"n{t}.{i}", rng.randint(0, 3), 3) for i in range(rng.randint(1, 9))])
              for t in range(1, 13)]
    gold = GoldStandard("EN", topics)
    runs, judgments = [], []
    for r in range(6):
        run_id = f"T{r}-EN-EN-01-T"
        answered = [t for t in topics if rng.random() < 0.8]
        runs.append(CCLQARun(Metadata(run_id), [CCLQATopic(t.topic_id, [Answer(k, f"x{k}") for k in range(1, rng.randint(1, 3) + 1)])
                                                for t in answered]))
        for t, topic in zip(answered, runs[-1].topics):
            for answer in topic.answers:
                for n in t.nuggets:
                    for assessor in ("a", "b")[:rng.randint(1, 2)]:
                        judgments.append(Judgment(t.topic_id, run_id, answer.rank, n.nugget_id,
                                                  rng.choice([0, 0, 0.5, 1]), assessor))
    assert assert_same_scores(gold, runs, judgments, list(assignments(gold, runs, judgments))) >= 5


@needs_rag24
def test_real_file_round_trips_through_nuggetizer(tmp_path):
    conv = convert_nuggetizer(RAG24)
    records = list(assignments(conv.gold, conv.runs, conv.judgments, {v: k for k, v in conv.topic_ids.items()},
                               {v: k for k, v in conv.run_ids.items()}))
    original = [json.loads(line) for line in RAG24.read_text(encoding="utf-8").splitlines()]
    assert sorted(records, key=lambda r: (r["run_id"], r["qid"])) == sorted(original, key=lambda r: (r["run_id"], r["qid"]))
    by_run = defaultdict(list)
    for r in original:
        by_run[r["run_id"]].append(r)
    original_id = {v: k for k, v in conv.run_ids.items()}
    results = evaluate_runs(conv.gold, conv.runs, matcher="human", judgments=conv.judgments)
    assert len(results) == 45
    for result in results:  # the TREC file itself, scored by nuggetizer, against SEPIA's scores
        theirs = calculate_global_metrics(by_run[original_id[result.run_id]])
        assert {m: theirs[f"{m}_score"] for m in MEASURES} == result.nuggetizer["answered_topics"]
    out = write_conversion(conv, tmp_path / "rag24")
    files = {name: tmp_path / f"{name}.jsonl" for name in ("nuggets", "assignments")}
    result = CliRunner().invoke(main, [
        "convert", "to-nuggetizer", "--gold", str(out / "gold.xml"), "--run", str(out / "runs"),
        "--judgments", str(out / "judgments.tsv"), "--topics-map", str(out / "topics.tsv"),
        "--runs-map", str(out / "runs.tsv"), "--nuggets", str(files["nuggets"]),
        "--assignments", str(files["assignments"])])
    assert result.exit_code == 0, result.output
    written = [json.loads(line) for line in files["assignments"].read_text(encoding="utf-8").splitlines()]
    assert sorted(written, key=lambda r: (r["run_id"], r["qid"])) == sorted(original, key=lambda r: (r["run_id"], r["qid"]))
    lists = [json.loads(line) for line in files["nuggets"].read_text(encoding="utf-8").splitlines()]
    first = {}
    for r in original:
        first.setdefault(r["qid"], r)
    assert lists == [{"qid": q, "query": r["query"], "nuggets": [{"text": n["text"], "importance": n["importance"]}
                                                                 for n in r["nuggets"]]} for q, r in first.items()]


def test_cli_to_nuggetizer_usage(tmp_path):
    gold = tmp_path / "gold.xml"
    gold.write_text('<?xml version="1.0"?><TOPIC_SET LANG="EN"/>')
    result = CliRunner().invoke(main, ["convert", "to-nuggetizer", "--gold", str(gold)])
    assert result.exit_code == 2 and "--nuggets, --assignments or both" in result.output
    result = CliRunner().invoke(main, ["convert", "to-nuggetizer", "--gold", str(gold), "--assignments", "a.jsonl"])
    assert result.exit_code == 2 and "needs --run and --judgments" in result.output
