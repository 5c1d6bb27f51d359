"""`sepia agreement`: how far assessors agree on nugget votes and nugget judgments."""
from __future__ import annotations

import json

import click

from sepia.commands.common import load_or_exit
from sepia.commands.metaeval import expand
from sepia.formats.judgments import read_judgments
from sepia.formats.model import GoldStandard
from sepia.formats.read import expect, read_file
from sepia.versions import stamped


@click.command()
@click.option("--gold", "gold_paths", required=True, multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Gold standard XML with the assessors' vital votes; repeat for more languages.")
@click.option("--judgments", "judgment_paths", multiple=True, type=click.Path(exists=True),
              help="Human nugget judgments TSV, or a directory of *.tsv; repeat for more.")
@click.option("--limit", type=click.IntRange(0), default=20, show_default=True,
              help="Most disputed items listed (0 = all).")
@click.option("--format", "output", type=click.Choice(["table", "json"]), default="table", show_default=True)
def agreement(gold_paths, judgment_paths, limit, output):
    """Fleiss' kappa and Krippendorff's alpha per language for votes and judgments, lone dissent
    per assessor, and the most disputed nuggets and judgments.

    Example: sepia agreement --gold gold.xml --judgments judgments.tsv
    """
    from sepia.metaeval.disputes import agreement_table, assessor_disputes, judgment_items, split_items, vote_items
    from sepia.metaeval.render import agreement_text, json_ready

    golds = [expect(load_or_exit(read_file, p, "gold"), GoldStandard, p) for p in gold_paths]
    labelled = [pair for gold in golds for pair in vote_items(gold)]
    langs = {g.lang for g in golds if g.lang}
    default_lang = langs.pop() if len(langs) == 1 else None
    judgments = [j for p in expand(judgment_paths, "*.tsv") for j in load_or_exit(read_judgments, p)]
    labelled += judgment_items(judgments, default_lang)
    items = [item for _, item in labelled]
    rows = [r.as_dict() for r in agreement_table(labelled)]
    assessors = [a.as_dict() for a in assessor_disputes(items)]
    splits = [s.as_dict() for s in split_items(items, limit or None)]
    if output == "json":
        click.echo(json.dumps(stamped(json_ready({"agreement": rows, "assessors": assessors, "disputed": splits})),
                              ensure_ascii=False, indent=1))
    else:
        click.echo(agreement_text(json_ready(rows), assessors, splits), nl=False)
