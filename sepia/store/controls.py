"""Control items: items with a known answer mixed blind into assessors' queues (qualification).

An organiser makes an adjudicated item a control item (its decision is the expected answer, with a
reason); `mix_controls` places control items into a pool's queues at a chosen rate, each as an entry
of the pool marked with `control_id`. The assessor judges it like any other item; the answer goes to
`control_answer` (right or wrong), never to the judgments that score runs, and the pool's exports,
disputes and agreement leave these entries out. In a training pool the screen then shows the
expected answer and its reason.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session, selectinload

from sepia.store import models as db
from sepia.store.errors import ImportRefused
from sepia.scoring.adjudication import ADJUDICATED
from sepia.store.judging import mark_judged


REASON_MAX_CHARS = 2_000  # as a judging comment


def nugget_answer(nugget_ids) -> str:
    """A CCLQA answer as stored: the matched nuggets' IDs, ascending, space separated ("" = none)."""
    return " ".join(str(n) for n in sorted(set(nugget_ids)))


def _adjudicated(session: Session, entry: db.PoolEntry) -> str | None:
    """The organiser's decision on an item as an expected answer, or None when there is none."""
    if entry.docid is not None and entry.response_id is None:
        level = session.scalar(select(db.RelevanceJudgment.level).where(
            db.RelevanceJudgment.topic_id == entry.topic_id, db.RelevanceJudgment.docid == entry.docid,
            db.RelevanceJudgment.assessor == ADJUDICATED))
        return None if level is None else str(level)
    rows = session.execute(select(db.NuggetJudgment.nugget_id, db.NuggetJudgment.match).where(
        db.NuggetJudgment.response_id == entry.response_id, db.NuggetJudgment.assessor == ADJUDICATED)).all()
    return nugget_answer(n for n, m in rows if m >= 1) if rows else None


def written_answer(session: Session, entry: db.PoolEntry, nugget_labels: list[str] | None = None,
                   level: int | None = None) -> str:
    """An expected answer an organiser writes for an item (one written for training): the labels of
    the nuggets the response contains (CCLQA), or the level (IR4QA)."""
    if entry.response_id is None:
        if level is None or level < 0 or nugget_labels:
            raise ImportRefused([f"item {entry.id} is a document: its expected answer is a level (0 or more)"])
        return str(level)
    if level is not None or nugget_labels is None:
        raise ImportRefused([f"item {entry.id} is a response: its expected answer is the nuggets it contains"])
    ids = dict(session.execute(select(db.Nugget.label, db.Nugget.id).where(db.Nugget.topic_id == entry.topic_id)).all())
    unknown = [label for label in nugget_labels if label not in ids]
    if unknown:
        raise ImportRefused([f"{', '.join(unknown)}: not a nugget of {entry.topic_id}"])
    return nugget_answer(ids[label] for label in nugget_labels)


def mark_control(session: Session, entry: db.PoolEntry, reason: str = "", created_by: str | None = None,
                 expected: str | None = None) -> db.ControlItem:
    """Make an item a control item (or update the one made from it). The expected answer is the one
    given (`written_answer`), else the organiser's decision on the item; an item without either has no
    answer to expect: refused."""
    if entry.control_id is not None:
        raise ImportRefused([f"item {entry.id} is itself a control item mixed into a pool"])
    if len(reason) > REASON_MAX_CHARS:
        raise ImportRefused([f"a control item's reason is at most {REASON_MAX_CHARS:,} characters, not {len(reason):,}"])
    expected = expected if expected is not None else _adjudicated(session, entry)
    if expected is None:
        raise ImportRefused([f"item {entry.id} of {entry.topic_id} has no expected answer: decide it "
                             "(adjudicate) or give the answer before making it a control item"])
    kind = "ir4qa" if entry.response_id is None else "cclqa"
    control = session.scalar(select(db.ControlItem).where(
        db.ControlItem.kind == kind, db.ControlItem.topic_id == entry.topic_id,
        db.ControlItem.response_id == entry.response_id if kind == "cclqa" else db.ControlItem.docid == entry.docid))
    if control is None:
        pool_name = session.scalar(select(db.Pool.name).where(db.Pool.id == entry.pool_id))
        control = db.ControlItem(kind=kind, topic_id=entry.topic_id, response_id=entry.response_id,
                                 docid=entry.docid, source=f"pool {pool_name} item {entry.id}"[:200],
                                 created_by=created_by)
        session.add(control)
    control.expected, control.reason = expected, reason
    session.flush()
    return control


def remove_control(session: Session, control: db.ControlItem) -> None:
    """Delete a control item with the entries that placed it in pools (and their answers)."""
    session.execute(delete(db.PoolEntry).where(db.PoolEntry.control_id == control.id)
                    .execution_options(synchronize_session=False))
    session.delete(control)


def mix_controls(session: Session, pool: db.Pool, rate: float, seed: int = 0) -> int:
    """Place control items of the pool's task (and language) into the queue of every assessor of the
    pool, so that about `rate` of each queue is control items (each control item once per assessor,
    never one whose response or document is already in their queue). Returns how many were placed."""
    if not 0 <= rate < 1:
        raise ValueError("the control rate is a share of the queue from 0 up to (not including) 1")
    controls = session.scalars(select(db.ControlItem).where(db.ControlItem.kind == pool.kind)
                               .order_by(db.ControlItem.id)).all()
    if pool.lang:
        langs = dict(session.execute(select(db.Topic.id, db.Topic.lang).where(
            db.Topic.id.in_({c.topic_id for c in controls}))).all())
        controls = [c for c in controls if langs.get(c.topic_id) == pool.lang]
    entries = session.scalars(select(db.PoolEntry).where(db.PoolEntry.pool_id == pool.id)
                              .options(selectinload(db.PoolEntry.assignments))).all()
    placed = {e.control_id: e for e in entries if e.control_id is not None}
    queues: dict[str, list[db.PoolEntry]] = {}
    for entry in entries:
        for a in entry.assignments:
            queues.setdefault(a.assessor, []).append(entry)
    added = 0
    for assessor, queue in sorted(queues.items()):
        real = [e for e in queue if e.control_id is None]
        seen = {(e.topic_id, e.response_id, e.docid) for e in queue}
        have = len(queue) - len(real)
        want = round(rate * len(real) / (1 - rate)) - have
        free = [c for c in controls if (c.topic_id, c.response_id, c.docid) not in seen]
        random.Random(f"{seed}:{pool.name}:{assessor}:controls").shuffle(free)
        position = max(a.position for e in queue for a in e.assignments if a.assessor == assessor) + 1
        for control in free[:max(want, 0)]:
            shown = placed.get(control.id)
            if shown is None:
                shown = placed[control.id] = db.PoolEntry(pool_id=pool.id, topic_id=control.topic_id,
                                                          response_id=control.response_id, docid=control.docid,
                                                          control_id=control.id)
                if control.response_id is not None:
                    shown.members.append(session.get_one(db.Response, control.response_id))
                session.add(shown)
            shown.assignments.append(db.Assignment(assessor=assessor, position=position))
            position += 1
            added += 1
    session.flush()
    return added


def answer_control(session: Session, assignment: db.Assignment, answer: str, comment: str = "") -> db.ControlAnswer:
    """Keep an assessor's answer to a control item (replacing an earlier one) and mark the item
    judged, as a judgment would; the caller commits."""
    control = session.get_one(db.ControlItem, assignment.entry.control_id)
    found = session.scalar(select(db.ControlAnswer).where(db.ControlAnswer.entry_id == assignment.entry_id,
                                                          db.ControlAnswer.assessor == assignment.assessor))
    if found is None:
        found = db.ControlAnswer(entry_id=assignment.entry_id, control_id=control.id, assessor=assignment.assessor)
        session.add(found)
    found.answer, found.correct, found.answered_at = answer, answer == control.expected, db.utcnow()
    mark_judged(assignment, comment)
    session.flush()
    return found


@dataclass(frozen=True)
class Feedback:
    """What a training screen shows after a control item: the expected answer and its reason."""
    correct: bool
    expected: str   # "nuggets 1, 3" / "none of the nuggets" / "L2"
    given: str
    reason: str


def _describe(kind: str, answer: str, positions: dict[int, int]) -> str:
    if kind == "ir4qa":
        return f"L{answer}"
    numbers = sorted(positions.get(int(n), 0) for n in answer.split())
    return f"nugget(s) {', '.join(map(str, numbers))}" if numbers else "none of the nuggets"


def feedback(session: Session, answer_id: int, assessor: str) -> Feedback | None:
    """The feedback on one of this assessor's control answers (None for anyone else's)."""
    found = session.get(db.ControlAnswer, answer_id)
    if found is None or found.assessor != assessor:
        return None
    control = session.get_one(db.ControlItem, found.control_id)
    nuggets = session.scalars(select(db.Nugget.id).where(db.Nugget.topic_id == control.topic_id)
                              .order_by(db.Nugget.position)).all()
    positions = {n: i for i, n in enumerate(nuggets, 1)}
    return Feedback(found.correct, _describe(control.kind, control.expected, positions),
                    _describe(control.kind, found.answer, positions), control.reason)


@dataclass(frozen=True)
class ControlAccuracy:
    kind: str
    assessor: str
    answered: int
    correct: int
    accuracy: float
    low: float      # 95% Wilson interval
    high: float
    flagged: bool   # accuracy below the threshold

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def check_threshold(threshold: float) -> float:
    if not 0 <= threshold <= 1:
        raise ValueError(f"the flag threshold is an accuracy between 0 and 1, not {threshold:g}")
    return threshold


def accuracy(session: Session, threshold: float = 0.8) -> list[ControlAccuracy]:
    """Each assessor's accuracy on the control items they answered, per task, with a 95% interval;
    flagged below the threshold (a share between 0 and 1)."""
    from sepia.metaeval.assessors import wilson_interval

    check_threshold(threshold)
    rows = []
    for kind, assessor, answered, correct in session.execute(
            select(db.ControlItem.kind, db.ControlAnswer.assessor, func.count(),
                   func.sum(func.cast(db.ControlAnswer.correct, db.Integer)))
            .join(db.ControlItem, db.ControlItem.id == db.ControlAnswer.control_id)
            .group_by(db.ControlItem.kind, db.ControlAnswer.assessor)
            .order_by(db.ControlItem.kind, db.ControlAnswer.assessor)):
        correct = int(correct or 0)
        low, high = wilson_interval(correct, answered)
        rows.append(ControlAccuracy(kind, assessor, answered, correct, correct / answered, low, high,
                                    correct / answered < threshold))
    return rows
