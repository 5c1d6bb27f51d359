"""TREC RAG R-task runs: the track's rules checked with PATH:LINE:COLUMN messages, then an IR4QA run."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.convert.rag_retrieval import convert_rag_retrieval
from sepia.formats.errors import FormatError
from sepia.formats.model import IR4QARun
from sepia.formats.read import read_file

TOPIC_IDS = {"1": "RAG2025-EN-1", "2": "RAG2025-EN-2"}
SEG = [f"msmarco_v2.1_doc_0{i}_1{i}#{i}_2{i}" for i in range(4)]
GOOD = "".join(f"{q} Q0 {SEG[r - 1]} {r} {s} my-run\n" for q, r, s in
               [("1", 1, 0.9), ("1", 2, 0.9), ("1", 3, 0.5), ("2", 1, 3), ("2", 2, -1.5)])


def test_a_run_becomes_an_ir4qa_run(tmp_path):
    path = tmp_path / "r.tsv"
    path.write_text(GOOD)
    conv = convert_rag_retrieval(path, TOPIC_IDS, "TEAMX", 2)
    assert conv.run.metadata.run_id == "TEAMX-EN-EN-02-T" and conv.original_run_id == "my-run" and conv.warnings == []
    assert [(t.topic_id, [(d.rank, d.docid, d.score) for d in t.documents]) for t in conv.run.topics] == [
        ("RAG2025-EN-1", [(1, SEG[0], 0.9), (2, SEG[1], 0.9), (3, SEG[2], 0.5)]),
        ("RAG2025-EN-2", [(1, SEG[0], 3.0), (2, SEG[1], -1.5)])]


def test_every_broken_rule_is_reported(tmp_path):
    lines = ["1 Q0 a#1 1 0.5 my-run", "1 Q0 b#1 2 0.7 my-run", "1 Q0 c#1 4 0.1 my-run", "1 Q1 d#1 3 0.1 my-run",
             "9 Q0 e#1 1 1 my-run", "2 Q0 f#1 1 nan my-run", "2 Q0 g#1 1 1 other", "2 Q0 g#1", "1 Q0 a#1 3 0 my-run"]
    path = tmp_path / "bad.tsv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(FormatError) as info:
        convert_rag_retrieval(path, TOPIC_IDS, "TEAMX")
    assert [(p.line, p.message) for p in info.value.problems] == [
        (2, "score 0.7 is higher than the one on line 1: scores must not increase"),
        (3, "rank must be 2 (ranks 1, 2, ... in file order per topic), got '4'"),
        (4, "rank must be 2 (ranks 1, 2, ... in file order per topic), got '3'"),
        (4, "second field must be Q0, got 'Q1'"),
        (5, "topic '9' is not among the campaign's topics (topics.tsv)"),
        (6, "score must be a finite number, got 'nan'"),
        (7, "run 'other' differs from 'my-run': one run a file"),
        (8, "expected 6 fields (topic Q0 segment rank score run), got 3"),
        (9, "rank must be 2 (ranks 1, 2, ... in file order per topic), got '3'"),
        (9, "segment a#1 already ranked for topic '1'")]
    assert all(str(p).startswith(f"{path}:") for p in info.value.problems)


def test_more_than_100_segments_are_cut_with_a_warning_and_the_cli(tmp_path):
    path = tmp_path / "r.tsv"
    path.write_text("".join(f"1 Q0 s#{r} {r} {1000 - r} run\n" for r in range(1, 103)))
    conv = convert_rag_retrieval(path, TOPIC_IDS, "TEAMX")
    assert len(conv.run.topics[0].documents) == 100 and conv.warnings == [
        "topic 1: 102 segments, only the first 100 are kept"]
    topics = tmp_path / "topics.tsv"
    topics.write_text("qid\ttopic_id\n1\tRAG2025-EN-1\n")
    out = tmp_path / "TEAMX-EN-EN-01-T.xml"
    result = CliRunner().invoke(main, ["convert", "rag-retrieval", str(path), "--topics-map", str(topics),
                                       "--team", "TEAMX", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "1 topics, 100 segments" in result.output and "only the first 100" in result.output
    run = read_file(out, "ir4qa")
    assert isinstance(run, IR4QARun) and run.topics[0].documents[-1].docid == "s#100"
    path.write_text("1 Q0 s#1 1 1 run\n1 Q0 s#2 2 2 run\n")
    result = CliRunner().invoke(main, ["convert", "rag-retrieval", str(path), "--topics-map", str(topics),
                                       "--team", "TEAMX", "--out", str(tmp_path / "x.xml")])
    assert result.exit_code == 1 and f"{path}:2:1: score 2 is higher" in result.output
    assert not (tmp_path / "x.xml").exists()


def test_qrels_go_out_with_the_tracks_topic_ids(store_url, monkeypatch, tmp_path):
    monkeypatch.setenv("SEPIA_DATABASE_URL", store_url)
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"id": "1", "title": "t1"}\n{"id": "2", "title": "t2"}\n')
    cli = CliRunner()
    assert cli.invoke(main, ["convert", "rag-topics", str(queries), "--year", "2025", "--out", str(tmp_path / "rag")]).exit_code == 0
    path = tmp_path / "r.tsv"
    path.write_text(GOOD)
    assert cli.invoke(main, ["convert", "rag-retrieval", str(path), "--topics-map", str(tmp_path / "rag" / "topics.tsv"),
                             "--team", "TEAMX", "--out", str(tmp_path / "run.xml")]).exit_code == 0
    qrels = tmp_path / "qrels.tsv"
    qrels.write_text(f"topic_id\tdocid\tlevel\nRAG2025-EN-1\t{SEG[0]}\t2\nRAG2025-EN-2\t{SEG[1]}\t0\n")
    result = cli.invoke(main, ["import", str(tmp_path / "rag" / "topics.xml"), str(tmp_path / "run.xml"), str(qrels)])
    assert result.exit_code == 0, result.output
    result = cli.invoke(main, ["export", "qrels", "--trec", "--topics-map", str(tmp_path / "rag" / "topics.tsv")])
    assert result.exit_code == 0, result.output
    assert sorted(result.stdout.splitlines()) == [f"1 0 {SEG[0]} 2", f"2 0 {SEG[1]} 0"]
    assert cli.invoke(main, ["export", "qrels", "--topics-map", str(tmp_path / "rag" / "topics.tsv")]).exit_code == 2
