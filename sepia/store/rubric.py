"""Rubric judging in the store: the campaign's rubric in versions (every set a new one), the
assessors' grades of each CCLQA run's answer to a topic (a run_topic), the grading queue (every
answer for every assessor, until the organiser shares the answers out), and the grades TSV in and out. A new rubric is refused while it would leave stored grades without their
dimension or off its scale; labels, anchors and weights may change freely."""
from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from sqlalchemy import delete, func, select, tuple_
from sqlalchemy.orm import Session

from sepia.formats.rubric import Rubric, RubricError, RubricGrade, parse_rubric
from sepia.store.models import Response, RubricAssignment, Run, RunTopic, RubricVersion
from sepia.store.models import RubricGrade as GradeRow
from sepia.store.sharing import check_sharing, queue_order, share_out

SHOWN = 5  # problems named in one error message


@dataclass(frozen=True)
class Current:
    rubric: Rubric
    version: int
    text: str
    author: str


def current(session: Session) -> Current | None:
    row = session.scalar(select(RubricVersion).order_by(RubricVersion.version.desc()).limit(1))
    return None if row is None else Current(parse_rubric(row.text), row.version, row.text, row.author)


def require(session: Session) -> Rubric:
    found = current(session)
    if found is None:
        raise RubricError("the campaign has no rubric yet: set one with `sepia rubric set FILE` or on the Rubric page")
    return found.rubric


def _listed(items: list[str]) -> str:
    more = f" and {len(items) - SHOWN} more" if len(items) > SHOWN else ""
    return "; ".join(items[:SHOWN]) + more


def set_rubric(session: Session, text: str, author: str) -> int:
    """Save TEXT as the next version (flushed, not committed); RubricError when it is not a rubric or
    would strand stored grades."""
    rubric = parse_rubric(text)
    stored = session.execute(select(GradeRow.dimension, func.min(GradeRow.grade), func.max(GradeRow.grade),
                                    func.count()).group_by(GradeRow.dimension)).all()
    problems = []
    for name, low, high, count in sorted(stored):
        dimension = rubric.dimension(name)
        if dimension is None:
            problems.append(f"{count} stored grades are of dimension {name!r}, which the new rubric lacks")
        elif low < dimension.low or high > dimension.high:
            problems.append(f"stored grades of {name!r} range {low}-{high}, off the new scale "
                            f"{dimension.low}-{dimension.high}")
    if problems:
        raise RubricError(_listed(problems) + " (export and delete those grades first, or keep the dimension)")
    last = session.scalar(select(func.max(RubricVersion.version))) or 0
    session.add(RubricVersion(version=last + 1, text=text, author=author))
    session.flush()
    return last + 1


def _answers():
    """(run_topic id, topic, run) of every CCLQA run's answer with at least one response."""
    return (select(RunTopic.id, RunTopic.topic_id, Run.run_id).join(Run, Run.id == RunTopic.run_id)
            .where(Run.kind == "cclqa", select(Response.id).where(Response.run_topic_id == RunTopic.id).exists()))


def grades(session: Session) -> list[RubricGrade]:
    rows = session.execute(select(RunTopic.topic_id, Run.run_id, GradeRow.assessor, GradeRow.dimension, GradeRow.grade)
                           .join(RunTopic, RunTopic.id == GradeRow.run_topic_id).join(Run, Run.id == RunTopic.run_id))
    return sorted(RubricGrade(*row) for row in rows)


def import_grades(session: Session, found: list[RubricGrade]) -> int:
    """Store the grades of a parsed TSV (checked against the current rubric by `parse_grades`),
    replacing an assessor's earlier grade of the same answer and dimension. Everything is checked
    before anything is written: RubricError names answers the store does not hold."""
    answers = {(topic, run): rt for rt, topic, run in session.execute(_answers())}
    missing = sorted({(g.topic_id, g.run_id) for g in found} - answers.keys())
    if missing:
        raise RubricError(f"{len(missing)} graded answers are not in the store (no CCLQA run answers that topic): "
                          + _listed([f"run {run} topic {topic}" for topic, run in missing]))
    keys = {(answers[g.topic_id, g.run_id], g.assessor, g.dimension): g.grade for g in found}
    _replace(session, keys)
    return len(keys)


def _replace(session: Session, keys: dict[tuple[int, str, str], int]) -> None:
    """Delete the grades with these keys (run_topic, assessor, dimension), then insert the new ones."""
    items = list(keys.items())
    for start in range(0, len(items), 500):  # bounded IN lists
        chunk = [key for key, _ in items[start:start + 500]]
        session.execute(delete(GradeRow).where(tuple_(GradeRow.run_topic_id, GradeRow.assessor,
                                                      GradeRow.dimension).in_(chunk)))
    session.add_all(GradeRow(run_topic_id=rt, assessor=a, dimension=d, grade=g) for (rt, a, d), g in items)
    session.flush()


def save_answer(session: Session, run_topic_id: int, assessor: str, given: dict[str, int]) -> None:
    """One assessor's grades of one answer, one per dimension of the current rubric (ValueError
    otherwise), replacing their earlier grades of it."""
    rubric = require(session)
    missing = [d.label for d in rubric.dimensions if d.name not in given]
    if missing:
        raise ValueError(f"give a grade for every dimension; missing: {', '.join(missing)}")
    for d in rubric.dimensions:
        if given[d.name] not in d.grades:
            raise ValueError(f"{d.label}: grade {given[d.name]} is off the scale {d.low}-{d.high}")
    _replace(session, {(run_topic_id, assessor, d.name): given[d.name] for d in rubric.dimensions})


# ---------------------------------------------------------------- the grading queue

@dataclass(frozen=True)
class Answer:
    """One run's answer to one topic as the grading screen shows it (blind: the run is not shown)."""
    id: int
    topic_id: str
    run_id: str
    responses: list[str]
    grades: dict[str, int]   # the assessor's own, when they graded it before


def _order(assessor: str, run_topic_id: int) -> str:
    """A fixed random order per assessor, so that assessors do not all grade the same runs first."""
    return hashlib.sha256(f"{assessor}:{run_topic_id}".encode()).hexdigest()


def _graded(rubric: Rubric):
    """(answer, assessor) of every answer an assessor graded on every dimension of RUBRIC."""
    return (select(GradeRow.run_topic_id, GradeRow.assessor).where(GradeRow.dimension.in_(rubric.names))
            .group_by(GradeRow.run_topic_id, GradeRow.assessor).having(func.count() == len(rubric.names)))


def shared_out(session: Session) -> bool:
    """Whether the organiser has shared the answers out (`assign_answers`): from then on each
    assessor grades only the answers assigned to them."""
    return session.scalar(select(RubricAssignment.id).limit(1)) is not None


def is_assigned(session: Session, run_topic_id: int, assessor: str) -> bool:
    return session.scalar(select(RubricAssignment.id).where(RubricAssignment.run_topic_id == run_topic_id,
                                                            RubricAssignment.assessor == assessor)) is not None


def queue(session: Session, assessor: str, rubric: Rubric) -> tuple[list[int], int]:
    """(answers ASSESSOR has not graded on every dimension of RUBRIC (the current one, which the
    caller holds already), in their order; answers graded). Once answers are shared out
    (`assign_answers`), an assessor's are those assigned to them, in their assigned order."""
    graded = _graded(rubric).subquery()
    done = set(session.scalars(select(graded.c.run_topic_id).where(graded.c.assessor == assessor)))
    if shared_out(session):
        mine = session.scalars(select(RubricAssignment.run_topic_id).where(RubricAssignment.assessor == assessor)
                               .order_by(RubricAssignment.position)).all()
        return [i for i in mine if i not in done], len(done)
    ids = session.scalars(select(_answers().subquery().c.id)).all()
    return sorted((i for i in ids if i not in done), key=lambda i: _order(assessor, i)), len(done)


@dataclass(frozen=True)
class Progress:
    assessor: str
    assigned: int
    graded: int   # of those assigned, graded on every dimension of the current rubric


def progress(session: Session, rubric: Rubric) -> list[Progress]:
    """Each assessor's answers assigned and graded (none while the answers are not shared out), by name."""
    graded = _graded(rubric).subquery()
    rows = session.execute(select(RubricAssignment.assessor, func.count(), func.count(graded.c.run_topic_id))
                           .outerjoin(graded, (graded.c.run_topic_id == RubricAssignment.run_topic_id)
                                      & (graded.c.assessor == RubricAssignment.assessor))
                           .group_by(RubricAssignment.assessor).order_by(RubricAssignment.assessor))
    return [Progress(*row) for row in rows]


def assign_answers(session: Session, assessors: list[str], overlap: float = 0.0, seed: int = 0) -> int:
    """Share the CCLQA runs' answers out to ASSESSORS as `sepia.store.pools.assign_pool` shares a
    pool's items (`sepia.store.sharing`): each topic's answers to one assessor, a share OVERLAP of
    them to a second as well, for agreement; each queue in a random order fixed for its assessor.
    An answer an assessor holds (assigned, or graded on some dimension) is never handed to them
    again; a topic shared out already keeps its assessors. Returns how many assignments were added.
    From the first assignment on, assessors grade only the answers assigned to them (`queue`)."""
    check_sharing(session, assessors, overlap)
    answers = session.execute(_answers().order_by(RunTopic.id)).all()
    holders: dict[int, set[str]] = {answer_id: set() for answer_id, _, _ in answers}
    for table in (RubricAssignment, GradeRow):
        for answer_id, who in session.execute(select(table.run_topic_id, table.assessor).distinct()):
            if answer_id in holders:
                holders[answer_id].add(who)
    topic_of = {answer_id: topic_id for answer_id, topic_id, _ in answers}
    by_topic: dict[str, list[int]] = {}
    for answer_id, topic_id in topic_of.items():
        by_topic.setdefault(topic_id, []).append(answer_id)
    wanted = share_out(by_topic, holders, assessors, overlap, random.Random(f"{seed}:rubric"))
    last = dict(session.execute(select(RubricAssignment.assessor, func.max(RubricAssignment.position))
                                .group_by(RubricAssignment.assessor)).all())
    for assessor in assessors:
        mine = queue_order([i for i, a in wanted if a == assessor], topic_of, random.Random(f"{seed}:rubric:{assessor}"))
        session.add_all(RubricAssignment(run_topic_id=answer_id, assessor=assessor, position=position)
                        for position, answer_id in enumerate(mine, last.get(assessor, -1) + 1))
    session.flush()
    return len(wanted)


def is_answer(session: Session, run_topic_id: int) -> bool:
    """Whether RUN_TOPIC_ID is a CCLQA run's answer that can be graded (without reading it)."""
    return session.execute(_answers().where(RunTopic.id == run_topic_id)).first() is not None


def answer(session: Session, run_topic_id: int, assessor: str) -> Answer | None:
    row = session.execute(_answers().where(RunTopic.id == run_topic_id)).first()
    if row is None:
        return None
    texts = session.scalars(select(Response.text).where(Response.run_topic_id == run_topic_id)
                            .order_by(Response.rank)).all()
    own: dict[str, int] = dict(session.execute(select(GradeRow.dimension, GradeRow.grade).where(
        GradeRow.run_topic_id == run_topic_id, GradeRow.assessor == assessor)).all())
    return Answer(row.id, row.topic_id, row.run_id, list(texts), own)
