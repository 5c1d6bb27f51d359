"""What the assessors' page reads of the store beside the quality report (`sepia.store.quality`)
and the pools (`sepia.services.pools`): how many control items of each kind exist."""
from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from sepia.store.models import ControlItem, Pool


def control_counts(session: Session) -> dict[str, int]:
    """How many control items of each kind there are."""
    return {kind: count for kind, count in session.execute(select(ControlItem.kind, func.count()).group_by(ControlItem.kind))}


def set_training(pool: Pool, training: bool) -> None:
    """Whether the pool's assessors see the expected answer after each control item; the caller commits."""
    pool.training = training
