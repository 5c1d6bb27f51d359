"""`sepia stats GOLD.xml`: the nugget statistics table by language and answer type."""
from __future__ import annotations

import json

import click

from sepia import vocab
from sepia.commands.common import load_or_exit
from sepia.formats.model import GoldStandard
from sepia.formats.read import expect, read_file
from sepia.scoring.stats import nugget_stats
from sepia.scoring.weights import SCHEMES
from sepia.text.columns import aligned


@click.command()
@click.argument("gold_path", type=click.Path(exists=True, dir_okay=False))
@click.option("--weights", type=click.Choice(SCHEMES), default="pyramid", show_default=True)
@click.option("--format", "output", type=click.Choice(["table", "json"]), default="table", show_default=True)
def stats(gold_path, weights, output):
    """Topics, mean nuggets per topic, mean nugget length (the default allowance C) and mean weight."""
    gold = expect(load_or_exit(read_file, gold_path, "gold"), GoldStandard, gold_path)
    rows = nugget_stats(gold, weights)
    if output == "json":
        click.echo(json.dumps([r.as_dict() for r in rows], ensure_ascii=False, indent=2))
        return
    header = ("LANG", "TYPE", "TOPICS", "NUGGETS", "NUGGETS/TOPIC", "CHARS/NUGGET", "WEIGHT")
    table = [header] + [(r.lang, vocab.ANSWER_TYPE_ABBREVIATIONS.get(r.answer_type, r.answer_type), str(r.topics),
                         str(r.nuggets), f"{r.mean_nuggets:.1f}", f"{r.mean_length:.1f}", f"{r.mean_weight:.2f}")
                        for r in rows]
    for line in aligned(table, left=2):
        click.echo(line)
