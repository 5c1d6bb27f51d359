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

