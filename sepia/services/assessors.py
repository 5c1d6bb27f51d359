"""What the assessors' page reads of the store beside the quality report (`sepia.store.quality`):
the pools to mix control items into, and how many control items of each kind exist."""
from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from sepia.store.models import ControlItem, Pool


def pools_by_age(session: Session) -> list[Pool]:
    return list(session.scalars(select(Pool).order_by(Pool.created_at)))


def pool_by_id(session: Session, pool_id: int) -> Pool | None:
    return session.get(Pool, pool_id)


def control_counts(session: Session) -> dict[str, int]:
    """How many control items of each kind there are."""
    return {kind: count for kind, count in session.execute(select(ControlItem.kind, func.count()).group_by(ControlItem.kind))}


def set_training(pool: Pool, training: bool) -> None:
    """Whether the pool's assessors see the expected answer after each control item; the caller commits."""
    pool.training = training
