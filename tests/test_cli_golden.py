"""A sample of commands over the campaign store, byte for byte as they printed before the store's
exchange code was split by job and scores were keyed by their settings' identity (issue 35): the
files in tests/golden/commands/ were written by this test on main at e7b0f96, before that change
(`SEPIA_WRITE_GOLDEN=1`). The CS sample is imported, scored from the store (CCLQA under three
matchers, IR4QA, QA) and exported again, and each command's output (stdout and stderr) and exit code
compared."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from golden_helpers import GOLDEN, as_golden

from sepia.cli import main

CS = Path(__file__).resolve().parents[1] / "corpora" / "cs"
RUNS = sorted(p.relative_to(CS).as_posix() for p in [*(CS / "runs").glob("*.xml"), *(CS / "ir4qa").glob("*.xml"),
                                                      *(CS / "qa").glob("*.xml")])

COMMANDS = [
    ("import", ["import", "topics.xml", "gold.xml", *RUNS, "judgments.tsv", "qrels.tsv"]),
    ("import-again", ["import", "gold.xml"]),
    ("evaluate-store-binarized", ["evaluate", "--store"]),
    ("evaluate-store-human", ["evaluate", "--store", "--matcher", "human", "--format", "json"]),
    ("evaluate-store-softmatch", ["evaluate", "--store", "--matcher", "softmatch", "--set", "--allowance", "DEFINITION=20"]),
    ("evaluate-store-binarized-again", ["evaluate", "--store"]),
    ("evaluate-ir4qa-store", ["evaluate-ir4qa", "--store", "--gains", "1:2"]),
    ("evaluate-qa-store", ["evaluate-qa", "--store"]),
    ("export-topics", ["export", "topics"]),
    ("export-gold", ["export", "gold", "--lang", "CS"]),
    ("export-run", ["export", "run", "TEAMA-CS-CS-01-T"]),
    ("export-run-ir4qa", ["export", "run", "TEAMA-CS-CS-01-T", "--kind", "ir4qa"]),
    ("export-judgments", ["export", "judgments"]),
    ("export-qrels", ["export", "qrels"]),
]


@pytest.fixture
def outputs(on_store, monkeypatch):
    monkeypatch.chdir(CS)
    runner = CliRunner()
    return [(name, runner.invoke(main, args)) for name, args in COMMANDS]


def test_each_command_prints_what_it_printed(outputs):
    differ = []
    for name, result in outputs:
        got = f"exit {result.exit_code}\n{result.output}".encode()
        if not as_golden(GOLDEN / "commands" / f"{name}.out", got):
            differ.append(name)
    assert differ == []
    refused = [name for name, result in outputs if result.exit_code]
    assert refused == ["import-again"], [(n, r.output) for n, r in outputs if r.exit_code]  # topics have nuggets
