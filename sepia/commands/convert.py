"""`sepia convert`: turn other campaigns' files into SEPIA's exchange formats."""
from __future__ import annotations

import click

from sepia.commands.common import load_or_exit, warn
from sepia.convert.nuggetizer import OutputExists, check_output_dir, convert_nuggetizer, write_conversion


@click.group()
def convert() -> None:
    """Convert other evaluation campaigns' files into SEPIA's formats."""


@convert.command()
@click.argument("path", metavar="FILE.jsonl", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Directory for gold.xml, topics.xml, topics.tsv, runs/, runs.tsv and judgments.tsv.")
@click.option("--strict", "partial", flag_value=0.0, type=float,
              help="Write partial_support as match 0 (only support is a match).")
@click.option("--partial-as-match", "partial", flag_value=1.0, type=float,
              help="Write partial_support as match 1.")
@click.option("--partial-as-half", "partial", flag_value=0.5, type=float, default=True,
              help="Write partial_support as match 0.5, TREC RAG's half credit (the default).")
@click.option("--prefix", default="RAG", show_default=True,
              help="Topic ID prefix: qid 2024-142395 becomes RAG2024-EN-142395.")
@click.option("--force", is_flag=True, help="Replace the conversion files in a non-empty --out directory.")
def nuggetizer(path, out_dir, partial, prefix, force):
    """Convert TREC RAG 2024 / nuggetizer nugget assignments (JSONL).

    Writes a gold standard (one vote per nugget by assessor `trec`: vital is vital, okay is not), one
    CCLQA run per run ID (the whole answer as one SR), the assignments as human judgments (support is
    match 1, not_support 0, partial_support 0.5; --strict writes 0, --partial-as-match 1), the topics, and the mappings from
    the original qids and run IDs to SEPIA's. Nothing is written when the input has a problem; every
    problem is listed as PATH:LINE:COLUMN: message.

    \b
    Example:
      sepia convert nuggetizer rag24_nugget_assignment.20241108.jl --out rag24
    """
    if not prefix.isascii() or not prefix.isalnum():
        raise click.BadParameter("letters and digits only", param_hint="--prefix")
    try:
        check_output_dir(out_dir, force)
        conversion = load_or_exit(convert_nuggetizer, path, partial=partial, prefix=prefix)
        for message in conversion.warnings:
            warn(message)
        write_conversion(conversion, out_dir, force)
    except (OutputExists, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    counted = {0.0: "no match", 0.5: "match 0.5", 1.0: "match"}[partial]
    click.echo(f"{out_dir}: {len(conversion.gold.topics)} topics, {len(conversion.runs)} runs, "
               f"{len(conversion.judgments)} judgments ({conversion.partial_count} partial_support "
               f"counted as {counted})")
