"""The BINARIZED suggestion: the nuggets a pool with `suggest` pre-marks on a CCLQA item, and how far
the assessors followed it."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from sepia.scoring.adjudication import ADJUDICATED
from sepia.store import models as db
from sepia.store.disputes import pool_entries

SUGGESTION_THETA = 0.5  # ACLIA's BINARIZED threshold: a match when the softmatch score is above it


class NuggetText(Protocol):
    """What a suggestion reads of a nugget: the stored one or the web tool's view of it."""
    @property
    def id(self) -> int: ...

    @property
    def text(self) -> str: ...


def suggestion(nuggets: Sequence[NuggetText], text: str) -> set[int]:
    """The nuggets BINARIZED matching finds in a response: what a pool with `suggest` pre-marks."""
    from sepia.matchers.softmatch import softmatch

    return {n.id for n in nuggets if softmatch(n.text, text) > SUGGESTION_THETA}


def suggestion_agreement(session: Session, pool: db.Pool) -> tuple[int, int]:
    """(judgments equal to the suggestion, judgments) over the pool's judged CCLQA items, one per item,
    nugget and assessor: how far the assessors followed what was pre-marked (a suggestion biases
    people: this measures it)."""
    entries = session.scalars(pool_entries(pool, None).options(
        selectinload(db.PoolEntry.assignments), selectinload(db.PoolEntry.members))).all()
    judged = {e.response_id: e for e in entries if any(a.judged_at is not None for a in e.assignments)}
    nuggets: dict[str, list[db.Nugget]] = {}
    for nugget in session.scalars(select(db.Nugget).where(db.Nugget.topic_id.in_({e.topic_id for e in entries}))):
        nuggets.setdefault(nugget.topic_id, []).append(nugget)
    suggested = {r: suggestion(nuggets.get(e.topic_id, []), e.members[0].text) for r, e in judged.items()}
    same = total = 0
    for response_id, nugget_id, assessor, match in session.execute(
            select(db.NuggetJudgment.response_id, db.NuggetJudgment.nugget_id, db.NuggetJudgment.assessor,
                   db.NuggetJudgment.match).where(db.NuggetJudgment.response_id.in_(list(judged)))):
        if assessor != ADJUDICATED:
            total += 1
            same += (match >= 1) == (nugget_id in suggested[response_id])
    return same, total
