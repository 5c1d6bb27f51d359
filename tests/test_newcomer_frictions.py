"""What a new user met on a fresh clone, each fixed: help texts, report widths and legends, plurals,
files written and named, one message for a file of the wrong kind, repeated warnings summarised."""
from __future__ import annotations

import gzip
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.text.plural import counted
from sepia.text.repeated import shape, summarised

CORPORA = Path(__file__).resolve().parents[1] / "corpora"
CS = CORPORA / "cs"


def _commands(command: click.Command, path: tuple[str, ...] = ("sepia",)):
    yield path, command
    if isinstance(command, click.Group):
        for name in command.list_commands(click.Context(command)):
            yield from _commands(command.get_command(click.Context(command), name), path + (name,))


def test_every_command_says_what_it_does():
    silent = [" ".join(path) for path, command in _commands(main) if not (command.help or "").strip()]
    assert silent == []
    export_help = CliRunner().invoke(main, ["export", "--help"]).output
    for name in ("gold", "judgments", "run", "topics"):
        line = next(line for line in export_help.splitlines() if line.strip().startswith(name + " "))
        assert len(line.split()) > 1, line   # a description beside the name


def test_counted():
    assert [counted(1, "run"), counted(2, "run"), counted(0, "topic"), counted(1200, "entry", "entries")] == [
        "1 run", "2 runs", "0 topics", "1,200 entries"]


def test_the_first_one_response_is_singular():
    result = CliRunner().invoke(main, ["evaluate", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs"),
                                       "--depth", "1"])
    assert result.exit_code == 0, result.output
    assert "the first 1 response per topic" in result.output and "1 responses" not in result.output


@pytest.fixture(scope="module")
def budget_report():
    result = CliRunner().invoke(main, ["metaeval", "budget", "--gold", str(CS / "gold.xml"), "--runs", str(CS / "runs"),
                                       "--judgments", str(CS / "judgments.tsv"), "--budgets", "10,50", "--trials", "20"])
    assert result.exit_code == 0, result.output
    return result.output


def test_budget_report_fits_100_columns(budget_report):
    assert max(len(line) for line in budget_report.splitlines()) <= 100
    assert "1 run x 6 topics" in budget_report and "1 runs" not in budget_report


def test_budget_legend_says_what_each_dash_means(budget_report):
    """Every '-' in an aim column is one of the legend's two cases: a budget below 20%, or a row
    without an interval."""
    aim = None
    for line in budget_report.splitlines():
        cells = re.split(r"\s{2,}", line.strip())  # a header may be two words ("human only")
        if "aim" in cells:
            aim = cells.index("aim")
        elif aim is not None and re.match(r"\s+\d+%\s", line) and cells[aim] == "-":
            assert float(cells[0].rstrip("%")) < 20 or set(cells[2:]) == {"-"}, line
    legend = " ".join(budget_report.splitlines()[-3:])
    assert "'-' below 20%, where no aim is set" in legend and "A row of '-'" in legend


def test_tukey_names_the_chart_it_writes(tmp_path):
    chart = tmp_path / "tukey.png"
    result = CliRunner().invoke(main, ["metaeval", "tukey", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs"),
                                       "--trials", "50", "--plot", str(chart)])
    assert result.exit_code == 0, result.output
    assert chart.exists() and f"wrote {chart}" in result.stderr


def test_export_names_the_file_it_writes(on_store, tmp_path):
    assert CliRunner().invoke(main, ["import", str(CS / "topics.xml")]).exit_code == 0
    out = tmp_path / "topics.xml"
    result = CliRunner().invoke(main, ["export", "topics", "--out", str(out)])
    assert result.exit_code == 0 and out.exists() and f"wrote {out}" in result.stderr


def test_xml_given_to_convert_nuggetizer_is_one_message(tmp_path):
    result = CliRunner().invoke(main, ["convert", "nuggetizer", str(CS / "gold.xml"), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "not a JSON lines file" in lines[0] and "looks like XML" in lines[0], lines


def _gzipped(source: Path, target: Path) -> Path:
    target.write_bytes(gzip.compress(source.read_bytes()))
    return target


@pytest.mark.parametrize("args", [
    lambda run, judgments: ["validate", str(run)],
    lambda run, judgments: ["evaluate", "--gold", str(CS / "gold.xml"), "--run", str(run)],
    lambda run, judgments: ["validate", str(judgments)],
    lambda run, judgments: ["evaluate", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs"), "--matcher", "human",
                            "--judgments", str(judgments)],
    lambda run, judgments: ["convert", "nuggetizer", str(judgments), "--out", str(judgments.parent / "out")],
], ids=["validate run", "evaluate run", "validate judgments", "evaluate judgments", "convert nuggetizer"])
def test_a_gzip_file_is_named_gzip(tmp_path, args):
    run = _gzipped(sorted((CS / "runs").glob("*.xml"))[0], tmp_path / "run.xml.gz")
    judgments = _gzipped(CS / "judgments.tsv", tmp_path / "judgments.tsv.gz")
    result = CliRunner().invoke(main, args(run, judgments))
    assert result.exit_code == 1
    problems = [line for line in result.output.splitlines() if ".gz:" in line]
    assert len(problems) == 1 and "gzip-compressed" in problems[0] and "UTF-8" not in problems[0], result.output


def test_summarised_keeps_the_first_of_each_shape():
    messages = [f"topic T{i} has no judgments" for i in range(8)] + ["other"] + ["run R1 is late", "run R2 is late"]
    kept, more = summarised(messages, shape, shown=3)
    assert kept == messages[:3] + ["other", "run R1 is late", "run R2 is late"]
    assert more == [("topic T0 has no judgments", 5)]


def test_wrong_language_judgments_warn_a_few_times_then_count():
    result = CliRunner().invoke(main, ["validate", str(CORPORA / "ja" / "judgments.tsv"), "--gold", str(CS / "gold.xml")])
    assert result.exit_code == 0
    warnings = [line for line in result.stdout.splitlines() if "warning:" in line]
    total = sum(1 for _ in (CORPORA / "ja" / "judgments.tsv").open(encoding="utf-8")) - 1
    assert len(warnings) == 6 and warnings[-1].endswith(f"{total - 5} more warnings like line 2's not shown")
    result = CliRunner().invoke(main, ["evaluate", "--gold", str(CORPORA / "ja" / "gold.xml"),
                                       "--run", str(CORPORA / "ja" / "runs"), "--matcher", "human",
                                       "--judgments", str(CS / "judgments.tsv")])
    no_judgments = [line for line in result.stderr.splitlines() if "no human judgments" in line]
    assert len(no_judgments) == 6 and "more warnings like" in no_judgments[-1]


def test_browser_tests_run_first_then_slow_ones_then_the_rest():
    from types import SimpleNamespace

    import importlib.util

    # tests/conftest.py by its path: under xdist `conftest` may name tests/browser's
    spec = importlib.util.spec_from_file_location("top_conftest", Path(__file__).with_name("conftest.py"))
    top = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(top)
    pytest_collection_modifyitems = top.pytest_collection_modifyitems

    def item(name, folder="tests", marks=()):
        return SimpleNamespace(name=name, path=Path(folder) / f"{name}.py",
                               get_closest_marker=lambda mark: mark if mark in marks else None)

    items = [item("browser_marked", marks=("browser", "slow")), item("slow", marks=("slow",)), item("fast_a"),
             item("in_browser_folder", "tests/browser"), item("fast_b")]
    pytest_collection_modifyitems(items)
    assert [i.name for i in items] == ["browser_marked", "in_browser_folder", "slow", "fast_a", "fast_b"]
