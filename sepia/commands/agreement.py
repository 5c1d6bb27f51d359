"""`sepia agreement`: how far assessors agree on nugget votes and nugget judgments."""
from __future__ import annotations

import json
from typing import Any

import click

from sepia.commands.common import expand_run_paths, load_or_exit
from sepia.commands.metaeval import expand
from sepia.formats.judgments import read_judgments
from sepia.formats.model import CCLQARun, GoldStandard
from sepia.formats.read import expect, read_file
from sepia.versions import stamped

GROUPINGS = ("assessor", "topic", "type", "lang", "run")


def _judgments(paths) -> list:
    return [j for p in expand(paths, "*.tsv") for j in load_or_exit(read_judgments, p)]


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
    from sepia.metaeval.disputes import agreement_table, assessor_disputes, judgment_items, split_items, vote_items
    from sepia.metaeval.render import agreement_text, json_ready

    if bool(after_paths) != bool(run_paths):
        raise click.UsageError("--after and --run go together: the runs whose score change is split")
    golds = [expect(load_or_exit(read_file, p, "gold"), GoldStandard, p) for p in gold_paths]
    labelled = [pair for gold in golds for pair in vote_items(gold)]
    langs = {g.lang for g in golds if g.lang}
    default_lang = langs.pop() if len(langs) == 1 else None
    judgments = _judgments(judgment_paths)
    labelled += judgment_items(judgments, default_lang)
    items = [item for _, item in labelled]
    report: dict[str, Any] = {"agreement": [r.as_dict() for r in agreement_table(labelled)],
              "assessors": [a.as_dict() for a in assessor_disputes(items)],
              "disputed": [s.as_dict() for s in split_items(items, limit or None)]}
    gold = _merged(golds)
    if groupings:
        report["by"] = _grouped(gold, judgments, groupings)
    if after_paths:
        from sepia.metaeval.rounds import score_change

        runs = [expect(load_or_exit(read_file, p, "cclqa"), CCLQARun, p) for p in expand_run_paths(run_paths)]
        report["changes"] = [c.as_dict() for c in score_change(gold, runs, judgments, _judgments(after_paths))]
    report = json_ready(report)
    if output == "json":
        click.echo(json.dumps(stamped(report), ensure_ascii=False, indent=1))
        return
    click.echo(agreement_text(report["agreement"], report["assessors"], report["disputed"]), nl=False)
    _echo_extras(report)


def _merged(golds: list[GoldStandard]) -> GoldStandard:
    langs = {g.lang for g in golds}
    return GoldStandard(langs.pop() if len(langs) == 1 else None, [t for g in golds for t in g.topics])


def _grouped(gold: GoldStandard, judgments, groupings) -> dict:
    from sepia.metaeval.assessors import assessor_quality, dispute_rates, kappa_matrix, match_units, vote_units

    units = vote_units(gold) + match_units(judgments, gold)
    grouped = {}
    for by in dict.fromkeys(groupings):
        if by == "assessor":
            grouped[by] = {"quality": [r.as_dict() for r in assessor_quality(units)],
                           "kappa": [p.as_dict() for p in kappa_matrix(units)]}
        grouped.setdefault("disputes", {})[by] = [r.as_dict() for r in dispute_rates(units, by)]
    return grouped


def _echo_extras(report: dict) -> None:
    from sepia.metaeval.assessors_render import changes_text, quality_text, rates_text

    grouped = report.get("by", {})
    if "assessor" in grouped:
        click.echo("\n" + quality_text(grouped["assessor"]["quality"], grouped["assessor"]["kappa"]), nl=False)
    for by, rows in grouped.get("disputes", {}).items():
        click.echo("\n" + rates_text(by, rows), nl=False)
    if "changes" in report:
        click.echo("\n" + changes_text(report["changes"]), nl=False)
