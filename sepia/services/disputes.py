"""A pool's disputes as the organisers' page shows and decides them: the items assessors judged
differently with their topics, the pool's agreement and how far a suggestion was followed; one
item's official judgment written. The callers commit."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from sepia.store import controls, disputes, pool_agreement, suggestion
from sepia.store.db import hold
from sepia.store.models import Pool, PoolEntry, Topic


@dataclass
class DisputesPage:
    disputes: list[disputes.Dispute]
    topics: dict[str, Topic]                 # the disputed items' topics, with their nuggets
    agreement: list[pool_agreement.AgreementRow]
    followed: tuple[int, int] | None         # `suggestion.suggestion_agreement`, for a pool that suggests
    by_assessor: Counter                     # assessor -> disputed items they judged


def disputes_page(session: Session, pool: Pool) -> DisputesPage:
    found = disputes.disputes(session, pool)
    topics = {t.id: t for t in session.scalars(select(Topic).where(Topic.id.in_({d.entry.topic_id for d in found}))
                                               .options(selectinload(Topic.nuggets)))}
    followed = suggestion.suggestion_agreement(session, pool) if pool.suggest else None
    by_assessor = Counter(a for d in found for a in d.marks)
    return DisputesPage(found, topics, pool_agreement.agreement(session, pool), followed, by_assessor)


def held_dispute(session: Session, pool: Pool, entry_id: int) -> disputes.Dispute | None:
    """The item's dispute (None: not disputed), read after holding the item, so that a second
    organiser deciding it waits, then reads this one's decision."""
    hold(session, PoolEntry.topic_id, PoolEntry.id == entry_id)
    disputed = disputes.disputes(session, pool, entry_id)  # this item alone: not the whole pool's
    return disputed[0] if disputed else None


def decide(session: Session, entry: PoolEntry, *, nugget_ids: Sequence[int] | None = None,
           matched: set[int] | None = None, level: int | None = None, control_reason: str | None = None,
           organiser: str | None = None) -> None:
    """The item's official judgment (a CCLQA item's nugget matches or an IR4QA item's level) and, with a
    `control_reason`, the item made a control item expecting it. `ImportRefused`: the caller rolls back."""
    disputes.adjudicate(session, entry, nugget_ids, matched, level)
    if control_reason is not None:
        session.flush()
        controls.mark_control(session, entry, control_reason, organiser)
