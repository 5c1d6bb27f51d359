"""Ending a web request's write: a write that lost a race to another request's becomes Conflict,
so that the pages can say so without knowing the database's exceptions."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError


class Conflict(Exception):
    """Another request wrote the same rows first: a unique key taken (the same form sent twice, a
    label used meanwhile) or a row's version moved on since it was read (optimistic locking)."""


@contextmanager
def conflicts(session: Session) -> Iterator[None]:
    """Within it, a write that meets another request's rolls the session back and raises Conflict
    (whether the database refuses it at a flush or at the commit)."""
    try:
        yield
    except (IntegrityError, StaleDataError) as error:
        session.rollback()
        raise Conflict(str(error)) from error


def commit(session: Session) -> None:
    """Commit; on a conflict roll back and raise Conflict."""
    with conflicts(session):
        session.commit()
