"""What the results pages read and write of the store beside the scores themselves
(`sepia.campaign.results`, `task_results`): whether anything is judged, the key of the scored part
of the overview, the settings released to the teams, and which runs answer which topic sets."""
from __future__ import annotations

from typing import Iterable

from sqlalchemy import exists, func, select
from sqlalchemy.orm import Session

from sepia.scoring.evaluate import Settings
from sepia.store.models import (EvaluationResult, JudgingPlan, NuggetJudgment, Pool, ReleasedSettings, Run, RunTopic,
                                Submission, TaskWindow, Topic)
from sepia.store.results import settings_key, shown

# Statements every overview sends, built once: building one costs more than running it.
_pool, _plan = Pool.__table__, JudgingPlan.__table__
PLANNED_POOLS = (select(_pool.c.id, _pool.c.name).join(_plan, _plan.c.pool_id == _pool.c.id)
                 .order_by(_pool.c.name))
JUDGED = select(exists().select_from(NuggetJudgment.__table__))


def _newest(table, stamp):
    """(rows, highest ID, that row's time) of a table: what `SCORES_STATE` reads of it."""
    return (select(func.count()).select_from(table).scalar_subquery(),
            select(func.max(table.c.id)).scalar_subquery(),
            select(stamp).order_by(table.c.id.desc()).limit(1).scalar_subquery())


# What the scored part of the overview is made from (every score and run), by a key that changes
# with them. Scores and runs are only inserted and deleted, never updated (scoring again and
# replacing a run delete and insert), so any change adds a row with a higher ID, or removes rows.
# Where SQLite gives a new row the ID of a deleted one, the new row's time tells them apart.
SCORES_STATE = select(*_newest(EvaluationResult.__table__, EvaluationResult.__table__.c.created_at),
                      *_newest(Run.__table__, Run.__table__.c.submitted_at))


def planned_pools(session: Session) -> list[tuple[int, str]]:
    """(ID, name) of every pool with a judging plan, by name."""
    return [(pool_id, name) for pool_id, name in session.connection().execute(PLANNED_POOLS)]


def any_judged(session: Session) -> bool:
    """Whether the store holds a nugget judgment."""
    return bool(session.connection().execute(JUDGED).scalar())


def scores_state(session: Session) -> tuple:
    """A key of every stored score and run that changes whenever they change (`SCORES_STATE`)."""
    return tuple(session.connection().execute(SCORES_STATE).one())


def stored_kinds(session: Session) -> set[str]:
    """The tasks the stored runs are of."""
    return set(session.scalars(select(Run.kind).distinct()))


def released(session: Session, settings: Settings) -> ReleasedSettings | None:
    """The release of these settings' scores to the teams, if they are released."""
    return session.scalar(select(ReleasedSettings).where(ReleasedSettings.settings_id == settings_key(settings.identity())))


def release(session: Session, settings: Settings, label: str, username: str) -> None:
    """Release these settings' scores to the teams under `label`; the caller commits."""
    described = settings.describe()
    session.add(ReleasedSettings(settings=shown(described), settings_id=settings_key(settings.identity(described)),
                                 label=label, released_by=username))


def withdraw(session: Session, row: ReleasedSettings) -> None:
    """Withdraw a release; the caller commits."""
    session.delete(row)


def windows_of(session: Session, task: str) -> dict[int, TaskWindow]:
    """Each topic set's window of a task."""
    return {w.topic_set_id: w for w in session.scalars(select(TaskWindow).where(TaskWindow.task == task))}


def run_topic_sets(session: Session, task: str) -> dict[str, set[int | None]]:
    """The topic sets of the topics each stored run of the task answers."""
    sets: dict[str, set[int | None]] = {}
    for run_id, set_id in session.execute(select(Run.run_id, Topic.topic_set_id).distinct()
                                          .join(RunTopic, RunTopic.run_id == Run.id)
                                          .join(Topic, Topic.id == RunTopic.topic_id).where(Run.kind == task)):
        sets.setdefault(run_id, set()).add(set_id)
    return sets


def current_run_ids(session: Session, teams: Iterable[str], task: str) -> dict[str, set[str]]:
    """The run IDs of each team's current submissions of a task."""
    owned: dict[str, set[str]] = {}
    for team, run_id in session.execute(select(Submission.team, Submission.run_id).where(
            Submission.team.in_(list(teams)), Submission.kind == task, Submission.superseded_at.is_(None))):
        owned.setdefault(team, set()).add(run_id)
    return owned
