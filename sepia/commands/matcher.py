"""`sepia matcher train`, and the options and setup of `--matcher learned` for the scoring commands."""
from __future__ import annotations

import click

from sepia.commands.common import expand_run_paths, load_or_exit, warn
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
    --model MODEL` on runs nobody judged."""
    from sepia.scoring.learned.trained import train as train_model

    gold = expect(load_or_exit(read_file, gold_path, "gold"), GoldStandard, gold_path)
    judgments = load_or_exit(read_judgments, judgments_path)
    runs = [load_or_exit(read_file, p, "cclqa") for p in expand_run_paths(run_paths)]
    try:
        model = train_model(gold, runs, judgments)
    except ValueError as exc:  # ModelError, or judgments with one decision only
        raise click.ClickException(str(exc)) from None
    model.save(out_path)
    click.echo(f"{out_path}: learned matcher trained on {model.training['pairs']} judged pairs of "
               f"{len(model.training['runs'])} runs; training data sha256 {model.training['digest']}")


def learned_options(command):
    """--model, --threshold and --holdout: how `--matcher learned` is made and decides."""
    options = [
        click.option("--model", "model_path", type=click.Path(exists=True, dir_okay=False),
                     help="Learned matcher: a model from `sepia matcher train` (else it learns from --judgments, "
                          "scoring each run with a model that never saw that run's judgments)."),
        click.option("--threshold", type=click.FloatRange(0, 1), default=None,
                     help="Learned matcher: a nugget matches when its probability reaches this "
                          "(default: expected matches, the probability itself)."),
        click.option("--holdout", type=click.Choice(["run", "team"]), default="run", show_default=True,
                     help="Learned matcher from --judgments: leave out each run's own judgments, or its whole team's."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def learned_setting(model_path, threshold, holdout) -> str:
    """How the learned matcher was made and decides, for the title of its scores."""
    source = (f"model {model_path}" if model_path
              else f"each run scored by a model of the other {holdout}s' judgments")
    return f"{source}; {'expected matches' if threshold is None else f'threshold {threshold:g}'}"


def learned_matcher(gold, runs, judgments, model_path, threshold, holdout):
    """The learned matcher for these runs, or exit with one line saying what is missing or wrong."""
    from sepia.scoring import learned

    try:
        if model_path:
            made = learned.from_model(model_path, gold, runs, threshold)
            seen = sorted(made.trained_on & {r.run_id for r in runs})
            if seen:
                warn(f"the model learnt from the judgments of {', '.join(seen)}: their scores are not estimates "
                     "for unjudged runs")
            return made
        if judgments is None:
            raise click.UsageError("--matcher learned needs --model MODEL or --judgments FILE.tsv")
        made = learned.cross_run(gold, runs, judgments, holdout, threshold)
    except ValueError as exc:  # ModelError, or judgments with one decision only
        raise click.ClickException(str(exc)) from None
    covered = {key[0] for key in made.probabilities}
    for run in runs:
        if run.run_id not in covered and any(t.answers for t in run.topics):
            warn(f"run {run.run_id}: no other {holdout}'s judgments to learn from (scored as no match)")
    return made
