"""The campaign's topic sets as the organisers' schedule pages read and change them: the sets with
their windows, the topics in each, the windows set or cleared, and the submissions that came in."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Iterator

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, selectinload

from sepia.store.models import Submission, TaskWindow, Topic, TopicSet


@dataclass(frozen=True)
class Window:
    """A task's submission window as an organiser sets it."""
    opens_at: datetime
    closes_at: datetime
    release_at: datetime | None
    max_runs: int
    publish_full_table: bool


def topic_sets(session: Session) -> list[TopicSet]:
    """Every topic set with its windows, in the order they were made."""
    return list(session.scalars(select(TopicSet).options(selectinload(TopicSet.windows)).order_by(TopicSet.id)))


def topic_set(session: Session, set_id: int) -> TopicSet | None:
    return session.get(TopicSet, set_id)


def topic_counts(session: Session) -> tuple[dict[int | None, int], dict[int | None, dict[str, int]]]:
    """How many topics each set holds (None: in no set), and how many of each language."""
    counts = dict(session.execute(select(Topic.topic_set_id, func.count()).group_by(Topic.topic_set_id)).all())
    languages: dict[int | None, dict[str, int]] = {}
    for set_id, lang, count in session.execute(
            select(Topic.topic_set_id, Topic.lang, func.count()).group_by(Topic.topic_set_id, Topic.lang)):
        languages.setdefault(set_id, {})[lang] = count
    return counts, languages


def add_topic_set(session: Session, name: str, description: str) -> bool:
    """Add a topic set; False when one has that name already. The caller commits."""
    if session.scalar(select(TopicSet).where(TopicSet.name == name)) is not None:
        return False
    session.add(TopicSet(name=name, description=description))
    return True


def set_windows(topic_set: TopicSet, windows: dict[str, Window | None]) -> None:
    """Give the set these windows by task (None: the task has no window). The caller commits."""
    existing = {w.task: w for w in topic_set.windows}
    for task, wanted in windows.items():
        if wanted is None:
            if task in existing:
                topic_set.windows.remove(existing[task])
            continue
        window = existing.get(task) or TaskWindow(task=task)
        window.opens_at, window.closes_at, window.release_at = wanted.opens_at, wanted.closes_at, wanted.release_at
        window.max_runs, window.publish_full_table = wanted.max_runs, wanted.publish_full_table
        if task not in existing:
            topic_set.windows.append(window)


def topic_ids(session: Session) -> list[str]:
    return list(session.scalars(select(Topic.id)))


def put_topics(session: Session, set_id: int, ids: list[str]) -> None:
    """Move these topics into the set; the caller commits."""
    session.execute(update(Topic).where(Topic.id.in_(ids)).values(topic_set_id=set_id)
                    .execution_options(synchronize_session=False))


def teams_of(session: Session, set_id: int) -> list[str]:
    """The teams with a current submission to the set."""
    return list(session.scalars(select(Submission.team).distinct().where(
        Submission.topic_set_id == set_id, Submission.superseded_at.is_(None)).order_by(Submission.team)))


def all_submissions(session: Session) -> list:
    """Every submission (superseded ones too) with its topic set's name, by task, run and time."""
    return list(session.execute(
        select(Submission.id, Submission.run_id, Submission.kind, Submission.team, Submission.filename,
               Submission.sha256, Submission.size, Submission.topics, Submission.items, Submission.submitted_by,
               Submission.submitted_at, Submission.superseded_at, TopicSet.name.label("topic_set"))
        .outerjoin(TopicSet, TopicSet.id == Submission.topic_set_id)
        .order_by(Submission.kind, Submission.run_id, Submission.submitted_at)).all())


def team_submissions(session: Session, team: str) -> list:
    """A team's submissions, current first, by task and run, the latest first."""
    return list(session.execute(
        select(Submission.id, Submission.run_id, Submission.kind, Submission.filename, Submission.sha256,
               Submission.topics, Submission.items, Submission.submitted_at, Submission.superseded_at,
               Submission.submitted_by)
        .where(Submission.team == team)
        .order_by(Submission.superseded_at.is_not(None), Submission.kind, Submission.run_id,
                  Submission.submitted_at.desc())).all())


def team_submission(session: Session, submission_id: int, team: str | None) -> Submission | None:
    """The submission of that ID, if it is the team's."""
    row = session.get(Submission, submission_id)
    return row if row is not None and row.team == team else None


def topic_set_with_windows(session: Session, set_id: int) -> TopicSet | None:
    return session.scalar(select(TopicSet).where(TopicSet.id == set_id).options(selectinload(TopicSet.windows)))


def set_topic_ids(session: Session, set_id: int) -> list[str]:
    """The IDs of the set's topics, in order."""
    return list(session.scalars(select(Topic.id).where(Topic.topic_set_id == set_id).order_by(Topic.id)))


def current_runs(session: Session) -> list[tuple[int | None, str, str, int]]:
    """(topic set, task, run ID, submission) of every current submission, by run ID."""
    return [(set_id, kind, run_id, pk) for set_id, kind, run_id, pk in session.execute(
        select(Submission.topic_set_id, Submission.kind, Submission.run_id, Submission.id)
        .where(Submission.superseded_at.is_(None)).order_by(Submission.run_id))]


def current_submissions(session: Session, set_id: int, task: str) -> Iterator[Submission]:
    """The set's current submissions of a task, by run ID, read one at a time and let go once used
    (a run file may be megabytes)."""
    rows = session.execute(select(Submission).where(
        Submission.topic_set_id == set_id, Submission.kind == task, Submission.superseded_at.is_(None))
        .order_by(Submission.run_id).execution_options(yield_per=1)).scalars()
    for row in rows:
        yield row
        session.expunge(row)


def submission(session: Session, submission_id: int) -> Submission | None:
    return session.get(Submission, submission_id)
