"""Guidelines for assessors: per judging task, the organiser's text in versions (every save a new
one, with who and when), and each assessor's acknowledgement of the versions they read. An assessor
judges a task only once they have acknowledged its current version (`require_read`)."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from sepia.store.models import Guideline, GuidelineRead

# The judging tasks that have guidelines: key -> the name the screens show.
TASKS = {"nuggets": "nugget matching", "relevance": "relevance", "support": "citation support",
         "rubric": "rubric grading"}
POOL_TASK = {"cclqa": "nuggets", "ir4qa": "relevance"}  # a pool's kind -> the task its screen judges
MAX_CHARS = 20_000


class GuidelinesUnread(ValueError):
    """A judgment of a task whose current guidelines the assessor has not acknowledged."""

    def __init__(self, guideline: Guideline):
        self.guideline = guideline
        super().__init__(f"The {TASKS[guideline.task]} guidelines changed (version {guideline.version}): read "
                         "them and tick “I have read them” before saving; your judgment was not saved and "
                         "is still in the form.")


@dataclass(frozen=True)
class Shown:
    """A task's current guidelines as a judging screen shows them to one user."""
    guideline: Guideline
    read: bool  # acknowledged by this user (organisers never need to)


def check_task(task: str) -> str:
    if task not in TASKS:
        raise ValueError(f"{task!r} is not a judging task; the tasks are {', '.join(TASKS)}")
    return task


def save(session: Session, task: str, text: str, author: str) -> Guideline:
    """A new version of TASK's guidelines (flushed, not committed)."""
    check_task(task)
    text = text.replace("\r\n", "\n").strip()
    if not text:
        raise ValueError("the guidelines are empty")
    if len(text) > MAX_CHARS:
        raise ValueError(f"the guidelines have {len(text):,} characters; at most {MAX_CHARS:,} are allowed")
    last = session.scalar(select(func.max(Guideline.version)).where(Guideline.task == task)) or 0
    row = Guideline(task=task, version=last + 1, text=text, author=author)
    session.add(row)
    session.flush()
    return row


def current(session: Session, task: str) -> Guideline | None:
    return session.scalar(select(Guideline).where(Guideline.task == check_task(task))
                          .order_by(Guideline.version.desc()).limit(1))


def history(session: Session, task: str) -> list[Guideline]:
    """Every version of TASK's guidelines, the newest first."""
    return list(session.scalars(select(Guideline).where(Guideline.task == check_task(task))
                                .order_by(Guideline.version.desc())))


def has_read(session: Session, guideline: Guideline, assessor: str) -> bool:
    return session.scalar(select(GuidelineRead.id).where(GuidelineRead.guideline_id == guideline.id,
                                                         GuidelineRead.assessor == assessor)) is not None


def shown(session: Session, task: str, user: str, needs_reading: bool) -> Shown | None:
    """TASK's current guidelines for USER's screen; None when the organiser has written none."""
    row = current(session, task)
    return None if row is None else Shown(row, not needs_reading or has_read(session, row, user))


def acknowledge(session: Session, task: str, version: int, assessor: str) -> None:
    """ASSESSOR read VERSION of TASK's guidelines; ValueError when that is not the current version."""
    row = current(session, task)
    if row is None or row.version != version:
        raise ValueError(f"version {version} is not the current version of the {TASKS[task]} guidelines; "
                         "reload the page")
    if not has_read(session, row, assessor):
        session.add(GuidelineRead(guideline_id=row.id, assessor=assessor))
        session.flush()


def require_read(session: Session, task: str, assessor: str, acknowledged: str | None) -> None:
    """Before ASSESSOR's judgment of TASK is saved: the current guidelines acknowledged, now (the
    form's `acknowledged` version) or earlier; GuidelinesUnread otherwise. No guidelines: no need."""
    row = current(session, task)
    if row is None or has_read(session, row, assessor):
        return
    if acknowledged != str(row.version):
        raise GuidelinesUnread(row)
    session.add(GuidelineRead(guideline_id=row.id, assessor=assessor))
