"""What the judging forms are checked against: a topic's nugget IDs (those a judgment may tick) and
labels (those a refusal names)."""
from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import select
from sqlalchemy.orm import Session

from sepia.store.models import Nugget


def topic_nugget_ids(session: Session, topic_id: str, labels: Collection[str] | None = None) -> list[int]:
    """The topic's nugget IDs in their order (only those with `labels`, if given)."""
    query = select(Nugget.id).where(Nugget.topic_id == topic_id).order_by(Nugget.position)
    if labels is not None:
        query = query.where(Nugget.label.in_(labels))
    return list(session.scalars(query))


def nugget_labels(session: Session, nugget_ids: Collection[int]) -> dict[int, str]:
    return dict(session.execute(select(Nugget.id, Nugget.label).where(Nugget.id.in_(nugget_ids))).all())
