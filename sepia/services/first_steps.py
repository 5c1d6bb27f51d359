"""An organiser's first steps on an empty store, each ticked once the store shows it done, so that
the first page after `sepia user add ... --role organiser` says what to do next."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import exists, func, select
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
    # EXISTS, not a count: a collection may hold millions of documents
    users, documents, topics, windows, runs, pools = session.execute(select(
        select(func.count()).select_from(User).scalar_subquery(),
        *(exists().select_from(model) for model in (Document, Topic, TaskWindow, Run, Pool)))).one()
    if topics:
        return None
    return [
        Step("Add the collections", "load and index them on the server", None, documents,
             "sepia corpus add LANG FILE… && sepia index build"),
        Step("Create the accounts", "topic developers, assessors and participants (each participant in a team)",
             "admin.users", users > 1),
        Step("Develop or import topics", "topic developers write them beside the search, or import them",
             "topics.index", topics, "sepia import TOPICS.xml"),
        Step("Schedule the tasks", "topic sets with their submission windows and release moments",
             "schedule.index", windows),
        Step("Collect runs", "teams upload in the browser or with sepia submit, or organisers import them", None,
             runs, "sepia import RUN.xml"),
        Step("Pool and judge", "build pools from the runs and share them out to the assessors", "judging.pools",
             pools),
        Step("Score and release", "score the stored runs; teams see them at each release", "results.overview", False),
    ]
