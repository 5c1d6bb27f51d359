"""`sepia import`, `sepia export` and `sepia db`: move exchange files in and out of the campaign store."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from sepia import config
from sepia.formats import model
from sepia.formats.judgments import judgments_to_tsv
from sepia.formats.read import FORMATS
from sepia.formats.validate import JUDGMENTS, validate_file
from sepia.formats.write import to_xml
from sepia.store import io
from sepia.store.db import Store


def _read_all(paths, format_name):
    """Validate every file before anything is written; stop with all problems if any is bad."""
    loaded, bad = [], False
    for path in paths:
        obj, problems = validate_file(path, format_name)
        for problem in problems:
            click.echo(str(problem), err=True)
        bad = bad or obj is None
        loaded.append((path, obj))
    if bad:
        click.echo("nothing imported: fix the problems above", err=True)
        sys.exit(1)
    return loaded


def _import_one(session, obj, replace: bool) -> str:
    if isinstance(obj, model.TopicSet):
        return f"{io.import_topics(session, obj, replace)} topics"
    if isinstance(obj, model.GoldStandard):
        return f"{io.import_gold(session, obj, replace)} nuggets in {len(obj.topics)} topics"
    if isinstance(obj, list):
        return f"{io.import_judgments(session, obj, replace)} judgments"
    row = io.import_run(session, obj, replace=replace)
    return f"{row.kind} run {row.run_id}"


@click.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "format_name", type=click.Choice(FORMATS + (JUDGMENTS,)),
              help="The files' format; detected when not given (.tsv files are judgments).")
@click.option("--replace", is_flag=True, help="Overwrite topics, nuggets, runs or judgments already stored.")
def import_(files, format_name, replace):
    """Import topic sets, gold standards, runs and judgments into the store, one transaction per file."""
    store = Store()
    for path, obj in _read_all(files, format_name):
        try:
            with store.transaction() as session:
                click.echo(f"{path}: imported {_import_one(session, obj, replace)}")
        except io.ImportRefused as exc:
            for reason in exc.reasons:
                click.echo(f"{path}: {reason}", err=True)
            click.echo(f"{path}: nothing imported from this file", err=True)
            sys.exit(1)


@click.group()
def export():
    """Write what the store holds as exchange files (UTF-8 XML, or TSV for judgments)."""


def _write(data: bytes | str, out: str | None) -> None:
    payload = data.encode("utf-8") if isinstance(data, str) else data
    if out:
        Path(out).write_bytes(payload)
    else:
        sys.stdout.buffer.write(payload)


_out = click.option("--out", type=click.Path(dir_okay=False), help="File to write (default: standard output).")
_lang = click.option("--lang", type=click.Choice(["EN", "CS", "CT", "JA"]), help="Only topics of this language.")


@export.command("topics")
@_lang
@_out
def export_topics(lang, out):
    with Store().transaction() as session:
        _write(to_xml(io.export_topics(session, lang)), out)


@export.command("gold")
@_lang
@_out
def export_gold(lang, out):
    with Store().transaction() as session:
        _write(to_xml(io.export_gold(session, lang)), out)


@export.command("run")
@click.argument("run_id")
@click.option("--kind", type=click.Choice(["cclqa", "ir4qa", "qa"]), default="cclqa", show_default=True)
@_out
def export_run(run_id, kind, out):
    with Store().transaction() as session:
        run = io.export_run(session, run_id, kind)
    if run is None:
        raise click.UsageError(f"no {kind} run {run_id} in the store")
    _write(to_xml(run), out)


@export.command("judgments")
@click.option("--run", "run_id", help="Only this run's judgments.")
@_out
def export_judgments(run_id, out):
    with Store().transaction() as session:
        _write(judgments_to_tsv(io.export_judgments(session, run_id)), out)


@click.group()
def db():
    """The campaign store: where it is, and its schema."""


@db.command("upgrade")
def db_upgrade():
    """Create or migrate the store's tables to the current schema."""
    Store()
    click.echo(f"store is up to date: {_safe_url()}")


@db.command("info")
def db_info():
    """Where the store is and what it holds."""
    from sqlalchemy import func, select

    from sepia.store import models

    with Store().transaction() as session:
        click.echo(f"store: {_safe_url()}")
        click.echo(f"data directory: {config.sepia_home()}")
        for name, table in (("topics", models.Topic), ("nuggets", models.Nugget), ("votes", models.Vote),
                            ("runs", models.Run), ("responses", models.Response),
                            ("nugget judgments", models.NuggetJudgment), ("documents", models.Document),
                            ("users", models.User)):
            click.echo(f"  {name}: {session.scalar(select(func.count()).select_from(table))}")


def _safe_url() -> str:
    from sqlalchemy.engine import make_url

    return make_url(config.database_url()).render_as_string(hide_password=True)


