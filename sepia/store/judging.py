"""Assessors' queues and what a judgment writes: a CCLQA item's nugget matches go to every response
the item stands for (nugget_judgment), an IR4QA item's level to its document (relevance_judgment).
Saving again replaces the assessor's earlier judgment of that item; nothing else is touched."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import bindparam, delete, func, select
from sqlalchemy.orm import Session, selectinload

from sepia.store import models as db


@dataclass
class TopicProgress:
    pool_id: int
    pool: str
    kind: str
    topic_id: str
    assessor: str
    total: int
    judged: int
    skipped: int

    @property
    def done(self) -> bool:
        return self.judged == self.total


def progress(session: Session, assessor: str | None = None) -> list[TopicProgress]:
    """Items assigned, judged and skipped per pool, topic and assessor (one assessor's, or everyone's)."""
    query = (select(db.Pool.id, db.Pool.name, db.Pool.kind, db.PoolEntry.topic_id, db.Assignment.assessor,
                    func.count(), func.count(db.Assignment.judged_at),
                    func.sum(func.cast(db.Assignment.skipped, db.Integer)))
             .join(db.PoolEntry, db.PoolEntry.id == db.Assignment.entry_id).join(db.Pool)
             .group_by(db.Pool.id, db.Pool.name, db.Pool.kind, db.PoolEntry.topic_id, db.Assignment.assessor)
             .order_by(db.Pool.name, db.PoolEntry.topic_id, db.Assignment.assessor))
    if assessor is not None:
        query = query.where(db.Assignment.assessor == assessor)
    return [TopicProgress(pool_id, name, kind, topic_id, who, total, judged, int(skipped or 0))
            for pool_id, name, kind, topic_id, who, total, judged, skipped in session.execute(query)]


# Built once: building the statement costs more than running it (tools/bench_web.py).
_nugget_judgment = db.NuggetJudgment.__table__
NUGGET_MATCHES = select(_nugget_judgment.c.nugget_id, _nugget_judgment.c.match).where(
    _nugget_judgment.c.response_id == bindparam("response_id"), _nugget_judgment.c.assessor == bindparam("assessor"))


def queue_item(session: Session, assignment_id: int, responses: bool = True) -> db.Assignment:
    """One item of a queue with its entry and, with `responses` (a CCLQA item), the entry's responses
    and their DOCIDs, to judge."""
    entry = selectinload(db.Assignment.entry)
    return session.get_one(db.Assignment, assignment_id, options=[
        entry.selectinload(db.PoolEntry.members).selectinload(db.Response.docids) if responses else entry])


def next_open(queue: list, after: int | None = None):
    """The first item neither judged nor skipped (after the one at index `after`, wrapping round)."""
    start = 0 if after is None else after + 1
    ordered = queue[start:] + queue[:start]
    return next((a for a in ordered if a.judged_at is None and not a.skipped), None)


def nugget_matches(session: Session, response_id: int | None, assessor: str) -> dict[int, float]:
    """The assessor's current judgment of a CCLQA item (its entry's response): nugget ID -> match."""
    return dict(session.connection().execute(NUGGET_MATCHES, {"response_id": response_id, "assessor": assessor}).all())


def save_nugget_judgment(session: Session, assignment: db.Assignment, nugget_ids: Sequence[int],
                         matched: set[int], comment: str = "") -> None:
    """The assessor's judgment of a CCLQA item; the caller commits."""
    write_nugget_matches(session, assignment.entry, assignment.assessor, nugget_ids, matched)
    mark_judged(assignment, comment)


def write_nugget_matches(session: Session, entry: db.PoolEntry, assessor: str, nugget_ids: Sequence[int],
                         matched: set[int]) -> None:
    """Match (1) the nuggets in `matched`, not (0) the other nuggets of the topic, for every response
    the item stands for, replacing what this assessor said of them before."""
    responses = [r.id for r in entry.members]
    session.execute(delete(db.NuggetJudgment).where(
        db.NuggetJudgment.response_id.in_(responses), db.NuggetJudgment.assessor == assessor)
        .execution_options(synchronize_session=False))
    session.add_all(db.NuggetJudgment(response_id=r, nugget_id=n, assessor=assessor,
                                      match=1.0 if n in matched else 0.0) for r in responses for n in nugget_ids)


def save_relevance(session: Session, assignment: db.Assignment, level: int, comment: str = "") -> None:
    """The assessor's judgment of an IR4QA item; the caller commits."""
    write_relevance(session, assignment.entry, assignment.assessor, level)
    mark_judged(assignment, comment)


def write_relevance(session: Session, entry: db.PoolEntry, assessor: str, level: int) -> None:
    session.execute(delete(db.RelevanceJudgment).where(
        db.RelevanceJudgment.topic_id == entry.topic_id, db.RelevanceJudgment.docid == entry.docid,
        db.RelevanceJudgment.assessor == assessor).execution_options(synchronize_session=False))
    session.add(db.RelevanceJudgment(topic_id=entry.topic_id, docid=entry.docid, assessor=assessor, level=level))


def skip(assignment: db.Assignment, comment: str = "") -> None:
    assignment.skipped = True
    assignment.comment = comment


def mark_judged(assignment: db.Assignment, comment: str) -> None:
    assignment.judged_at = db.utcnow()
    assignment.skipped = False
    assignment.comment = comment


SECONDS_KEPT = 3600.0  # longer on one item is a screen left open, not judging time


def add_seconds(assignment: db.Assignment, seconds: float | None) -> None:
    """Add the seconds the screen timed for this save to the item's (nothing if untimed or absurd)."""
    if seconds is not None and 0 <= seconds <= SECONDS_KEPT:
        assignment.seconds = (assignment.seconds or 0.0) + seconds
