"""`sepia validate` on TREC RAG's JSON-lines files: answer and topic files told apart by their first
line and checked with the converters' rules, every problem the PATH:LINE:COLUMN line `sepia convert`
gives; exit 1 when any file is bad."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from sepia.cli import main
from sepia.convert.validate import RAG_ANSWERS, RAG_TOPICS, jsonl_format, validate_any_file

SEG = ["msmarco_v2.1_doc_00_1#0_2", "msmarco_v2.1_doc_01_3#1_4"]


def answer(qid, text="Coal fuelled it.", citations=(0,), run_id="my run"):
    return {"metadata": {"team_id": "my-team", "run_id": run_id, "narrative_id": qid},
            "references": SEG, "answer": [{"text": text, "citations": list(citations)}]}


def write(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def test_answer_and_topic_files_are_told_apart(tmp_path):
    answers = write(tmp_path / "a.txt", [answer("1")])
    topics = write(tmp_path / "t", [{"id": "1", "title": "Why coal?"}])
    neither = write(tmp_path / "n.jsonl", [{"something": 1}])
    xml = tmp_path / "r.xml"
    xml.write_text("<TOPIC_SET/>")
    assert (jsonl_format(answers, None), jsonl_format(topics, None), jsonl_format(xml, None)) == (RAG_ANSWERS, RAG_TOPICS, None)
    assert jsonl_format(neither, None) == RAG_ANSWERS  # its problems are the answer file's missing fields
    assert jsonl_format(topics, RAG_ANSWERS) == RAG_ANSWERS and jsonl_format(answers, "cclqa") is None
    assert jsonl_format(tmp_path / "missing", None) is None
    _, found = validate_any_file(neither)
    assert f"{neither}:1:1: field 'metadata' must be an object" in map(str, found)


def test_every_broken_rule_is_a_path_line_message(tmp_path):
    path = write(tmp_path / "ag.jsonl", [answer("1"), "{not json", answer("2", citations=[5]),
                                         answer("1", text="again"), answer("3", text="w " * 401),
                                         answer("4", run_id="other")])
    obj, found = validate_any_file(path)
    assert obj is None
    assert [str(p) for p in found] == [
        f"{path}:2:2: not valid JSON: Expecting property name enclosed in double quotes",
        f"{path}:3:1: answer sentence 0: citation 5 is not an index into the 2 references",
        f"{path}:4:1: topic '1' already answered on line 1",
        f"{path}:5:1: the answer has 401 words; at most 400 are allowed",
        f"{path}:6:1: run 'other' differs from 'my run' on line 1: one run a file"]
    topics = write(tmp_path / "topics.jsonl", [{"id": "1", "title": "Why?"}, {"id": "1", "title": "Again?"},
                                               {"id": "", "title": ""}])
    _, found = validate_any_file(topics)
    assert [str(p) for p in found] == [
        f"{topics}:2:1: topic '1' already given on line 1",
        f"{topics}:3:1: field 'id' must be a non-empty string without tabs or line breaks, got \"\"",
        f"{topics}:3:1: field 'title' must be a non-empty string"]


def test_the_cli_names_the_kind_and_exits_1_on_any_bad_file(tmp_path):
    good = write(tmp_path / "ag.jsonl", [answer("1"), answer("2", citations=[SEG[1]])])
    topics = write(tmp_path / "topics.jsonl", [{"id": 7, "title": "A narrative. Of two sentences."}])
    bad = write(tmp_path / "bad.jsonl", [answer("1", citations=[2])])
    runner = CliRunner()
    result = runner.invoke(main, ["validate", str(good), str(topics)])
    assert result.exit_code == 0, result.output
    assert f"{good}: valid TREC RAG answer file" in result.stderr and f"{topics}: valid TREC RAG topic file" in result.stderr
    result = runner.invoke(main, ["validate", str(good), str(bad)])
    assert result.exit_code == 1
    assert result.stdout == f"{bad}:1:1: answer sentence 0: citation 2 is not an index into the 2 references\n"
    result = runner.invoke(main, ["validate", "--format", "rag-topics", str(good)])
    assert result.exit_code == 1 and f"{good}:1:1: field 'id' must be a non-empty string" in result.stdout
    result = runner.invoke(main, ["validate", "--max-size", "10", str(good)])
    assert result.exit_code == 1
    assert f"{good}:1:1: file of {good.stat().st_size:,} bytes is larger than the limit of 10 bytes (--max-size)" \
        in result.stdout


def test_validating_json_lines_stays_light(tmp_path):
    """As for XML, `sepia validate` loads no store, numpy or search engine for a JSON-lines file."""
    path = write(tmp_path / "ag.jsonl", [answer("1")])
    script = ("import sys\nfrom sepia.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
              "print('\\n'.join(sys.modules), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", script, "validate", str(path)], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[1])
    loaded = set(done.stderr.split())
    assert "sepia.convert.validate" in loaded
    assert not loaded & {"numpy", "sqlalchemy", "whoosh", "tantivy", "flask"}
