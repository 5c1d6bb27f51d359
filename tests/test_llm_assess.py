"""`sepia assess`: the LLM's decisions as a judgments TSV and nuggetizer JSONL that score, re-imported
with --auto-judgments, exactly as --matcher llm does; undecided pairs apart; `--dry-run` counts the
requests (by hand here) and asks nothing."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from llm_stub import Stub, asked, labels
from sepia.cli import main
from sepia.formats.read import read_file
from sepia.llm.assessor import served_model
from test_llm_matcher import RAG24, consistent_copy, in_text

CS = Path(__file__).resolve().parents[1] / "corpora" / "cs"


@pytest.fixture(autouse=True)
def fresh(tmp_path, monkeypatch):
    monkeypatch.setenv("SEPIA_LLM_CACHE", str(tmp_path / "llm-cache"))
    served_model.cache_clear()


def run(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


def scores(*args) -> dict[str, float]:
    result = run("evaluate", "--format", "json", *args)
    assert result.exit_code == 0, result.output
    return {r["run_id"]: r["score"] for r in json.loads(result.stdout)["runs"]}


def test_the_tsv_scores_as_the_matcher_and_compares_with_the_humans(tmp_path):
    files = ["--gold", CS / "gold.xml", "--run", CS / "runs"]
    with Stub(in_text) as stub:
        out = run("assess", *files, "--matcher-option", f"base_url={stub.url}", "--out", tmp_path / "llm")
        assert out.exit_code == 0, out.output
        direct = scores(*files, "--matcher", "llm", "--matcher-option", f"base_url={stub.url}")
    assert str(tmp_path / "llm" / "judgments.tsv") in out.stdout and "0 undecided" in out.stdout
    assert scores(*files, "--auto-judgments", tmp_path / "llm" / "judgments.tsv") == direct
    agreement = run("agreement", "--gold", CS / "gold.xml", "--judgments", CS / "judgments.tsv",
                    "--judgments", tmp_path / "llm" / "judgments.tsv", "--by", "assessor", "--format", "json")
    assert agreement.exit_code == 0, agreement.output
    assert "llm-assessor" in {a["assessor"] for a in json.loads(agreement.stdout)["assessors"]}


def test_undecided_pairs_are_written_apart(tmp_path):
    def half(payload):
        passage, nuggets = asked(payload)
        return "no idea" if "嫦娥" in passage else labels(*["support"] * len(nuggets))

    with Stub(half) as stub:
        out = run("assess", "--gold", CS / "gold.xml", "--run", CS / "runs", "--matcher-option",
                  f"base_url={stub.url}", "--out", tmp_path)
    assert out.exit_code == 0, out.output
    undecided = (tmp_path / "undecided.tsv").read_text().splitlines()
    assert undecided[0] == "topic_id\trun_id\tnugget_id" and len(undecided) > 1
    gold = read_file(CS / "gold.xml", "gold")
    nuggets = {t.topic_id: [n.nugget_id for n in t.nuggets] for t in gold.topics}
    expected = [f"{t.topic_id}\t{r.run_id}\t{n}" for r in (read_file(p, "cclqa") for p in sorted((CS / "runs").glob("*.xml")))
                for t in r.topics if any("嫦娥" in a.text for a in t.answers) for n in nuggets[t.topic_id]]
    assert sorted(undecided[1:]) == sorted(expected)
    judged = {tuple(line.split("\t")[:2]) for line in (tmp_path / "judgments.tsv").read_text().splitlines()[1:]}
    assert judged and not judged & {tuple(line.split("\t")[:2]) for line in expected}
    assert f"({len(undecided) - 1} undecided)" in out.stdout and "undecided, scored as no match" in out.stderr


def test_dry_run_counts_without_asking(tmp_path):
    gold = read_file(CS / "gold.xml", "gold")
    runs = [read_file(p, "cclqa") for p in sorted((CS / "runs").glob("*.xml"))]
    sizes = {t.topic_id: len(t.nuggets) for t in gold.topics}
    answered = [sizes[t.topic_id] for r in runs for t in r.topics if t.answers and sizes.get(t.topic_id)]
    for batch in (3, 10):
        out = run("assess", "--gold", CS / "gold.xml", "--run", CS / "runs", "--dry-run",
                  "--matcher-option", "base_url=http://127.0.0.1:9/v1", "--matcher-option", f"batch={batch}")
        assert out.exit_code == 0, out.output
        requests = sum(-(-n // batch) for n in answered)
        assert (f"{len(answered)} (run, topic) responses, {sum(answered)} nugget decisions: {requests} requests "
                f"of up to {batch} nuggets") in out.stdout
    assert not (tmp_path / "llm-cache").exists()


def test_refusals(tmp_path):
    base = ["assess", "--gold", CS / "gold.xml", "--run", CS / "runs", "--matcher-option", "base_url=http://127.0.0.1:9/v1"]
    assert "--out DIR" in run(*base).output
    assert "built-in matcher" in run(*base, "--out", tmp_path, "--assessor", "llm").output
    (tmp_path / "judgments.tsv").write_text("x")
    assert "--force" in run(*base, "--out", tmp_path).output
    assert "takes no option colour" in run(*base, "--dry-run", "--matcher-option", "colour=red").output


@pytest.mark.skipif(not RAG24.exists(), reason="TREC RAG 2024 data not in ../shared/data")
def test_trec_rag24_jsonl_reimports_as_the_file_replayed(tmp_path):
    replayed = tmp_path / "rag24.jl"
    consistent_copy(RAG24, replayed)
    converted = tmp_path / "rag24"
    assert run("convert", "nuggetizer", replayed, "--out", converted).exit_code == 0
    decided = {}
    for line in replayed.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for n in record["nuggets"]:
            decided[(" ".join(record["answer_text"].split()), " ".join(n["text"].split()))] = n["assignment"]

    def replay(payload):
        passage, nuggets = asked(payload)
        return labels(*[decided.get((" ".join(passage.split()), n), "support") for n in nuggets])

    with Stub(replay) as stub:
        out = run("assess", "--gold", converted / "gold.xml", "--run", converted / "runs", "--matcher-option",
                  f"base_url={stub.url}", "--matcher-option", "concurrency=8", "--topics-map", converted / "topics.tsv",
                  "--runs-map", converted / "runs.tsv", "--out", tmp_path / "llm")
    assert out.exit_code == 0, out.output
    files = ["--gold", converted / "gold.xml", "--run", converted / "runs"]
    expected = scores(*files, "--auto-judgments", replayed)
    assert len(expected) == 45
    assert scores(*files, "--auto-judgments", tmp_path / "llm" / "assignments.jsonl") == expected
