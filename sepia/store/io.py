"""Import every exchange format into the campaign store, and export it back, losslessly.

Each import checks everything first and writes in the caller's single transaction: a file with any
problem leaves the store as it was. Order is kept through `position` columns.
"""
from __future__ import annotations

import struct
from itertools import islice
from pathlib import Path
from typing import Any, Iterable

from sqlalchemy import (Column, Connection, DateTime, Float, Integer, MetaData, String, Table, and_, delete, exists, func, insert,
                        literal, or_, select, text, update)
from sqlalchemy.orm import Session, selectinload

from sepia import vocab
from sepia.formats import model
from sepia.formats.errors import MAX_PROBLEMS, FormatError, Problem, capped
from sepia.formats.judgments import BoundedProblems, duplicate, stream_judgments
from sepia.formats.registry import run_kind
from sepia.scoring.adjudication import ADJUDICATED, official
from sepia.scoring.weights import nugget_weights
from sepia.store import models as db
from sepia.store.db import hold


# IDs per IN (...) list: PostgreSQL takes at most 65,535 parameters in one statement (SQLAlchemy
# keeps its multi-row inserts under that limit by itself).
CHUNK = 5000


class ImportRefused(Exception):
    """The store refuses an import; nothing was written. Carries every reason."""

    def __init__(self, reasons: list[str]):
        self.reasons = reasons
        super().__init__("; ".join(reasons))


# ---------------------------------------------------------------- topics and gold standards

def _topic_lang(topic_id: str, fallback: str | None) -> str:
    return vocab.topic_language(topic_id) or fallback or "EN"


def _existing_topics(session: Session, ids: Iterable[str]) -> dict[str, db.Topic]:
    ids = list(ids)
    found: dict[str, db.Topic] = {}
    for i in range(0, len(ids), CHUNK):
        found.update((t.id, t) for t in session.scalars(
            select(db.Topic).where(db.Topic.id.in_(ids[i:i + CHUNK])).options(
                selectinload(db.Topic.texts), selectinload(db.Topic.nuggets))))
    return found


def import_topics(session: Session, topic_set: model.TopicSet, replace: bool = False) -> int:
    """Add the topics (or, with replace, overwrite those that exist). Returns how many were written."""
    existing = _existing_topics(session, [t.topic_id for t in topic_set.topics])
    if existing and not replace:
        raise ImportRefused([f"topic {t} already exists (use replace to overwrite)" for t in existing])
    for topic in topic_set.topics:
        row = existing.get(topic.topic_id) or db.Topic(id=topic.topic_id)
        row.lang = _topic_lang(topic.topic_id, topic_set.lang)
        row.answer_type = topic.answer_type
        row.status = topic.status or "in_progress"
        row.memo = topic.memo
        row.texts = [db.TopicText(kind="question", lang=q.lang, text=q.text, position=i)
                     for i, q in enumerate(topic.questions)]
        after = [("narrative", t) for t in topic.narratives] + [("key_term", t) for t in topic.key_terms]
        row.texts += [db.TopicText(kind=kind, lang=t.lang, text=t.text, position=len(topic.questions) + i)
                      for i, (kind, t) in enumerate(after)]
        session.add(row)
    session.flush()
    return len(topic_set.topics)


def export_topics(session: Session, lang: str | None = None, topic_ids: Iterable[str] | None = None,
                  questions_only: bool = False) -> model.TopicSet:
    """The stored topics as a topic set. `questions_only` is what participants receive: the questions,
    nothing a run is scored against or that helps answer them (answer type, narratives, key terms,
    status, memo)."""
    query = select(db.Topic).options(selectinload(db.Topic.texts)).order_by(db.Topic.id)
    if lang:
        query = query.where(db.Topic.lang == lang)
    if topic_ids is not None:
        query = query.where(db.Topic.id.in_(list(topic_ids)))
    topics = []
    for row in session.scalars(query):
        texts = sorted(row.texts, key=lambda t: t.position)
        questions = [model.LangText(t.lang, t.text) for t in texts if t.kind == "question"]
        if questions_only:
            topics.append(model.Topic(row.id, questions))
            continue
        of_kind = {kind: [model.LangText(t.lang, t.text) for t in texts if t.kind == kind]
                   for kind in ("narrative", "key_term")}
        topics.append(model.Topic(row.id, questions, of_kind["narrative"], row.answer_type, row.status, row.memo,
                                  of_kind["key_term"]))
    return model.TopicSet(topics, lang)


def import_gold(session: Session, gold: model.GoldStandard, replace: bool = False) -> int:
    """Add the gold standard's nuggets and votes; topics it names are created when missing.

    A topic that already has nuggets is refused unless `replace`, which swaps its nuggets whole.
    Nuggets, their sources and votes are inserted a batch at a time without an ORM object each
    (6,000 nuggets took 10.5 s of CPU that way; the file's reading and checks take a fraction)."""
    ids = [t.topic_id for t in gold.topics]
    existing: dict[str, db.Topic] = {}
    with_nuggets: set[str] = set()
    for i in range(0, len(ids), CHUNK):
        chunk = ids[i:i + CHUNK]
        existing.update((t.id, t) for t in session.scalars(select(db.Topic).where(db.Topic.id.in_(chunk))))
        with_nuggets.update(session.scalars(select(db.Nugget.topic_id).where(db.Nugget.topic_id.in_(chunk)).distinct()))
    clashes = [t for t in ids if t in with_nuggets]
    if clashes and not replace:
        raise ImportRefused([f"topic {t} already has nuggets (use replace to overwrite)" for t in clashes])
    texts = []  # the questions of the topics created
    for topic in gold.topics:
        row = existing.get(topic.topic_id)
        if row is None:
            row = existing[topic.topic_id] = db.Topic(id=topic.topic_id, lang=_topic_lang(topic.topic_id, gold.lang),
                                                      status="completed")
            session.add(row)
            texts += [{"topic_id": topic.topic_id, "kind": "question", "lang": q.lang, "text": q.text, "position": i}
                      for i, q in enumerate(topic.questions)]
        row.answer_type = topic.answer_type
    for i in range(0, len(clashes), CHUNK):  # the old nuggets go first (the new ones reuse their labels),
        session.execute(delete(db.Nugget).where(db.Nugget.topic_id.in_(clashes[i:i + CHUNK])))  # theirs with them
    session.flush()
    nuggets = [(topic.topic_id, i, n) for topic in gold.topics for i, n in enumerate(topic.nuggets)]
    nugget_ids = inserted_ids(session, db.Nugget, [
        {"topic_id": topic_id, "label": n.nugget_id, "text": n.text, "position": i, "weight": n.weight,
         "vital_count": None if n.votes else n.vital_count, "voter_count": None if n.votes else n.voter_count}
        for topic_id, i, n in nuggets])
    connection, now = session.connection(), db.utcnow()
    sources = [{"nugget_id": pk, "docid": d, "position": i} for pk, (_t, _i, n) in zip(nugget_ids, nuggets)
               for i, d in enumerate(n.sources)]
    votes = [{"nugget_id": pk, "assessor": a, "vital": v, "created_at": now}
             for pk, (_t, _i, n) in zip(nugget_ids, nuggets) for a, v in n.votes]
    for model_, rows in ((db.TopicText, texts), (db.NuggetSource, sources), (db.Vote, votes)):
        for batch in _batches(rows):
            connection.execute(insert(model_), batch)
    for row in existing.values():
        session.expire(row, ["nuggets", "texts"])  # the ORM's lists, if loaded, predate these rows
    return len(nuggets)


def export_gold(session: Session, lang: str | None = None, topic_ids: Iterable[str] | None = None
                ) -> model.GoldStandard:
    """The gold standard of the topics that have nuggets (of one language, or the ones named).

    WEIGHT is the weight a file gave, or else the pyramid weight of the current votes. SOURCE lists
    the documents given on import, then those of the answer texts the nugget was extracted from."""
    query = (select(db.Topic).join(db.Nugget).distinct().order_by(db.Topic.id)
             .options(selectinload(db.Topic.texts),
                      selectinload(db.Topic.nuggets).selectinload(db.Nugget.votes),
                      selectinload(db.Topic.nuggets).selectinload(db.Nugget.sources),
                      selectinload(db.Topic.nuggets).selectinload(db.Nugget.answer_texts)))
    if lang:
        query = query.where(db.Topic.lang == lang)
    if topic_ids is not None:
        query = query.where(db.Topic.id.in_(list(topic_ids)))
    topics = []
    for row in session.scalars(query):
        nuggets = [_gold_nugget(n) for n in sorted(row.nuggets, key=lambda n: n.position)]
        pyramid, _ = nugget_weights(nuggets, "pyramid")
        for nugget, weight in zip(nuggets, pyramid):
            if nugget.weight is None:
                nugget.weight = round(weight, 4)
        questions = [model.LangText(t.lang, t.text) for t in sorted(row.texts, key=lambda t: t.position)
                     if t.kind == "question"]
        topics.append(model.GoldTopic(row.id, row.answer_type or "OTHER", questions, nuggets))
    return model.GoldStandard(lang, topics)


def _gold_nugget(row: db.Nugget) -> model.GoldNugget:
    sources = [s.docid for s in sorted(row.sources, key=lambda s: s.position)]
    sources += [a.docid for a in row.answer_texts if a.docid not in sources]
    return model.GoldNugget(row.label, row.text, row.weight, list(dict.fromkeys(sources)),
                            [(v.assessor, v.vital) for v in sorted(row.votes, key=lambda v: v.id)],
                            row.vital_count, row.voter_count)


# ---------------------------------------------------------------- runs

# Rows per multi-row INSERT of a run's items: a run's million documents go in batches whose memory
# is that of one batch, without an ORM object each (which took 3.5 GB and 100 s for 900,000).
BATCH = 10_000


def import_run(session: Session, run, submitted_by: str | None = None, replace: bool = False) -> db.Run:
    """Store a Question Analysis, IR4QA or CCLQA run; a run ID already stored is refused unless replace."""
    metadata = run.metadata
    parsed = vocab.parse_run_id(metadata.run_id)
    if parsed is None:
        raise ImportRefused([f"run ID {metadata.run_id!r} is not of the form TEAM-SRC-TGT-NN-X"])
    kind = run_kind(run)
    old = session.scalar(select(db.Run).where(db.Run.run_id == metadata.run_id, db.Run.kind == kind))
    if old is not None:
        if not replace:
            raise ImportRefused([f"{kind} run {metadata.run_id} is already stored (use replace to overwrite)"])
        held = _held_by(session, old.id)
        if held:
            raise ImportRefused([f"{kind} run {metadata.run_id} can no longer be replaced: its responses are held "
                                 f"by {held}, which replacing it would lose; ask the organisers"])
        session.execute(delete(db.Run).where(db.Run.id == old.id))  # the store deletes its items (ON DELETE CASCADE)
        session.expunge(old)
    row = db.Run(run_id=metadata.run_id, kind=kind, team=parsed.team, source_lang=parsed.source_lang,
                 target_lang=parsed.target_lang, priority=parsed.priority, variant=parsed.variant,
                 description=metadata.description, ir4qa_run=metadata.ir4qa_run_id, submitted_by=submitted_by)
    session.add(row)
    session.flush()
    topic_ids = inserted_ids(session, db.RunTopic, [{"run_id": row.id, "topic_id": t.topic_id, "position": i}
                                                 for i, t in enumerate(run.topics)])
    in_topics = list(zip(topic_ids, run.topics))
    if kind == "ir4qa":
        insert_rows(session, db.RetrievedDocument, ("run_topic_id", "rank", "docid", "score"),
                ((pk, d.rank, d.docid, d.score) for pk, topic in in_topics for d in topic.documents))
    elif kind == "qa":
        insert_rows(session, db.KeyTerm, ("run_topic_id", "lang", "score", "text", "position"),
                ((pk, k.lang, k.score, k.text, i) for pk, topic in in_topics for i, k in enumerate(topic.key_terms)))
        insert_rows(session, db.AnswerTypeGuess, ("run_topic_id", "answer_type", "score", "position"),
                ((pk, a.answer_type, a.score, i) for pk, topic in in_topics for i, a in enumerate(topic.answer_types)))
    else:
        answers = [a for _pk, topic in in_topics for a in topic.answers]
        response_ids = inserted_ids(session, db.Response, [{"run_topic_id": pk, "rank": a.rank, "text": a.text}
                                                         for pk, topic in in_topics for a in topic.answers])
        insert_rows(session, db.ResponseDocument, ("response_id", "docid", "position"),
                ((pk, d, i) for pk, answer in zip(response_ids, answers) for i, d in enumerate(answer.docids)))
    return row


def _held_by(session: Session, run_pk: int) -> str:
    """What the ON DELETE CASCADE of a run's responses would take with them: the pools holding them,
    judgments and control items ("" when nothing). The run is held first: a pool build holds it too."""
    hold(session, db.Run.priority, db.Run.id == run_pk)
    responses = (select(db.Response.id).join(db.RunTopic, db.Response.run_topic_id == db.RunTopic.id)
                 .where(db.RunTopic.run_id == run_pk))
    pools = session.scalars(select(db.Pool.name).join(db.PoolEntry).join(
        db.pool_member, db.pool_member.c.entry_id == db.PoolEntry.id)
        .where(db.pool_member.c.response_id.in_(responses)).distinct().order_by(db.Pool.name)).all()
    held = [f"pool{'s' if len(pools) > 1 else ''} {', '.join(pools)}"] if pools else []
    for table, what in ((db.NuggetJudgment, "nugget judgment"), (db.SupportJudgment, "support judgment"),
                        (db.ControlItem, "control item")):
        n = session.scalar(select(func.count()).select_from(table).where(table.response_id.in_(responses)))
        held += [f"{n:,} {what}{'s' if n > 1 else ''}"] if n else []
    return ", ".join(held[:-1]) + " and " + held[-1] if len(held) > 1 else "".join(held)


# ---------------------------------------------------------------- a run file's bytes

BLOB_CHUNK = 1 << 20


# PostgreSQL's binary COPY of one bytea field: the header, a tuple of one field (then its bytes), the trailer.
_COPY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack("!ii", 0, 0)
_COPY_TRAILER = struct.pack("!h", -1)


def large_binary(session: Session, data: bytes):
    """What to give submission.content for `data` before fill_large_binary writes it in pieces: bound
    whole, the driver copies the bytes (psycopg once; SQLite twice into the row's record: 128 MB more
    at the peak of a 64 MB run's import). On SQLite room for it (zeroblob), on PostgreSQL nothing."""
    return func.zeroblob(len(data)) if session.get_bind().dialect.name == "sqlite" else b""


def fill_large_binary(session: Session, row, column: str, data: bytes) -> None:
    """Write `data` into the row's column a megabyte at a time: on SQLite into the room large_binary
    made (the row's last column: migration 0010), on PostgreSQL by a binary COPY into a temporary
    table, from which the server itself sets the column."""
    view = memoryview(data)
    pieces = (view[start:start + BLOB_CHUNK] for start in range(0, len(data), BLOB_CHUNK))
    driver = _driver(session.connection())
    if session.get_bind().dialect.name == "sqlite":
        with driver.blobopen(row.__tablename__, column, row.id) as blob:
            for piece in pieces:
                blob.write(piece)
    else:
        with driver.cursor() as cursor:
            cursor.execute("CREATE TEMPORARY TABLE sepia_large_binary (content bytea)")
            with cursor.copy("COPY sepia_large_binary (content) FROM STDIN (FORMAT BINARY)") as copy:
                copy.write(_COPY_HEADER + struct.pack("!hi", 1, len(data)))
                for piece in pieces:
                    copy.write(piece)
                copy.write(_COPY_TRAILER)
            cursor.execute(f"UPDATE {row.__tablename__} SET {column} = (SELECT content FROM sepia_large_binary) "
                           "WHERE id = %s", (row.id,))
            cursor.execute("DROP TABLE sepia_large_binary")
    session.expire(row, [column])  # the ORM's value is the placeholder


def _batches(rows: Iterable) -> Iterable[list]:
    rows = iter(rows)
    while batch := list(islice(rows, BATCH)):
        yield batch


def _driver(connection: Connection) -> Any:
    """The database driver's own connection (sqlite3's or psycopg's) under SQLAlchemy's."""
    return connection.connection.driver_connection


def insert_rows(session: Session, model, columns: tuple[str, ...], rows: Iterable[tuple]) -> None:
    """Insert rows of values of `columns`: PostgreSQL's COPY (twice as fast as executemany), SQLite's
    executemany through the driver (SQLAlchemy's processing of each row's parameters took as long as
    the database's work; these columns need no conversion), a batch of rows in memory at a time."""
    connection, table = session.connection(), getattr(model, "__table__", model)  # a mapped class or a Table
    if connection.dialect.name == "postgresql":
        with _driver(connection).cursor() as cursor, \
                cursor.copy(f"COPY {table.name} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
        return
    compiled = insert(table).compile(dialect=connection.dialect, column_keys=list(columns))
    assert compiled.positiontup is not None  # sqlite3's placeholders are positional (?)
    order = [columns.index(key) for key in compiled.positiontup]
    for batch in _batches(rows):
        connection.exec_driver_sql(compiled.string, batch if order == sorted(order)
                                   else [tuple(row[i] for i in order) for row in batch])


def inserted_ids(session: Session, model, rows: list[dict]) -> list[int]:
    """Insert the rows (dicts with the same keys); their new IDs in the rows' order, a batch at a time.
    PostgreSQL: the batch's IDs drawn from the table's sequence in one statement, then the rows with
    them by COPY (a multi-row INSERT ... RETURNING took seconds of CPU to compose for 6,000 rows).
    SQLite: the batch inserted at once and its IDs read back: the transaction holds the store's one
    write lock from its first write on, so they are the IDs above the largest before the batch,
    numbered in the order inserted (returning them in order makes SQLite insert row by row)."""
    table = model.__table__
    connection = session.connection()
    ids: list[int] = []
    for batch in _batches(rows):
        if connection.dialect.name == "postgresql":
            drawn = list(connection.scalars(text("SELECT nextval(pg_get_serial_sequence(:table, 'id')) "
                                                 "FROM generate_series(1, :n)"), {"table": table.name, "n": len(batch)}))
            columns = tuple(batch[0])
            insert_rows(session, model, ("id", *columns), ((pk, *(row[c] for c in columns))
                                                           for pk, row in zip(drawn, batch)))
            ids += drawn
            continue
        connection.execute(insert(table), batch)  # takes the write lock, if this is the first write
        last = connection.scalar(select(func.max(table.c.id)))
        assert last is not None  # the batch's rows are there
        ids += range(last - len(batch) + 1, last + 1)
    return ids


def export_run(session: Session, run_id: str, kind: str = "cclqa"):
    """The stored run of that kind as its exchange-format object; None when no such run."""
    row = session.scalar(select(db.Run).where(db.Run.run_id == run_id, db.Run.kind == kind).options(
        selectinload(db.Run.topics).selectinload(db.RunTopic.responses).selectinload(db.Response.docids),
        selectinload(db.Run.topics).selectinload(db.RunTopic.documents),
        selectinload(db.Run.topics).selectinload(db.RunTopic.key_terms),
        selectinload(db.Run.topics).selectinload(db.RunTopic.answer_types)))
    if row is None:
        return None
    metadata = model.Metadata(row.run_id, row.description, row.ir4qa_run)
    topics = sorted(row.topics, key=lambda t: t.position)
    if row.kind == "cclqa":
        return model.CCLQARun(metadata, [model.CCLQATopic(t.topic_id, [
            model.Answer(r.rank, r.text, [d.docid for d in sorted(r.docids, key=lambda d: d.position)])
            for r in sorted(t.responses, key=lambda r: r.rank)]) for t in topics])
    if row.kind == "ir4qa":
        return model.IR4QARun(metadata, [model.IR4QATopic(t.topic_id, [
            model.RetrievedDoc(d.rank, d.docid, d.score) for d in sorted(t.documents, key=lambda d: d.rank)])
            for t in topics])
    return model.QARun(metadata, [model.QATopic(
        t.topic_id,
        [model.KeyTerm(k.text, k.lang, k.score) for k in sorted(t.key_terms, key=lambda k: k.position)],
        [model.AnswerTypeScore(a.answer_type, a.score) for a in sorted(t.answer_types, key=lambda a: a.position)])
        for t in topics])


def run_ids(session: Session, kind: str | None = None) -> list[str]:
    query = select(db.Run.run_id).order_by(db.Run.target_lang, db.Run.run_id)
    if kind:
        query = query.where(db.Run.kind == kind)
    return list(session.scalars(query))


# ---------------------------------------------------------------- nugget judgments

def judgments_table(name: str = "sepia_judgments_in") -> Table:
    """Judgments to import, in a temporary table of the importing connection: the checks and the writes
    are a few statements over it, so that memory holds a batch of lines, never every stored response,
    nugget or judgment (issue 34: 3.3 MB per 1,000 lines at TREC RAG scale). It lives until it is
    stored (`store_staged_judgments` drops it) or its transaction is rolled back, across commits: a
    file checked by `sepia import` is stored later from it, not read again."""
    return Table(
        name, MetaData(),
        Column("line", Integer), Column("topic_id", String), Column("run_id", String), Column("answer_rank", Integer),
        Column("nugget_label", String), Column("match", Float), Column("assessor", String),
        Column("response_id", Integer), Column("nugget_id", Integer),
        prefixes=["TEMPORARY"])


_JUDGMENTS_IN = judgments_table()


def import_judgments(session: Session, judgments: Iterable[model.Judgment], replace: bool = False) -> int:
    """Attach judgments to stored responses and nuggets; every unknown reference is reported."""
    _stage_judgments(session, enumerate(judgments), _JUDGMENTS_IN)
    return store_staged_judgments(session, replace, _JUDGMENTS_IN)


def judgments_file_problems(session: Session, path: str | Path, staged: Table = _JUDGMENTS_IN) -> list[Problem]:
    """Every problem of a judgments TSV, as validate lists them: its lines checked as they are read
    (once, a line at a time: memory does not grow with the file) and staged in `staged`, then its
    duplicate lines found there. Without a problem, `store_staged_judgments` stores them; after one,
    the session's transaction is the caller's to roll back."""
    problems = BoundedProblems()
    try:
        _stage_judgments(session, stream_judgments(path, problems), staged)
    except FormatError as exc:  # unreadable, a bad header, invalid UTF-8: the file's one problem
        return exc.problems
    repeated, total = _repeated_judgments(session, str(path), staged)
    return capped([*problems, *repeated], total=problems.total + total)


def _stage_judgments(session: Session, numbered: Iterable[tuple[int, model.Judgment]], staged: Table) -> None:
    connection = session.connection()
    staged.drop(connection, checkfirst=True)  # SQLite: one a failed import left on this connection
    staged.create(connection)
    insert_rows(session, staged, ("line", "topic_id", "run_id", "answer_rank", "nugget_label", "match", "assessor"),
                ((i, j.topic_id, j.run_id, j.answer_rank, j.nugget_id, float(j.match), j.assessor)
                 for i, j in numbered))


def _repeated_judgments(session: Session, name: str, staged: Table) -> tuple[list[Problem], int]:
    """The staged lines repeating an earlier line's judgment (the first MAX_PROBLEMS + 1 of them, each
    pointing at the first line), and how many there are."""
    key = (staged.c.topic_id, staged.c.run_id, staged.c.answer_rank, staged.c.nugget_label, staged.c.assessor)
    lines = select(staged.c.line, func.min(staged.c.line).over(partition_by=key).label("first")).subquery()
    repeats = select(lines.c.line, lines.c.first).where(lines.c.line > lines.c.first)
    connection = session.connection()
    total = connection.scalar(select(func.count()).select_from(repeats.subquery())) or 0
    shown = connection.execute(repeats.order_by(lines.c.line).limit(MAX_PROBLEMS + 1))
    return [duplicate(name, line, first) for line, first in shown], total


def store_staged_judgments(session: Session, replace: bool, staged: Table) -> int:
    """Store the judgments staged in `staged` (whose checks found no problem) and drop it; ImportRefused,
    for the caller to roll back, when one names no stored answer or nugget, or is stored already
    without `replace`."""
    connection = session.connection()
    response = (select(db.Response.id).join(db.RunTopic, db.Response.run_topic_id == db.RunTopic.id).join(db.Run)
                .where(db.Run.kind == "cclqa", db.Run.run_id == staged.c.run_id,
                       db.RunTopic.topic_id == staged.c.topic_id, db.Response.rank == staged.c.answer_rank))
    nugget = select(db.Nugget.id).where(db.Nugget.topic_id == staged.c.topic_id, db.Nugget.label == staged.c.nugget_label)
    connection.execute(update(staged).values(response_id=response.scalar_subquery(),
                                             nugget_id=nugget.scalar_subquery()))
    reasons: dict[str, None] = {}  # distinct, in line order; the first MAX_PROBLEMS of them
    with connection.execute(  # read a batch at a time: a file may name no stored answer at all
            select(staged.c.topic_id, staged.c.run_id, staged.c.answer_rank, staged.c.nugget_label,
                   staged.c.response_id, staged.c.nugget_id)
            .where(or_(staged.c.response_id.is_(None), staged.c.nugget_id.is_(None))).order_by(staged.c.line)
            .execution_options(yield_per=BATCH)) as unknown:
        for topic_id, run_id, rank, label, response_id, nugget_id in unknown:
            if response_id is None:
                reasons[f"no stored answer {rank} of run {run_id} for topic {topic_id}"] = None
            if nugget_id is None:
                reasons[f"no stored nugget {label} in topic {topic_id}"] = None
            if len(reasons) >= MAX_PROBLEMS:
                break
    if reasons:
        raise ImportRefused(list(reasons))
    stored = db.NuggetJudgment
    same = and_(stored.response_id == staged.c.response_id, stored.nugget_id == staged.c.nugget_id,
                stored.assessor == staged.c.assessor)
    clashes = connection.scalar(select(func.count()).select_from(staged).where(exists().where(same)))
    if clashes and not replace:
        raise ImportRefused([f"{clashes} judgments are already stored (use replace to overwrite)"])
    if clashes:
        connection.execute(update(stored).values(match=select(staged.c.match).where(same).scalar_subquery())
                           .where(exists().where(same)))
    connection.execute(insert(stored).from_select(
        ["response_id", "nugget_id", "assessor", "match", "created_at"],
        select(staged.c.response_id, staged.c.nugget_id, staged.c.assessor, staged.c.match,
               literal(db.utcnow(), DateTime(timezone=True))).where(~exists().where(same))))
    count = connection.scalar(select(func.count()).select_from(staged))
    staged.drop(connection)
    return count or 0


def export_judgments(session: Session, run_id: str | None = None, topic_ids: Iterable[str] | None = None,
                     individual: bool = False) -> list[model.Judgment]:
    """The nugget judgments that count: where an organiser adjudicated a response, that decision only
    (sepia.scoring.adjudication.official); with `individual`, every assessor's own and no adjudication."""
    query = (select(db.RunTopic.topic_id, db.Run.run_id, db.Response.rank, db.Nugget.label,
                    db.NuggetJudgment.match, db.NuggetJudgment.assessor)
             .join(db.Response, db.NuggetJudgment.response_id == db.Response.id)
             .join(db.RunTopic, db.Response.run_topic_id == db.RunTopic.id).join(db.Run)
             .join(db.Nugget, db.NuggetJudgment.nugget_id == db.Nugget.id)
             .order_by(db.Run.run_id, db.RunTopic.topic_id, db.Response.rank, db.Nugget.position,
                       db.NuggetJudgment.assessor))
    if run_id:
        query = query.where(db.Run.run_id == run_id)
    if topic_ids is not None:
        query = query.where(db.RunTopic.topic_id.in_(list(topic_ids)))
    rows = [model.Judgment(t, r, rank, n, float(m), a) for t, r, rank, n, m, a in session.execute(query)]
    if individual:
        return [j for j in rows if j.assessor != ADJUDICATED]
    return official(rows, key=lambda j: (j.run_id, j.topic_id, j.answer_rank))


def delete_all(session: Session) -> None:
    """Empty the campaign data (not the accounts): used by `sepia demo` to start afresh."""
    for table in (db.NuggetJudgment, db.PoolEntry, db.ControlItem, db.Pool, db.RelevanceJudgment, db.EvaluationResult,
                  db.ReleasedSettings, db.Submission, db.Run, db.Topic, db.TaskWindow, db.TopicSet, db.Document):
        session.execute(delete(table))



# ---------------------------------------------------------------- scores

RAG_PREFIX = "RAG "  # measures of TREC RAG's nugget scores: `RAG vital`, `RAG vital answered`


def rag_means(means: dict | None) -> dict[str, float]:
    """A run's TREC RAG scores (`nuggetizer.run_means`) by the measure names the store keeps them
    under: over all topics (`RAG vital`) and over the answered topics, as nuggetizer averages
    (`RAG vital answered`)."""
    if means is None:
        return {}
    return {**{f"{RAG_PREFIX}{m}": v for m, v in means["all_topics"].items()},
            **{f"{RAG_PREFIX}{m} answered": v for m, v in means["answered_topics"].items()}}


def save_scores(session: Session, scores, settings: dict) -> int:
    """Keep F-scores in the store: one row per run and topic plus the run's mean (topic NULL), and
    the run's TREC RAG scores (topic NULL, `rag_means`)."""
    import json

    runs = {r.run_id: r.id for r in session.scalars(select(db.Run).where(db.Run.kind == "cclqa"))}
    measure = f"F{settings.get('beta', 3):g}"
    rows = 0
    for run_score in scores:
        run_pk = runs.get(run_score.run_id)
        if run_pk is None:
            continue
        common = {"run_id": run_pk, "measure": measure, "matcher": run_score.matcher,
                  "settings": json.dumps(settings, sort_keys=True)}
        session.add(db.EvaluationResult(**common, value=run_score.score))
        for m, value in rag_means(run_score.nuggetizer).items():  # TREC RAG's four scores, run means only
            session.add(db.EvaluationResult(**{**common, "measure": m}, value=value))
            rows += 1
        for t in run_score.topics:
            session.add(db.EvaluationResult(**common, topic_id=t.topic_id, answer_type=t.answer_type, value=t.f,
                                            recall=t.recall, precision=t.precision))
        rows += 1 + len(run_score.topics)
    session.flush()
    return rows
