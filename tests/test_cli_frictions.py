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
