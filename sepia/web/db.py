"""The request's database session: one per request, one transaction per write (commit or nothing)."""
from __future__ import annotations

from typing import TypeVar

from flask import abort, current_app, g
from sqlalchemy.orm import Session

from sepia.store.db import Store

T = TypeVar("T")


def store() -> Store:
    return current_app.extensions["sepia_store"]


def db() -> Session:
    """The session of this request; whatever a view does not commit is rolled back at its end."""
    if "db_session" not in g:
        g.db_session = store().sessions()
    return g.db_session


def found_or_404(found: T | None, what: str) -> T:
    """What a service found, or a 404 page saying there is no such `what`."""
    if found is None:
        abort(404, f"No such {what}.")
    return found


def get_or_404(model, key, what: str):
    """The row of `model` with that primary key, or a 404 page saying there is no such `what`: for
    sepia/web/judging.py, not yet on services (docs/architecture.md); the other views look rows up
    through a service and use `found_or_404`."""
    row = db().get(model, key)
    if row is None:
        abort(404, f"No such {what}.")
    return row
