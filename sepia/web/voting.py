"""Pyramid voting: each assessor's votes on a topic's nuggets, cast once and alone.

An assessor has *submitted* a topic when they have a vote on every one of its nuggets. Until then
they see only their own votes; afterwards their votes are fixed (an organiser can reopen them) and
they may see the tally. Nuggets added later are voted on in a second round, the rest stays fixed.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from sepia.store.models import Nugget, Topic, Vote


@dataclass
class AssessorView:
    topic: Topic
    own: dict[int, bool] = field(default_factory=dict)  # nugget id -> vital, this assessor's votes

    @property
    def submitted(self) -> bool:
        return bool(self.topic.nuggets) and all(n.id in self.own for n in self.topic.nuggets)

    @property
    def status(self) -> str:
        if self.submitted:
            return "submitted"
        return "partial" if self.own else "open"


def assessor_view(topic: Topic, assessor: str) -> AssessorView:
    own = {n.id: v.vital for n in topic.nuggets for v in n.votes if v.assessor == assessor}
    return AssessorView(topic, own)


def votable_topics(session: Session) -> list[Topic]:
    """Completed topics that have nuggets: the ones assessors vote on."""
    return list(session.scalars(
        select(Topic).where(Topic.status == "completed", Topic.nuggets.any()).order_by(Topic.lang, Topic.id)))


def submit(topic: Topic, assessor: str, vital_ids: set[int]) -> int:
    """Record a vote on every nugget the assessor has not voted on yet (ticked = vital).
    Returns how many votes were cast; earlier votes are not changed."""
    cast = 0
    for nugget in topic.nuggets:
        if any(v.assessor == assessor for v in nugget.votes):
            continue
        nugget.votes.append(Vote(assessor=assessor, vital=nugget.id in vital_ids))
        cast += 1
    return cast


def reopen(topic: Topic, assessor: str) -> int:
    """Remove an assessor's votes on a topic so that they can vote again; returns how many."""
    removed = 0
    for nugget in topic.nuggets:
        for vote in [v for v in nugget.votes if v.assessor == assessor]:
            nugget.votes.remove(vote)
            removed += 1
    return removed


def assessors_of(topics: list[Topic]) -> list[str]:
    return sorted({v.assessor for t in topics for n in t.nuggets for v in n.votes})


def tally(nugget: Nugget) -> tuple[int, int]:
    """(vital votes, voters) of a nugget."""
    return sum(1 for v in nugget.votes if v.vital), len(nugget.votes)
