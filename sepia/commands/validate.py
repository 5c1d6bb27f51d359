"""`sepia validate FILE...`: exit 0 when every file is valid, 1 when any is not, 2 on usage errors."""
from __future__ import annotations

import click

from sepia.convert.validate import JSONL_FORMATS, validate_any_file
from sepia.formats.registry import format_of, names
from sepia.formats.validate import JUDGMENTS
from sepia.services.validation import QRELS, is_qrels, missing_in_configured_store, validate_qrels
from sepia.text.plural import counted
from sepia.text.repeated import shape, summarised


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--format", "format_name", type=click.Choice(names() + (JUDGMENTS, QRELS) + JSONL_FORMATS),
              help="The files' format; detected from each file when not given.")
@click.option("--max-size", type=int, default=None, help="Refuse files over this many bytes.")
@click.option("--gold", "gold_path", type=click.Path(exists=True, dir_okay=False),
              help="Gold standard XML: warn about judgments that name a nugget it lacks.")
@click.option("-q", "--quiet", is_flag=True, help="Print problems only, no summary line per valid file.")
def validate(files, format_name, max_size, gold_path, quiet):
    """Check run, topic, gold standard and judgment files against docs/spec.md's formats.

    TREC RAG answer and topic files (JSON lines, told apart by their first line) are checked against
    the track's rules; qrels (a `topic_id docid level` header, or --format qrels) as `sepia import`
    reads them. Every problem is printed as PATH:LINE:COLUMN: message."""
    gold = None
    if gold_path:
        from sepia.commands.common import load_or_exit
        from sepia.formats.model import GoldStandard
        from sepia.formats.read import expect, read_file

        gold = expect(load_or_exit(read_file, gold_path, "gold"), GoldStandard, gold_path)
    invalid = 0
    for path in files:
        obj: object | None
        if is_qrels(path, format_name):  # told, or by its header: topic_id docid level
            obj, problems = validate_qrels(path)
        else:
            obj, problems = validate_any_file(path, format_name, max_size, gold, gold_path or "",
                                              missing_in_configured_store)
        shown, more = summarised(problems, lambda p: shape(p.message) if p.severity == "warning" else None)
        for problem in shown:
            click.echo(str(problem))
        for example, left_out in more:
            click.echo(f"{path}: warning: {counted(left_out, 'more warning')} like line {example.line}'s not shown")
        if obj is None:
            invalid += 1
        elif not quiet:
            click.echo(f"{path}: valid {_kind(obj)}", err=True)
    raise SystemExit(1 if invalid else 0)


def _kind(obj) -> str:
    if (xml := format_of(obj)) is not None:
        return xml.label
    return {"AnswersConversion": "TREC RAG answer file",
            "TopicsConversion": "TREC RAG topic file", "QrelsFile": "qrels file"}.get(type(obj).__name__, "judgments file")
