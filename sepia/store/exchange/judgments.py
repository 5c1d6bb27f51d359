"""Nugget judgments into the campaign store and back: a file is staged in a temporary table and
checked and written by a few statements over it."""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from sqlalchemy import (Column, DateTime, Float, Integer, MetaData, String, Table, and_, exists, func, insert,
                        literal, or_, select, update)
from sqlalchemy.orm import Session

from sepia.formats import model
from sepia.formats.errors import MAX_PROBLEMS, FormatError, Problem, capped
from sepia.formats.judgments import BoundedProblems, duplicate, stream_judgments
from sepia.scoring.adjudication import ADJUDICATED, official
from sepia.store import models as db
from sepia.store.bulk import BATCH, insert_rows
from sepia.store.errors import ImportRefused

# Judgments to import, in a temporary table of the importing connection: the checks and the writes
# are a few statements over it, so that memory holds a batch of lines, never every stored response,
# nugget or judgment (issue 34: 3.3 MB per 1,000 lines at TREC RAG scale).
_JUDGMENTS_IN = Table(
    "sepia_judgments_in", MetaData(),
    Column("line", Integer), Column("topic_id", String), Column("run_id", String), Column("answer_rank", Integer),
    Column("nugget_label", String), Column("match", Float), Column("assessor", String),
    Column("response_id", Integer), Column("nugget_id", Integer),
    prefixes=["TEMPORARY"], postgresql_on_commit="DROP")


def import_judgments(session: Session, judgments: Iterable[model.Judgment], replace: bool = False) -> int:
    """Attach judgments to stored responses and nuggets; every unknown reference is reported."""
    _stage_judgments(session, enumerate(judgments))
    return _store_staged_judgments(session, replace)


def import_judgments_file(session: Session, path: str | Path, replace: bool = False) -> int:
    """Import a judgments TSV read, checked and staged a line at a time, so that memory does not grow
    with the file. Any problem raises FormatError with them all before anything is written."""
    if problems := judgments_file_problems(session, path):
        raise FormatError(problems)
    return _store_staged_judgments(session, replace)


def judgments_file_problems(session: Session, path: str | Path) -> list[Problem]:
    """Every problem of a judgments TSV, as validate lists them: its lines checked as they are read
    and staged, then its duplicate lines found in the staging table. After a problem, the session's
    transaction is the caller's to roll back."""
    problems = BoundedProblems()
    try:
        _stage_judgments(session, stream_judgments(path, problems))
    except FormatError as exc:  # unreadable, a bad header, invalid UTF-8: the file's one problem
        return exc.problems
    repeated, total = _repeated_judgments(session, str(path))
    return capped([*problems, *repeated], total=problems.total + total)


def _stage_judgments(session: Session, numbered: Iterable[tuple[int, model.Judgment]]) -> None:
    staged, connection = _JUDGMENTS_IN, session.connection()
    staged.drop(connection, checkfirst=True)  # SQLite: one a failed import left on this connection
    staged.create(connection)
    insert_rows(session, staged, ("line", "topic_id", "run_id", "answer_rank", "nugget_label", "match", "assessor"),
                ((i, j.topic_id, j.run_id, j.answer_rank, j.nugget_id, float(j.match), j.assessor)
                 for i, j in numbered))


def _repeated_judgments(session: Session, name: str) -> tuple[list[Problem], int]:
    """The staged lines repeating an earlier line's judgment (the first MAX_PROBLEMS + 1 of them, each
    pointing at the first line), and how many there are."""
    staged = _JUDGMENTS_IN
    key = (staged.c.topic_id, staged.c.run_id, staged.c.answer_rank, staged.c.nugget_label, staged.c.assessor)
    lines = select(staged.c.line, func.min(staged.c.line).over(partition_by=key).label("first")).subquery()
    repeats = select(lines.c.line, lines.c.first).where(lines.c.line > lines.c.first)
    connection = session.connection()
    total = connection.scalar(select(func.count()).select_from(repeats.subquery())) or 0
    shown = connection.execute(repeats.order_by(lines.c.line).limit(MAX_PROBLEMS + 1))
    return [duplicate(name, line, first) for line, first in shown], total


def _store_staged_judgments(session: Session, replace: bool) -> int:
    staged, connection = _JUDGMENTS_IN, session.connection()
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
