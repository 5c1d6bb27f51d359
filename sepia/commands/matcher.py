"""`sepia matcher train`: the learned matcher's model, for `--matcher learned --matcher-option model=MODEL`."""
from __future__ import annotations

import click

from sepia.commands.common import expand_run_paths, load_or_exit, write_output
from sepia.formats.judgments import read_judgments
from sepia.formats.model import GoldStandard
from sepia.formats.read import expect, read_file


@click.group()
def matcher() -> None:
    """Matchers that are made before they score: the learned matcher's model."""


@matcher.command()
@click.option("--gold", "gold_path", required=True, type=click.Path(exists=True, dir_okay=False), help="Gold standard XML.")
@click.option("--judgments", "judgments_path", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Human nugget judgments TSV of the runs given.")
@click.option("--run", "run_paths", required=True, multiple=True, type=click.Path(exists=True),
              help="The judged CCLQA runs (their answers' text): a file or a folder; repeat for several.")
@click.option("--out", "out_path", required=True, type=click.Path(dir_okay=False), help="Model file to write (JSON).")
def train(gold_path, judgments_path, run_paths, out_path):
    """Train the learned matcher on human judgments and save it, for `sepia evaluate --matcher learned
    --matcher-option model=MODEL` on runs nobody judged."""
    from sepia.matchers.learned.trained import train as train_model

    gold = expect(load_or_exit(read_file, gold_path, "gold"), GoldStandard, gold_path)
    judgments = load_or_exit(read_judgments, judgments_path)
    runs = [load_or_exit(read_file, p, "cclqa") for p in expand_run_paths(run_paths)]
    try:
        model = train_model(gold, runs, judgments)
    except ValueError as exc:  # ModelError, or judgments with one decision only
        raise click.ClickException(str(exc)) from None
    write_output(out_path, model.to_json())
    click.echo(f"{out_path}: learned matcher trained on {model.training['pairs']} judged pairs of "
               f"{len(model.training['runs'])} {'/'.join(model.training['languages'])} runs; training data sha256 {model.training['digest']}")
