"""Helpers the commands share: read inputs or exit with every problem listed."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from sepia.formats.errors import FormatError
from sepia.scoring.weights import SCHEMES


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


def f_score_options(command):
    """--beta, --theta and --weights: the settings of F(beta) scoring that every scoring command takes."""
    options = [
        click.option("--beta", type=click.FloatRange(0, min_open=True), default=3.0, show_default=True),
        click.option("--theta", type=float, default=0.5, show_default=True,
                     help="BINARIZED: a nugget matches when its best softmatch is strictly above this."),
        click.option("--weights", type=click.Choice(SCHEMES), default="pyramid", show_default=True),
    ]
    for option in reversed(options):
        command = option(command)
    return command
