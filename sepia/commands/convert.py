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
@click.option("--partial-as-match", is_flag=True,
              help="Count partial_support as a match. Default: strict, only support is a match "
                   "(partial_support and not_support are match 0).")
@click.option("--prefix", default="RAG", show_default=True,
              help="Topic ID prefix: qid 2024-142395 becomes RAG2024-EN-142395.")
@click.option("--force", is_flag=True, help="Replace the conversion files in a non-empty --out directory.")
def nuggetizer(path, out_dir, partial_as_match, prefix, force):
    """Convert TREC RAG 2024 / nuggetizer nugget assignments (JSONL).

    Writes a gold standard (one vote per nugget by assessor `trec`: vital is vital, okay is not), one
    CCLQA run per run ID (the whole answer as one SR), the assignments as human judgments (support is
    a match; partial_support is not, unless --partial-as-match), the topics, and the mappings from
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
        conversion = load_or_exit(convert_nuggetizer, path, partial_as_match=partial_as_match, prefix=prefix)
        for message in conversion.warnings:
            warn(message)
        write_conversion(conversion, out_dir, force)
    except (OutputExists, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    partial = "match" if partial_as_match else "no match"
    click.echo(f"{out_dir}: {len(conversion.gold.topics)} topics, {len(conversion.runs)} runs, "
               f"{len(conversion.judgments)} judgments ({conversion.partial_count} partial_support "
               f"counted as {partial})")
