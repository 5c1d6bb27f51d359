"""An organiser's first steps on an empty store, each ticked once the store shows it done, so that
the first page after `sepia user add ... --role organiser` says what to do next."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from sepia.store.models import Document, Pool, Run, TaskWindow, Topic, User


@dataclass
class Step:
    title: str
    how: str  # what to do, in a sentence
    endpoint: str | None  # the page where it is done, if it is done in the web tool
    done: bool
    command: str | None = None  # the command that does it (or does it too) on the server


def first_steps(session: Session) -> list[Step] | None:
    """The campaign's steps in order, in one query; None once the store holds a topic (the campaign
    has begun, and its pages say what is next)."""
    documents, others, topics, windows, runs, pools = session.execute(select(
        *(select(func.count()).select_from(model).scalar_subquery() for model in (Document, User, Topic, TaskWindow,
                                                                                    Run, Pool)))).one()
    if topics:
        return None
    return [
        Step("Add the collections", "load and index them on the server", None, documents > 0,
             "sepia corpus add LANG FILE… && sepia index build"),
        Step("Create the accounts", "topic developers, assessors and participants (each participant in a team)",
             "admin.users", others > 1),
        Step("Develop or import topics", "topic developers write them beside the search, or import them",
             "topics.index", topics > 0, "sepia import TOPICS.xml"),
        Step("Schedule the tasks", "topic sets with their submission windows and release moments",
             "schedule.index", windows > 0),
        Step("Collect runs", "teams upload in the browser or with sepia submit, or organisers import them", None,
             runs > 0, "sepia import RUN.xml"),
        Step("Pool and judge", "build pools from the runs and share them out to the assessors", "judging.pools",
             pools > 0),
        Step("Score and release", "score the stored runs; teams see them at each release", "results.overview", False),
    ]
