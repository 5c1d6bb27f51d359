"""Helpers the commands share: read inputs or exit with every problem listed."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from sepia.formats.errors import FormatError


def load_or_exit(reader, *args, **kwargs):
    """Call a reader; on bad input print each problem (PATH:LINE:COLUMN: message) and exit 1."""
    try:
        return reader(*args, **kwargs)
    except FormatError as exc:
        for problem in exc.problems:
            click.echo(str(problem), err=True)
        sys.exit(1)


def warn(message: str) -> None:
    click.secho(f"warning: {message}", fg="yellow", err=True)


def expand_run_paths(paths) -> list[str]:
    """Files as given; a folder stands for the .xml files in it, in name order."""
    files = []
    for path in map(Path, paths):
        files += sorted(map(str, path.glob("*.xml"))) if path.is_dir() else [str(path)]
    return files
