"""`sepia import`, `sepia export` and `sepia db`: move exchange files in and out of the campaign store."""
from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import click
from sqlalchemy import Connection, Table
from sqlalchemy.orm import Session

from sepia import config
from sepia.campaign.submission import stored_topics
from sepia.commands.common import store_session, warn, write_output
from sepia.formats import model
from sepia.formats.errors import FormatError, Problem
from sepia.formats.judgments import judgments_to_tsv
from sepia.formats import registry
from sepia.formats.validate import JUDGMENTS, is_judgments, validate_loaded
from sepia.formats.write import to_xml
from sepia.formats.xmlsafe import load_xml
from sepia.ir4qa import qrels as qrels_tsv
from sepia.services.validation import QRELS, is_qrels, missing_in_configured_store, validate_qrels
from sepia.store import relevance
from sepia.store.errors import ImportRefused
from sepia.store.exchange import gold as gold_io, runs as runs_io, topics as topics_io
from sepia.store.exchange.judgments import (export_judgments as stored_judgments, judgments_file_problems, judgments_table,
                                            store_staged_judgments)
from sepia.store.db import Store


def _read_all(store: Store, paths, format_name, staging: JudgmentsStaging):
    """Validate every file before anything is written; stop with all problems if any is bad.
    Returns (path, object, the file's bytes when it is XML)."""
    loaded, bad = [], False
    for path in paths:
        obj, problems, data = _validate(store, path, format_name, staging)
        for problem in problems:
            click.echo(str(problem), err=True)
        bad = bad or obj is None
        loaded.append((path, obj, data))
    if bad:
        click.echo("nothing imported: fix the problems above", err=True)
        sys.exit(1)
    return loaded


def _validate(store: Store, path, format_name, staging: JudgmentsStaging):
    if is_qrels(path, format_name):
        return *validate_qrels(path), None
    if is_judgments(path, format_name):
        return *staging.check(path), None
    try:
        xml = load_xml(path)
        obj, problems = validate_loaded(xml, format_name, missing_in_configured_store)
    except FormatError as exc:
        return None, exc.problems, None
    kind = registry.format_of(obj)
    if kind is not None and kind.importer is None:
        return None, [*problems, Problem(str(path), 1, 1, f"{kind.name} files are not kept in the store")], None
    return obj, problems, xml.data  # a run's bytes are kept as they were checked


@dataclass(frozen=True)
class JudgmentsFile:
    """A judgments TSV checked: its lines staged in `table`, a temporary table of the staging
    connection, from which it is stored (never held whole in memory, never read twice)."""
    path: str
    table: Table


class JudgmentsStaging:
    """The judgments files of one `sepia import`, each read once, a line at a time, into a temporary
    table of one connection held for the command: checked there before anything is written (its
    staging committed, so that no transaction stays open meanwhile), then stored from there in a
    transaction of its own, all or nothing."""

    def __init__(self, store: Store):
        self.store = store
        self.connection: Connection | None = None
        self.files = 0

    def check(self, path) -> tuple[JudgmentsFile | None, list[Problem]]:
        """(the file staged, or None; its problems, as `sepia validate` lists them)."""
        if self.connection is None:
            self.connection = self.store.engine.connect()
        self.files += 1
        table = judgments_table(f"sepia_judgments_in_{self.files}")
        with Session(self.connection) as session:
            problems = judgments_file_problems(session, path, table)
            session.rollback() if problems else session.commit()
        return None if problems else JudgmentsFile(path, table), problems

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        assert self.connection is not None, "a judgments file is checked before it is stored"
        with Session(self.connection, expire_on_commit=False) as session, session.begin():
            yield session

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()  # its temporary tables go with it


def _import_one(session, path, obj, data: bytes | None, replace: bool, assessor: str) -> str:
    if isinstance(obj, qrels_tsv.QrelsFile):
        count = relevance.import_qrels(session, obj.rows, assessor, replace)
        return f"{count} relevance judgments in {len({r.topic_id for r in obj.rows})} topics"
    if (kind := registry.format_of(obj)) is not None:
        return kind.import_into(session, obj, Path(path).name, data, replace)
    return f"{store_staged_judgments(session, replace, obj.table)} judgments"


@click.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--format", "format_name", type=click.Choice(registry.names() + (JUDGMENTS, QRELS)),
              help="The files' format; detected when not given (.tsv files are nugget judgments, or qrels "
                   "when their header is topic_id docid level).")
@click.option("--replace", is_flag=True, help="Overwrite topics, nuggets, runs or judgments already stored.")
@click.option("--assessor", default=relevance.DEFAULT_ASSESSOR, show_default=True,
              help="Qrels: the assessor of the rows of a file without an assessor column.")
def import_(files, format_name, replace, assessor):
    """Import topic sets, gold standards, runs, nugget judgments and qrels into the store, one
    transaction per file, topic sets first. Every file is checked before anything is written; a run
    for topics that are neither stored nor in a topic set given is imported with a warning (the web
    refuses a team's upload of it)."""
    with Store() as store:
        staging = JudgmentsStaging(store)
        try:
            # topic sets first, so that the runs and judgments of the same command find their topics
            loaded = sorted(_read_all(store, files, format_name, staging),
                            key=lambda item: not isinstance(item[1], model.TopicSet))
            _warn_unknown_topics(store, loaded)
            for path, obj, data in loaded:
                try:
                    with staging.transaction() if isinstance(obj, JudgmentsFile) else store.transaction() as session:
                        what = _import_one(session, path, obj, data, replace, assessor)
                    click.echo(f"{path}: imported {what}")  # once committed: a full disk may refuse the commit
                except ImportRefused as exc:
                    for reason in exc.reasons:
                        click.echo(f"{path}: {reason}", err=True)
                    click.echo(f"{path}: nothing imported from this file", err=True)
                    sys.exit(1)
        finally:
            staging.close()


def _warn_unknown_topics(store: Store, loaded) -> None:
    """Say which runs answer topics that are neither in the store nor in a topic set of this command
    (the web refuses such an upload); an organiser's import keeps them, e.g. to score a run against
    qrels alone."""
    runs = [(path, obj) for path, obj, _ in loaded if registry.run_kind(obj)]
    if not runs:
        return
    named = {t.topic_id for _, run in runs for t in run.topics}
    coming = {t.topic_id for _, obj, _ in loaded if isinstance(obj, model.TopicSet) for t in obj.topics}
    with store.transaction() as session:
        known = stored_topics(session, named - coming) | coming
    for path, run in runs:
        unknown = list(dict.fromkeys(t.topic_id for t in run.topics if t.topic_id not in known))
        if unknown:
            shown = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
            warn(f"{path}: not topics of this campaign: {shown} (a team's upload of this run is refused; "
                 f"import their topic set so that the run is part of the campaign)")


@click.group()
def export():
    """Write what the store holds as exchange files (UTF-8 XML, or TSV for judgments and qrels)."""


def _write(data: bytes | str, out: str | None) -> None:
    if out:
        write_output(out, data)
        click.echo(f"wrote {out}", err=True)
    else:
        sys.stdout.buffer.write(data.encode("utf-8") if isinstance(data, str) else data)


_out = click.option("--out", type=click.Path(dir_okay=False), help="File to write (default: standard output).")
_lang = click.option("--lang", type=click.Choice(["EN", "CS", "CT", "JA"]), help="Only topics of this language.")


@export.command("topics")
@_lang
@_out
def export_topics(lang, out):
    """The topic set (topics XML), all languages or one."""
    with store_session() as session:
        _write(to_xml(topics_io.export_topics(session, lang)), out)


@export.command("gold")
@_lang
@_out
def export_gold(lang, out):
    """The gold standard (nuggets and their votes, gold XML), all languages or one."""
    with store_session() as session:
        _write(to_xml(gold_io.export_gold(session, lang)), out)


@export.command("run")
@click.argument("run_id")
@click.option("--kind", type=click.Choice(sorted(registry.run_names())), default="cclqa", show_default=True)
@_out
def export_run(run_id, kind, out):
    """One run as its submission XML (CCLQA, IR4QA or QA, by --kind)."""
    with store_session() as session:
        run = runs_io.export_run(session, run_id, kind)
    if run is None:
        raise click.UsageError(f"no {kind} run {run_id} in the store")
    _write(to_xml(run), out)


@export.command("judgments")
@click.option("--run", "run_id", help="Only this run's judgments.")
@click.option("--individual", is_flag=True,
              help="Every assessor's own judgments, for agreement (default: the official ones, adjudicated "
                   "where an organiser decided, as scoring uses them).")
@_out
def export_judgments(run_id, individual, out):
    """Nugget judgments as the TSV that `sepia evaluate --judgments` reads."""
    with store_session() as session:
        _write(judgments_to_tsv(stored_judgments(session, run_id, individual=individual)), out)


@export.command("support")
@click.option("--individual", is_flag=True,
              help="Every assessor's own judgments, for agreement (default: the official ones, adjudicated "
                   "where an organiser decided, as scoring uses them).")
@_out
def export_support(individual, out):
    """Citation support judgments (TREC RAG) as the TSV that `sepia evaluate-support --support` reads."""
    from sepia.formats.judgments import SUPPORT_HEADER
    from sepia.store.support import support_judgments

    with store_session() as session:
        _write(judgments_to_tsv(support_judgments(session, individual), SUPPORT_HEADER), out)


@export.command("qrels")
@_lang
@click.option("--by-assessor", is_flag=True,
              help="One line per assessor's judgment (topic_id docid level assessor) instead of one level per "
                   "document combined over the assessors.")
@click.option("--trec", is_flag=True, help="TREC qrels (qid 0 docid rel, one combined level per document), "
                                           "for trec_eval.")
@click.option("--topics-map", type=click.Path(exists=True, dir_okay=False),
              help="With --trec: topics.tsv of `sepia convert rag-topics`, to write the track's qids.")
@_out
def export_qrels(lang, by_assessor, trec, topics_map, out):
    """The relevance judgments as the TSV that `sepia evaluate-ir4qa --qrels` reads."""
    if trec and by_assessor:
        raise click.UsageError("--trec writes one combined level per document; it does not go with --by-assessor")
    if topics_map and not trec:
        raise click.UsageError("--topics-map goes with --trec")
    with store_session() as session:
        rows = relevance.relevance_rows(session, lang) if by_assessor else relevance.official_rows(session, lang)
    if trec:
        from sepia.commands.common import load_or_exit
        from sepia.convert.nuggetizer import read_mapping
        from sepia.ir4qa.trec import qrels_to_trec

        qids = {topic_id: qid for qid, topic_id in load_or_exit(read_mapping, topics_map).items()} if topics_map else {}
        _write(qrels_to_trec({qids.get(t, t): docs for t, docs in qrels_tsv.combine(rows).items()}), out)
        return
    _write(qrels_tsv.rows_to_tsv(rows) if by_assessor else qrels_tsv.qrels_to_tsv(qrels_tsv.combine(rows)), out)


@click.group()
def db():
    """The campaign store: where it is, and its schema."""


@db.command("upgrade")
def db_upgrade():
    """Create or migrate the store's tables to the current schema."""
    Store().dispose()  # opening it migrates
    click.echo(f"store is up to date: {_safe_url()}")


@db.command("info")
def db_info():
    """Where the store is and what it holds."""
    from sqlalchemy import func, select

    from sepia.store import models

    with store_session() as session:
        click.echo(f"store: {_safe_url()}")
        click.echo(f"data directory: {config.sepia_home()}")
        for name, table in (("topics", models.Topic), ("nuggets", models.Nugget), ("votes", models.Vote),
                            ("runs", models.Run), ("responses", models.Response),
                            ("nugget judgments", models.NuggetJudgment),
                            ("relevance judgments", models.RelevanceJudgment), ("documents", models.Document),
                            ("users", models.User)):
            click.echo(f"  {name}: {session.scalar(select(func.count()).select_from(table))}")


def _safe_url() -> str:
    from sqlalchemy.engine import make_url

    return make_url(config.database_url()).render_as_string(hide_password=True)


