"""`sepia convert`: turn other campaigns' files into SEPIA's exchange formats."""
from __future__ import annotations

import sys

import click

from sepia.commands.common import expand_run_paths, load_or_exit, warn, write_output
from sepia.convert.nuggetizer import (OutputExists, check_output_dir, convert_nuggetizer, read_mapping,
                                      write_conversion)
from sepia.formats.model import CCLQARun, GoldStandard, TopicSet
from sepia.formats.read import expect, read_file

_prefix = click.option("--prefix", default="RAG", show_default=True,
                       help="Topic ID prefix: qid 2024-142395 becomes RAG2024-EN-142395.")
_year = click.option("--year", help="Year of qids made of digits only (TREC RAG 2025's 1, 2, ...): "
                                    "with --year 2025, qid 7 becomes RAG2025-EN-7.")
_force = click.option("--force", is_flag=True, help="Replace the conversion files in a non-empty --out directory.")


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
@_prefix
@_year
@_force
def nuggetizer(path, out_dir, partial, prefix, year, force):
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
    conversion = _convert(out_dir, force, prefix, year, convert_nuggetizer, path, partial=partial)
    counted = {0.0: "no match", 0.5: "match 0.5", 1.0: "match"}[partial]
    click.echo(f"{out_dir}: {len(conversion.gold.topics)} topics, {len(conversion.runs)} runs, "
               f"{len(conversion.judgments)} judgments ({conversion.partial_count} partial_support "
               f"counted as {counted})")


def _convert(out_dir, force, prefix, year, converter, path, **kwargs):
    """Check the ID options and the output directory, convert (exit 1 listing every problem of the
    input) and write; returns the conversion."""
    for name, value in (("--prefix", prefix), ("--year", year)):
        if value is not None and (not value.isascii() or not value.isalnum()):
            raise click.BadParameter("letters and digits only", param_hint=name)
    try:
        check_output_dir(out_dir, force)
        conversion = load_or_exit(converter, path, prefix=prefix, year=year, **kwargs)
        for message in conversion.warnings:
            warn(message)
        write_conversion(conversion, out_dir, force)
    except (OutputExists, OSError) as exc:
        raise click.ClickException(str(exc)) from None
    return conversion


@convert.command("rag-topics")
@click.argument("path", metavar="TOPICS.jsonl", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False),
              help="Directory for topics.xml and topics.tsv.")
@_prefix
@_year
@_force
def rag_topics(path, out_dir, prefix, year, force):
    """Convert TREC RAG topics (JSONL, one {"id", "title"} a line) into an English topic set.

    Writes topics.xml (each title the topic's English question, answer type OTHER, completed) and
    topics.tsv (track ID -> SEPIA topic ID). Nothing is written when the input has a problem; every
    problem is listed as PATH:LINE:COLUMN: message.

    \b
    Example:
      sepia convert rag-topics trec_rag_2025_queries.jsonl --year 2025 --out rag25
      sepia import rag25/topics.xml
    """
    from sepia.convert.rag_topics import convert_rag_topics

    conversion = _convert(out_dir, force, prefix, year, convert_rag_topics, path)
    click.echo(f"{out_dir}: {len(conversion.topics.topics)} topics")


_map = click.option("--topics-map", type=click.Path(exists=True, dir_okay=False),
                    help="topics.tsv of the conversion: write the track's qids instead of SEPIA's topic IDs.")


def backwards(path) -> dict[str, str]:
    """SEPIA ID -> the track's, from a conversion's topics.tsv or runs.tsv (none: {})."""
    return {sepia_id: original for original, sepia_id in load_or_exit(read_mapping, path).items()} if path else {}


def _write(text: str, out: str | None) -> None:
    """To `out` in one rename (never half a file, its folder created), or to standard output."""
    if not out:
        sys.stdout.write(text)
        return
    write_output(out, text)
    click.echo(f"wrote {out}", err=True)


@convert.command("to-rag-topics")
@click.argument("topics_path", metavar="TOPICS.xml", type=click.Path(exists=True, dir_okay=False))
@_map
@click.option("--out", type=click.Path(dir_okay=False), help="File to write (default: standard output).")
def to_rag_topics(topics_path, topics_map, out):
    """Write a topic set as TREC RAG topics JSONL ({"id", "title"}: the English question)."""
    from sepia.convert.rag_topics import rag_topics_jsonl

    topics = expect(load_or_exit(read_file, topics_path, "topic"), TopicSet, topics_path)
    try:
        text = rag_topics_jsonl(topics, backwards(topics_map))
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    _write(text, out)


@convert.command("to-nuggetizer")
@click.option("--gold", "gold_path", required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--run", "run_paths", multiple=True, type=click.Path(exists=True),
              help="CCLQA run file, or a folder of them (repeatable).")
@click.option("--judgments", "judgments_path", type=click.Path(exists=True, dir_okay=False),
              help="Human judgments TSV (needed for --assignments).")
@_map
@click.option("--runs-map", type=click.Path(exists=True, dir_okay=False),
              help="runs.tsv of the conversion: write the original run IDs instead of SEPIA's.")
@click.option("--nuggets", "nuggets_out", type=click.Path(dir_okay=False),
              help="Write the nugget lists here (nuggetizer's create_nuggets output).")
@click.option("--assignments", "assignments_out", type=click.Path(dir_okay=False),
              help="Write the assignments here (what nuggetizer's calculate_metrics reads).")
def to_nuggetizer(gold_path, run_paths, judgments_path, topics_map, runs_map, nuggets_out, assignments_out):
    """Write nugget lists and human assignments as nuggetizer JSONL.

    Each assignment is the human matcher's decision (support 1, partial_support 0.5, not_support 0)
    for one run's answers to one topic; nuggetizer's metrics on the file give the four scores that
    `sepia evaluate --matcher human --measures nuggetizer` prints over the answered topics.

    \b
    Example:
      sepia convert to-nuggetizer --gold rag24/gold.xml --run rag24/runs --judgments rag24/judgments.tsv \\
          --topics-map rag24/topics.tsv --runs-map rag24/runs.tsv --assignments assignments.jsonl
    """
    from sepia.convert.nuggetizer_export import assignments, jsonl, nugget_lists
    from sepia.formats.judgments import read_judgments

    if not nuggets_out and not assignments_out:
        raise click.UsageError("give --nuggets, --assignments or both")
    if assignments_out and not (run_paths and judgments_path):
        raise click.UsageError("--assignments needs --run and --judgments")
    gold = expect(load_or_exit(read_file, gold_path, "gold"), GoldStandard, gold_path)
    qids = backwards(topics_map)
    if assignments_out:
        runs = [expect(load_or_exit(read_file, path, "cclqa"), CCLQARun, path) for path in expand_run_paths(run_paths)]
        judgments = load_or_exit(read_judgments, judgments_path)
        records = jsonl(assignments(gold, runs, judgments, qids, backwards(runs_map)))
    if nuggets_out:
        _write(jsonl(nugget_lists(gold, qids)), nuggets_out)
    if assignments_out:
        _write(records, assignments_out)


@convert.command("rag-answers")
@click.argument("path", metavar="ANSWERS.jsonl", type=click.Path(exists=True, dir_okay=False))
@click.option("--topics-map", required=True, type=click.Path(exists=True, dir_okay=False),
              help="topics.tsv of `convert rag-topics`: the campaign's topics and their SEPIA IDs.")
@click.option("--team", help="SEPIA team of the run ID (default: the file's team_id, made [A-Za-z0-9_]).")
@click.option("--priority", type=click.IntRange(1, 99), default=1, show_default=True,
              help="The run's priority NN in TEAM-EN-EN-NN-T (01 is pooled first).")
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="CCLQA run file to write.")
def rag_answers(path, topics_map, team, priority, out):
    """Convert one TREC RAG AG/RAG answer file (JSONL) into a CCLQA run to submit.

    Checks the track's rules (at most 100 references, citations pointing into them, at most 400 words,
    one run a file, each topic once and known); every problem is listed as PATH:LINE:COLUMN: message and
    nothing is written. Each answer sentence becomes one response whose DOCIDs are its cited segments.

    \b
    Example:
      sepia convert rag-answers ag_output.jsonl --topics-map rag25/topics.tsv --team MYTEAM --out run.xml
      sepia submit run.xml
    """
    from sepia.convert.rag_answers import convert_rag_answers
    from sepia.formats.write import to_xml

    conversion = load_or_exit(convert_rag_answers, path, load_or_exit(read_mapping, topics_map), team, priority)
    _write(to_xml(conversion.run).decode("utf-8"), out)
    sentences = sum(len(t.answers) for t in conversion.run.topics)
    click.echo(f"{out}: run {conversion.run.run_id} ({conversion.original_run_id}), "
               f"{len(conversion.run.topics)} topics, {sentences} answer sentences")


@convert.command("rag-retrieval")
@click.argument("path", metavar="RUN.tsv", type=click.Path(exists=True, dir_okay=False))
@click.option("--topics-map", required=True, type=click.Path(exists=True, dir_okay=False),
              help="topics.tsv of `convert rag-topics`: the campaign's topics and their SEPIA IDs.")
@click.option("--team", required=True, help="SEPIA team of the run ID.")
@click.option("--priority", type=click.IntRange(1, 99), default=1, show_default=True,
              help="The run's priority NN in TEAM-EN-EN-NN-T (01 is pooled first).")
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="IR4QA run file to write.")
def rag_retrieval(path, topics_map, team, priority, out):
    """Convert one TREC RAG R-task run (TREC run format) into an IR4QA run to submit.

    Checks the track's rules (Q0, ranks 1, 2, ... per topic, scores that never increase, a segment once
    per topic, one run a file, known topics); every problem is listed as PATH:LINE:COLUMN: message and
    nothing is written. More than 100 segments for a topic: the first 100 are kept, with a warning.
    """
    from sepia.convert.rag_retrieval import convert_rag_retrieval
    from sepia.formats.write import to_xml

    conversion = load_or_exit(convert_rag_retrieval, path, load_or_exit(read_mapping, topics_map), team, priority)
    for message in conversion.warnings:
        warn(message)
    _write(to_xml(conversion.run).decode("utf-8"), out)
    click.echo(f"{out}: run {conversion.run.metadata.run_id} ({conversion.original_run_id}), {len(conversion.run.topics)} topics, "
               f"{sum(len(t.documents) for t in conversion.run.topics)} segments")
