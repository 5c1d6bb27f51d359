"""`sepia --help` lists the commands from the registry without importing them: the summaries stay
equal to the commands' own help, and neither the help nor `sepia validate` loads the store, numpy or
another command's module."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from sepia.cli import COMMANDS, main

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("sqlalchemy", "numpy", "scipy", "flask")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_registry_summary_is_the_commands_own(name):
    command = main.get_command(click.Context(main), name)
    for limit in (20, 45, 80, 10_000):
        expected = command.get_short_help_str(limit)
        assert click.Command(name, help=COMMANDS[name].summary).get_short_help_str(limit) == expected


def test_help_is_clicks_layout_of_the_imported_commands():
    lazy = CliRunner().invoke(main, ["--help"], prog_name="sepia")
    imported = click.Group(name="sepia", help=main.help,
                           commands={name: main.get_command(click.Context(main), name) for name in COMMANDS},
                           context_settings=main.context_settings, params=main.params)
    eager = CliRunner().invoke(imported, ["--help"], prog_name="sepia")
    assert lazy.exit_code == eager.exit_code == 0
    assert lazy.output == eager.output
    assert "validate" in lazy.output and "evaluate-ir4qa" in lazy.output


def _modules_after(*args: str) -> set[str]:
    script = ("import sys\nfrom sepia.cli import main\n"
              "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
              "print('\\n'.join(sys.modules), file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, cwd=ROOT)
    return set(done.stderr.split())


def test_help_imports_no_command():
    loaded = _modules_after("--help")
    assert not [m for m in loaded if m.startswith("sepia.commands") or m.split(".")[0] in HEAVY]


def test_validate_imports_only_validation():
    loaded = _modules_after("validate", str(ROOT / "corpora" / "cs" / "judgments.tsv"),
                            str(ROOT / "corpora" / "cs" / "gold.xml"))
    assert "sepia.formats.validate" in loaded
    assert not [m for m in loaded if m.split(".")[0] in HEAVY]
    assert not [m for m in loaded if m.startswith("sepia.commands.") and m != "sepia.commands.validate"]
