"""The command-line frictions of issue 33: every command that writes a file creates its folder or says
in one line why it cannot; the learned matcher's model records the languages it was trained on and
refuses runs of another; a run of a language the gold standard lacks exits alike in `evaluate` and
`evaluate-ir4qa`; `metaeval budget` takes the scoring options `evaluate` takes."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sepia.cli import main

ROOT = Path(__file__).resolve().parents[1]
CS, JA = ROOT / "corpora" / "cs", ROOT / "corpora" / "ja"


def _writers(tmp_path) -> dict[str, tuple[list[str], str]]:
    """Each file-writing command that needs no store: (its arguments but the output, its output option)."""
    run = next((CS / "runs").glob("*.xml"))
    return {
        "matcher train": (["matcher", "train", "--gold", str(CS / "gold.xml"), "--judgments", str(CS / "judgments.tsv"),
                           "--run", str(CS / "runs")], "--out"),
        "convert to-rag-topics": (["convert", "to-rag-topics", str(CS / "topics.xml")], "--out"),
        "metaeval tukey --plot": (["metaeval", "tukey", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs"),
                                   "--trials", "50"], "--plot"),
        "convert to-nuggetizer": (["convert", "to-nuggetizer", "--gold", str(CS / "gold.xml"), "--run", str(run)],
                                  "--nuggets"),
    }


@pytest.mark.parametrize("name", ["matcher train", "convert to-rag-topics", "metaeval tukey --plot",
                                  "convert to-nuggetizer"])
def test_a_command_writing_a_file_creates_its_folder_or_says_why_not(tmp_path, name):
    """Issue 33: `sepia matcher train --out missing/dir/m.json` printed a 36-line traceback."""
    args, option = _writers(tmp_path)[name]
    target = tmp_path / "missing" / "dir" / ("out.png" if "plot" in option else "out.json")
    result = CliRunner().invoke(main, [*args, option, str(target)])
    assert result.exit_code == 0, result.output
    assert target.exists() and target.stat().st_size > 0
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    result = CliRunner().invoke(main, [*args, option, str(blocker / "m.json")])
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and f"{blocker / 'm.json'}" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_store_exports_create_their_folder(tmp_path, sepia_home):
    runner = CliRunner()
    assert runner.invoke(main, ["import", str(CS / "topics.xml"), str(CS / "gold.xml")]).exit_code == 0
    for args in (["export", "topics"], ["export", "gold"], ["gold", "export"]):
        target = tmp_path / "exports" / args[-1] / f"{'-'.join(args)}.xml"
        result = runner.invoke(main, [*args, "--out", str(target)])
        assert result.exit_code == 0 and target.read_bytes().startswith(b"<?xml"), (args, result.output)


def test_metaeval_budget_takes_the_scoring_options_of_evaluate():
    """Issue 33: `metaeval budget` had no --allowance (nor --partial, --numbers, --stem, ...) though
    `evaluate` has them: the simulation scored with other settings than the campaign's."""
    import json

    from sepia.formats.judgments import read_judgments
    from sepia.formats.read import read_file
    from sepia.metaeval.budget import paired_scores

    base = ["metaeval", "budget", "--gold", str(CS / "gold.xml"), "--runs", str(CS / "runs"), "--judgments",
            str(CS / "judgments.tsv"), "--budgets", "50", "--trials", "20", "--format", "json"]
    runner = CliRunner()
    default, tight = (runner.invoke(main, base + extra) for extra in ([], ["--allowance", "5", "--numbers", "strict",
                                                                         "--partial", "1"]))
    assert default.exit_code == tight.exit_code == 0, tight.output
    assert {k: v for k, v in json.loads(default.stdout).items() if k != "sepia"} != \
        {k: v for k, v in json.loads(tight.stdout).items() if k != "sepia"}
    gold = read_file(CS / "gold.xml", "gold")
    runs = [read_file(p, "cclqa") for p in sorted((CS / "runs").glob("*.xml"))]
    groups, _ = paired_scores(gold, runs, read_judgments(CS / "judgments.tsv"), "binarized", allowance=5.0,
                              numbers="strict", partial=1.0)
    evaluated = json.loads(runner.invoke(main, ["evaluate", "--gold", str(CS / "gold.xml"), str(CS / "runs"),
                                                "--allowance", "5", "--numbers", "strict", "--format", "json"]).stdout)
    f = {r["run_id"]: r["score"] for r in evaluated["runs"]}
    for group in groups:  # the simulation's automatic scores are evaluate's with the same options
        for run_id, row in zip(group.runs, group.automatic):
            assert row.mean() == pytest.approx(f[run_id])
    bad = runner.invoke(main, base + ["--allowance", "ten"])
    assert bad.exit_code == 2 and "--allowance" in bad.output


@pytest.mark.parametrize("command, gold, run", [
    ("evaluate", ["--gold", str(CS / "gold.xml")], JA / "runs" / "TEAMA-JA-JA-01-T.xml"),
    ("evaluate-ir4qa", ["--qrels", str(CS / "qrels.tsv")], JA / "ir4qa" / "TEAMA-JA-JA-01-T.xml"),
    ("evaluate-qa", ["--topics", str(CS / "topics.xml")], JA / "qa" / "TEAMA-JA-JA-01-T.xml"),
])
def test_a_run_of_a_language_the_gold_lacks_exits_1_everywhere(command, gold, run):
    """Issue 33: a JA run against a CS gold standard exited 0 with "0 topics" in `evaluate` but 1 in
    `evaluate-ir4qa`. Every scoring command now shows the run, then exits 1 naming it."""
    result = CliRunner().invoke(main, [command, *gold, str(run)])
    assert result.exit_code == 1, result.output
    assert "error: no topic scored for TEAMA-JA-JA-01-T (see the warnings above)" in result.stderr
    assert "TEAMA-JA-JA-01-T" in result.stdout  # the output that shows it comes first
    both = CliRunner().invoke(main, [command, *gold, str(run), str(Path(str(run).replace("/ja/", "/cs/")
                                                                        .replace("JA-JA", "CS-CS")))])
    assert both.exit_code == 1 and "TEAMA-CS-CS-01-T" in both.stdout


def test_a_learned_model_records_its_languages_and_warns_about_another(tmp_path):
    """Issue 33: a model trained on CS runs gave JA runs 0.81 against a human 0.06 without a word."""
    import json

    runner = CliRunner()
    model = tmp_path / "cs.json"
    trained = runner.invoke(main, ["matcher", "train", "--gold", str(CS / "gold.xml"), "--judgments",
                                   str(CS / "judgments.tsv"), "--run", str(CS / "runs"), "--out", str(model)])
    assert trained.exit_code == 0 and " CS runs; training data" in trained.output, trained.output
    assert json.loads(model.read_text(encoding="utf-8"))["training"]["languages"] == ["CS"]
    learned = ["--matcher", "learned", "--matcher-option", f"model={model}"]
    ja = runner.invoke(main, ["evaluate", "--gold", str(JA / "gold.xml"), str(JA / "runs"), *learned])
    assert ja.exit_code == 0, ja.output
    assert ("warning: the model was trained on CS runs only: its scores of the JA runs TEAMA-JA-JA-01-T, "
            "TEAMB-JA-JA-01-T, TEAMC-JA-JA-01-T, TEAMX-EN-JA-01-T are not learnt from JA judgments") in ja.stderr
    cs = runner.invoke(main, ["evaluate", "--gold", str(CS / "gold.xml"), str(CS / "runs"), *learned])
    assert cs.exit_code == 0 and "was trained on" not in cs.stderr
    document = json.loads(model.read_text(encoding="utf-8"))
    del document["training"]["languages"]  # a model made before the languages were recorded
    model.write_text(json.dumps(document), encoding="utf-8")
    old = runner.invoke(main, ["evaluate", "--gold", str(JA / "gold.xml"), str(JA / "runs"), *learned])
    assert "the model records no languages it was trained on" in old.stderr
