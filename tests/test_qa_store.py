"""`sepia evaluate-qa --store`: the QA runs and topics imported into the campaign store (with their
gold key terms) give the same scores as the files, on SQLite and PostgreSQL."""
import json
from pathlib import Path

from click.testing import CliRunner

from sepia.cli import main

DATA = Path(__file__).resolve().parent / "data"
RUNS = sorted((DATA / "qa_runs").glob("*.xml"))


def run(*args):
    return CliRunner().invoke(main, list(map(str, args)))


def answer_type_scores(document) -> dict:
    return {r["run_id"]: (r["accuracy"], r["by_type"], r["confusion"], [t["predicted_type"] for t in r["topics"]])
            for r in document["runs"]}


def test_store_scores_equal_the_files_answer_type_scores(on_store):
    assert run("import", DATA / "qa_topics.xml", *RUNS).exit_code == 0
    stored = run("evaluate-qa", "--store", "--format", "json")
    assert stored.exit_code == 0, stored.output
    files = run("evaluate-qa", "--topics", DATA / "qa_topics.xml", "--run", *RUNS, "--format", "json")
    assert answer_type_scores(json.loads(stored.stdout)) == answer_type_scores(json.loads(files.stdout))
    assert json.loads(stored.stdout)["runs"] == json.loads(files.stdout)["runs"]  # key terms too
    assert any(r["key_term_recall"] is not None for r in json.loads(stored.stdout)["runs"])
    one = json.loads(run("evaluate-qa", "--store", "--lang-pair", "ja-ja", "--format", "json").stdout)
    assert [r["run_id"] for r in one["runs"]] == ["TEAMC-JA-JA-01-T"]
    named = run("evaluate-qa", "--store", "--run-id", "TEAMA-CS-CS-01-T")
    assert named.exit_code == 0 and "TEAMA-CS-CS-01-T    0.7500" in named.stdout


def test_store_without_qa_runs_or_with_an_unknown_run_exits_1(on_store):
    empty = run("evaluate-qa", "--store")
    assert empty.exit_code == 1 and "holds no Question Analysis runs" in empty.output
    assert run("import", DATA / "qa_runs" / "TEAMC-JA-JA-01-T.xml").exit_code == 0
    no_topics = run("evaluate-qa", "--store")
    assert no_topics.exit_code == 1 and "no topic with an answer type" in no_topics.output
    unknown = run("evaluate-qa", "--store", "--run-id", "NOPE-CS-CS-01-T")
    assert unknown.exit_code == 1 and "no Question Analysis run NOPE-CS-CS-01-T in the store" in unknown.output


def test_import_and_export_keep_the_topics_key_terms(on_store, tmp_path):
    from sepia.formats.read import read_file

    assert run("import", DATA / "qa_topics.xml").exit_code == 0
    exported = run("export", "topics")
    assert exported.exit_code == 0, exported.output
    (tmp_path / "out.xml").write_text(exported.stdout, encoding="utf-8")
    back = {t.topic_id: t for t in read_file(tmp_path / "out.xml", "topic").topics}
    original = {t.topic_id: t for t in read_file(DATA / "qa_topics.xml", "topic").topics}
    assert back == original and any(t.key_terms for t in back.values())
