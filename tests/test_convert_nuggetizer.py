"""`sepia convert nuggetizer`: TREC RAG 2024 nugget assignments -> gold standard, runs, judgments."""
from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.convert.nuggetizer import OutputExists, convert_nuggetizer, write_conversion
from sepia.formats.errors import FormatError
from sepia.formats.judgments import read_judgments
from sepia.formats.model import CCLQARun, GoldStandard, TopicSet
from sepia.formats.read import read_file
from sepia.scoring.evaluate import evaluate_runs

ROOT = Path(__file__).resolve().parents[1]
RAG24 = ROOT.parent / "shared" / "data" / "trec-rag24" / "rag24_nugget_assignment.20241108.jl"
needs_rag24 = pytest.mark.skipif(not RAG24.exists(), reason="TREC RAG 2024 data not in ../shared/data")

TOPIC1 = [("alpha", "vital"), ("beta", "okay"), ("gamma", "vital")]


def record(qid, run_id, answer, nuggets, assignments, query=None) -> str:
    return json.dumps({"qid": qid, "query": query or f"question {qid}", "run_id": run_id, "answer_text": answer,
                       "response_length": len(answer.split()),
                       "nuggets": [{"text": t, "importance": i, "assignment": a}
                                   for (t, i), a in zip(nuggets, assignments)]})


# Two runs whose IDs sanitise alike (team.a, team-a); a qid that is not YEAR-NUMBER; a topic
# without vital nuggets; a partial_support; an answer with a line break and surrounding spaces.
SMALL = "\n".join([
    record("2024-1", "team.a", "alpha beta", TOPIC1, ["support", "partial_support", "not_support"]),
    record("2024-1", "team-a", "  gamma\n", TOPIC1, ["not_support", "not_support", "support"]),
    record("x7", "team.a", "delta", [("delta", "okay")], ["support"]),
]) + "\n"


@pytest.fixture
def small(tmp_path) -> Path:
    path = tmp_path / "small.jl"
    path.write_text(SMALL, encoding="utf-8")
    return path


def test_ids_topics_and_gold(small):
    conv = convert_nuggetizer(small)
    assert conv.topic_ids == {"2024-1": "RAG2024-EN-1", "x7": "RAG-EN-0001"}
    assert conv.run_ids == {"team.a": "team_a-EN-EN-01-T", "team-a": "team_a_2-EN-EN-01-T"}
    assert [(t.topic_id, t.answer_type, t.status, t.questions[0].lang, t.questions[0].text)
            for t in conv.topics.topics] == [("RAG2024-EN-1", "OTHER", "completed", "EN", "question 2024-1"),
                                             ("RAG-EN-0001", "OTHER", "completed", "EN", "question x7")]
    assert conv.gold.lang == "EN"
    first, second = conv.gold.topics
    assert [(n.nugget_id, n.text, n.votes, n.weight) for n in first.nuggets] == [
        ("N01", "alpha", [("trec", True)], 1.0), ("N02", "beta", [("trec", False)], 0.0),
        ("N03", "gamma", [("trec", True)], 1.0)]
    # No vital nugget: every nugget weighs 1, as the scoring rule says, and the converter warns.
    assert [(n.nugget_id, n.vital_votes, n.voters, n.weight) for n in second.nuggets] == [("N01", 0, 1, 1.0)]
    assert any("RAG-EN-0001" in w and "weighs 1" in w for w in conv.warnings)
    assert any("'x7'" in w for w in conv.warnings) and any("team_a_2" in w for w in conv.warnings)


def test_runs_keep_whole_answers(small):
    runs = {r.run_id: r for r in convert_nuggetizer(small).runs}
    team_a, team_a2 = runs["team_a-EN-EN-01-T"], runs["team_a_2-EN-EN-01-T"]
    assert (team_a.metadata.description, team_a2.metadata.description) == ("team.a", "team-a")
    assert [(t.topic_id, [(a.rank, a.text, a.docids) for a in t.answers]) for t in team_a.topics] == [
        ("RAG2024-EN-1", [(1, "alpha beta", [])]), ("RAG-EN-0001", [(1, "delta", [])])]
    assert [(t.topic_id, t.answers[0].text) for t in team_a2.topics] == [("RAG2024-EN-1", "  gamma\n")]


@pytest.mark.parametrize("partial", [0.0, 0.5, 1.0])
def test_judgments_and_partial_support(small, partial):
    conv = convert_nuggetizer(small, partial=partial)
    rows = [(j.topic_id, j.run_id, j.answer_rank, j.nugget_id, j.match, j.assessor) for j in conv.judgments]
    assert rows == [
        ("RAG2024-EN-1", "team_a-EN-EN-01-T", 1, "N01", 1, "trec"),
        ("RAG2024-EN-1", "team_a-EN-EN-01-T", 1, "N02", partial, "trec"),
        ("RAG2024-EN-1", "team_a-EN-EN-01-T", 1, "N03", 0, "trec"),
        ("RAG2024-EN-1", "team_a_2-EN-EN-01-T", 1, "N01", 0, "trec"),
        ("RAG2024-EN-1", "team_a_2-EN-EN-01-T", 1, "N02", 0, "trec"),
        ("RAG2024-EN-1", "team_a_2-EN-EN-01-T", 1, "N03", 1, "trec"),
        ("RAG-EN-0001", "team_a-EN-EN-01-T", 1, "N01", 1, "trec"),
    ]
    assert conv.partial_count == 1


def f3(precision: float, recall: float) -> float:
    return 10 * precision * recall / (9 * precision + recall)


@pytest.mark.parametrize("partial, credit", [(0.0, 0.5), (0.5, 0.0), (0.5, 0.5), (0.5, 1.0), (1.0, 0.5)])
def test_human_f3_by_hand(small, partial, credit):
    """Vital-only recall from the pyramid weights; okay nuggets still earn allowance. A partial
    support written as 0.5 counts what --partial says; written as 0 or 1 it is that."""
    conv = convert_nuggetizer(small, partial=partial)
    scores = {r.run_id: r for r in evaluate_runs(conv.gold, conv.runs, matcher="human", judgments=conv.judgments,
                                                 partial=credit)}
    c = (5 + 4 + 5 + 5) / 4  # mean length of alpha, beta, gamma, delta
    # team.a, topic 1: "alpha beta" (9 characters) has alpha (vital), and beta (okay) partly.
    matched = 1 + (credit if partial == 0.5 else partial)
    topic1 = f3(min(1.0, c * matched / 9), 1 / 2)
    topic2 = f3(c / 5, 1.0)  # "delta" matched; its topic has no vital nugget, so it weighs 1
    assert [t.f for t in scores["team_a-EN-EN-01-T"].topics] == pytest.approx([topic1, topic2])
    assert scores["team_a-EN-EN-01-T"].score == pytest.approx((topic1 + topic2) / 2)
    # team-a: gamma in "  gamma\n" (5 characters without white space); no answer for x7 scores 0.
    assert scores["team_a_2-EN-EN-01-T"].score == pytest.approx(f3(c / 5, 1 / 2) / 2)
    assert topic1 == pytest.approx({1: 0.502646, 1.5: 0.519126, 2: 0.526316}[matched], abs=1e-6)


def test_prefix(small):
    conv = convert_nuggetizer(small, prefix="TREC24")
    assert conv.topic_ids == {"2024-1": "TREC242024-EN-1", "x7": "TREC24-EN-0001"}
    with pytest.raises(ValueError):
        convert_nuggetizer(small, prefix="RAG-1")


def test_write_and_read_back(small, tmp_path):
    out = write_conversion(convert_nuggetizer(small), tmp_path / "out")
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == [
        "gold.xml", "judgments.tsv", "runs", "runs.tsv", "runs/team_a-EN-EN-01-T.xml",
        "runs/team_a_2-EN-EN-01-T.xml", "topics.tsv", "topics.xml"]
    assert (out / "topics.tsv").read_text() == "qid\ttopic_id\n2024-1\tRAG2024-EN-1\nx7\tRAG-EN-0001\n"
    assert (out / "runs.tsv").read_text() == ("original_run_id\trun_id\nteam.a\tteam_a-EN-EN-01-T\n"
                                              "team-a\tteam_a_2-EN-EN-01-T\n")
    assert isinstance(read_file(out / "gold.xml"), GoldStandard)
    assert isinstance(read_file(out / "topics.xml"), TopicSet)
    run = read_file(out / "runs" / "team_a_2-EN-EN-01-T.xml")
    assert isinstance(run, CCLQARun) and run.topics[0].answers[0].text == "  gamma\n"
    assert len(read_judgments(out / "judgments.tsv")) == 7
    assert not list(tmp_path.glob(".out.*"))  # no staging directory left behind
    (tmp_path / "plain").mkdir()
    assert out.stat().st_mode == (tmp_path / "plain").stat().st_mode  # the usual permissions, not 0700


def problems(path: Path) -> list[tuple[int, int, str]]:
    with pytest.raises(FormatError) as info:
        convert_nuggetizer(path)
    assert all(p.path == str(path) for p in info.value.problems)
    return [(p.line, p.column, p.message) for p in info.value.problems]


def test_bad_input_reports_every_problem(tmp_path):
    bad_importance = record("2024-2", "r1", "x", [("a", "vital"), ("b", "okay")], ["support", "support"])
    bad_importance = bad_importance.replace('"okay"', '"high"')
    lines = [
        record("2024-1", "r1", "alpha", TOPIC1, ["support"] * 3),
        '{"qid": "2024-1", "run_id": ',
        json.dumps({"qid": "2024-1", "query": "question 2024-1", "run_id": "r2", "nuggets": []}),
        bad_importance,
        record("2024-1", "r3", "alpha", [("alpha", "vital"), ("beta", "vital"), ("gamma", "vital")],
               ["support"] * 3),
        "[1, 2]",
        record("2024-1", "r1", "again", TOPIC1, ["support", "maybe", "support"]),
        record("2024-1", "r1", "again", TOPIC1, ["support"] * 3),
        "",
    ]
    path = tmp_path / "bad.jl"
    path.write_text("\n".join(lines), encoding="utf-8")
    found = problems(path)
    nugget_b = lines[3].index('{"text": "b"') + 1
    nugget_2 = lines[6].index('{"text": "beta"') + 1
    assert found == [
        (2, len(lines[1]) + 1, "not valid JSON: Expecting value"),  # where the value should start
        (3, 1, "missing field 'answer_text'"),
        (4, nugget_b, 'nugget 2: importance must be vital or okay, got "high"'),
        (5, 1, "qid '2024-1': nugget list differs from the one on line 1: nugget 2 ('beta') is vital, expected okay"),
        (6, 1, "expected a JSON object, got a list"),
        (7, nugget_2, 'nugget 2: assignment must be support, partial_support or not_support, got "maybe"'),
        (8, 1, "run 'r1' already answered qid '2024-1' on line 1"),
    ]


@pytest.mark.parametrize("content, expected", [
    (b"", (1, 1, "no records: expected one JSON object a line")),
    (b'{"qid": "2024-1"}\n\xff\n', (2, 1, "invalid UTF-8")),
    (record("2024-1", "r", "a\x01b", TOPIC1, ["support"] * 3).encode(),
     (1, 1, "field 'answer_text' contains a character XML cannot carry (U+0001)")),
    (record("2024-1", "a\tb", "x", TOPIC1, ["support"] * 3).encode(), (1, 1, "field 'run_id' contains a tab or line break")),
    # A lone surrogate is valid JSON but has no UTF-8 encoding; NUL cannot go into XML or a TSV.
    (record("x\ud800", "r", "x", TOPIC1, ["support"] * 3).encode(),
     (1, 1, "field 'qid' contains a character XML cannot carry (U+D800)")),
    (record("2024-1\x00", "r", "x", TOPIC1, ["support"] * 3).encode(),
     (1, 1, "field 'qid' contains a character XML cannot carry (U+0000)")),
    (json.dumps({"qid": 5, "query": "q", "run_id": "r", "answer_text": "", "nuggets": {}}).encode(),
     (1, 1, "field 'nuggets' must be a list, got an object")),
    (record("2024-1", "r", "x", [("", "vital")], ["support"]).encode(),
     (1, record("2024-1", "r", "x", [("", "vital")], ["support"]).index('{"text"') + 1,
      "nugget 1: text must be a non-empty string")),
])
def test_bad_input_cases(tmp_path, content, expected):
    path = tmp_path / "bad.jl"
    path.write_bytes(content)
    assert expected in problems(path)


def test_cli_bad_input_writes_nothing(tmp_path):
    path = tmp_path / "bad.jl"
    path.write_text(SMALL + '{"qid": \n', encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["convert", "nuggetizer", str(path), "--out", str(out)])
    assert result.exit_code == 1
    assert f"{path}:4:9: not valid JSON" in result.output
    assert not out.exists() and not list(tmp_path.glob(".out.*"))


def test_cli_unencodable_qid_is_reported_not_a_crash(small, tmp_path):
    path = tmp_path / "surrogate.jl"
    path.write_text(SMALL + record("x\ud800", "r", "x", TOPIC1, ["support"] * 3) + "\n", encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["convert", "nuggetizer", str(path), "--out", str(out)])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output  # no traceback
    assert f"{path}:4:1: field 'qid' contains a character XML cannot carry (U+D800)" in result.output
    assert not out.exists()


def test_cli_refuses_non_empty_out_unless_forced(small, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    (out / "runs").mkdir()
    (out / "runs" / "stale-EN-EN-01-T.xml").write_text("old")
    args = ["convert", "nuggetizer", str(small), "--out", str(out)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1 and "not empty" in result.output and "--force" in result.output
    assert not (out / "gold.xml").exists()

    result = CliRunner().invoke(main, args + ["--force", "--partial-as-match"])
    assert result.exit_code == 0, result.output
    assert "2 topics, 2 runs, 7 judgments (1 partial_support counted as match)" in result.output
    assert (out / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in (out / "runs").iterdir()) == ["team_a-EN-EN-01-T.xml", "team_a_2-EN-EN-01-T.xml"]
    assert sum(j.match for j in read_judgments(out / "judgments.tsv")) == 4
    assert [p.name for p in out.iterdir() if p.name.startswith(".")] == []


def test_cli_empty_out_dir_and_bad_prefix(small, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    result = CliRunner().invoke(main, ["convert", "nuggetizer", str(small), "--out", str(out), "--prefix", "TREC"])
    assert result.exit_code == 0, result.output
    assert "TREC2024-EN-1" in (out / "topics.tsv").read_text()
    result = CliRunner().invoke(main, ["convert", "nuggetizer", str(small), "--out", str(tmp_path / "o2"),
                                       "--prefix", "R_1"])
    assert result.exit_code == 2 and not (tmp_path / "o2").exists()


def test_failed_write_leaves_nothing(small, tmp_path, monkeypatch):
    calls = []
    real = Path.write_bytes

    def failing(self, data):
        calls.append(self)
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", failing)
    with pytest.raises(OSError):
        write_conversion(convert_nuggetizer(small), tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small.jl"]


def test_write_refuses_a_file(small, tmp_path):
    (tmp_path / "out").write_text("x")
    with pytest.raises(OutputExists):
        write_conversion(convert_nuggetizer(small), tmp_path / "out", force=True)


@needs_rag24
def test_real_file(tmp_path):
    conv = convert_nuggetizer(RAG24)
    out = write_conversion(conv, tmp_path / "rag24")
    records = [json.loads(line) for line in RAG24.read_text(encoding="utf-8").splitlines()]
    assert (len(conv.gold.topics), len(conv.runs), len(conv.judgments)) == (21, 45, 13158)
    assert sum(j.match for j in conv.judgments) == sum(
        {"support": 1, "partial_support": 0.5}.get(n["assignment"], 0) for r in records for n in r["nuggets"])
    assert sum(j.match for j in convert_nuggetizer(RAG24, partial=1).judgments) == sum(
        n["assignment"] != "not_support" for r in records for n in r["nuggets"])
    assert sum(j.match for j in convert_nuggetizer(RAG24, partial=0).judgments) == sum(
        n["assignment"] == "support" for r in records for n in r["nuggets"])
    assert conv.topic_ids["2024-142395"] == "RAG2024-EN-142395"
    assert conv.run_ids["cohere+post_processing"] == "cohere_post_processing-EN-EN-01-T"
    gold = read_file(out / "gold.xml")
    assert isinstance(gold, GoldStandard) and sum(len(t.nuggets) for t in gold.topics) == 298
    assert isinstance(read_file(out / "topics.xml"), TopicSet)
    texts = {}
    for path in (out / "runs").glob("*.xml"):
        run = read_file(path)
        texts.update({(run.metadata.description, t.topic_id): t.answers[0].text for t in run.topics})
    assert len(texts) == 927
    for r in records:  # every answer comes back whole, character for character
        assert texts[(r["run_id"], conv.topic_ids[r["qid"]])] == r["answer_text"]
    assert len(read_judgments(out / "judgments.tsv")) == 13158


@needs_rag24
def test_report_on_a_slice_has_the_docs_form(tmp_path):
    """docs/measurements.md shows what tools/trec_rag24_report.py prints for all 21 topics; that full
    comparison is `tools/trec_rag24_report.py --check` (12 s of CPU). Here the report runs on three
    topics of all 45 runs: every line it prints, numbers and run names aside, is a line of the page, and both of its
    run tables list every run."""
    records = [line for line in RAG24.read_text(encoding="utf-8").splitlines() if line.strip()]
    first = sorted({json.loads(line)["qid"] for line in records})[:3]
    (tmp_path / "slice.jl").write_text("".join(line + "\n" for line in records if json.loads(line)["qid"] in first),
                                       encoding="utf-8")
    spec = importlib.util.spec_from_file_location("trec_rag24_report", ROOT / "tools" / "trec_rag24_report.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    output = tool.report(tmp_path / "slice.jl")

    def form(line: str) -> str:  # digits and signs masked, and a table row's run name
        return re.sub(r"[+\-−]?\d+", "#", re.sub(r"^\| [^|]+ \|", "| R |", line))
    docs = {form(line) for line in (ROOT / "docs" / "measurements.md").read_text(encoding="utf-8").splitlines()}
    assert output.startswith("3 topics, 45 runs;")
    assert [line for line in output.splitlines() if form(line) not in docs] == []
    tables = output.split("\n\n")
    rows = [t for t in tables if t.startswith("| run |")]
    assert [len(t.splitlines()) - 2 for t in rows[:2]] == [45, 45]
