"""`sepia agreement`: how far assessors agree on nugget votes and nugget judgments."""
from __future__ import annotations

import click

from sepia.api import GROUPINGS
from sepia.commands.common import load_or_exit


@click.command()
@click.option("--gold", "gold_paths", required=True, multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Gold standard XML with the assessors' vital votes; repeat for more languages.")
@click.option("--judgments", "judgment_paths", multiple=True, type=click.Path(exists=True),
              help="Human nugget judgments TSV, or a directory of *.tsv; repeat for more.")
@click.option("--limit", type=click.IntRange(0), default=20, show_default=True,
              help="Most disputed items listed (0 = all).")
@click.option("--by", "groupings", multiple=True, type=click.Choice(GROUPINGS),
              help="Per assessor: agreement with adjudication, Cohen's kappa per pair, lone dissent; per topic, "
                   "answer type, language or run: the dispute rate. Repeat for several.")
@click.option("--after", "after_paths", multiple=True, type=click.Path(exists=True),
              help="A second round of judgments (TSV or directory): each --run's human F change from the "
                   "--judgments round, split by assessor and by topic.")
@click.option("--run", "run_paths", multiple=True, type=click.Path(exists=True),
              help="CCLQA run XML, or a directory of them, for --after.")
@click.option("--format", "output", type=click.Choice(["table", "json"]), default="table", show_default=True)
def agreement(gold_paths, judgment_paths, limit, groupings, after_paths, run_paths, output):
    """Fleiss' kappa and Krippendorff's alpha per language for votes and judgments (yes/no, and for
    judgments also support/partial/not), lone dissent per assessor, and the most disputed nuggets
    and judgments.

    Example: sepia agreement --gold gold.xml --judgments judgments.tsv --by assessor --by topic
    """
    from sepia import api

    if bool(after_paths) != bool(run_paths):
        raise click.UsageError("--after and --run go together: the runs whose score change is split")
    result = load_or_exit(api.agreement, gold=gold_paths, judgments=judgment_paths, limit=limit, by=groupings,
                          after=after_paths, runs=run_paths)
    click.echo(result.render(output), nl=False)
