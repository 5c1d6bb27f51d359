"""Pyramid voting: each assessor's votes on a topic's nuggets, cast once and alone.

An assessor has *submitted* a topic when they have a vote on every one of its nuggets. Until then
they see only their own votes; afterwards their votes are fixed (an organiser can reopen them) and
they may see the tally. Nuggets added later are voted on in a second round, the rest stays fixed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence, TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from sepia.store.models import Nugget, Topic, Vote
from sepia.store.topic_view import NuggetLike, TopicLike
from sepia.vocab import TOPIC_COMPLETED


@dataclass
class AssessorView:
    topic: TopicLike
    own: dict[int, bool] = field(default_factory=dict)  # nugget id -> vital, this assessor's votes

    @property
    def submitted(self) -> bool:
        return bool(self.topic.nuggets) and all(n.id in self.own for n in self.topic.nuggets)

    @property
    def status(self) -> str:
        if self.submitted:
            return "submitted"
        return "partial" if self.own else "open"


def assessor_view(topic: TopicLike, assessor: str) -> AssessorView:
    own = {n.id: v.vital for n in topic.nuggets for v in n.votes if v.assessor == assessor}
    return AssessorView(topic, own)


def votable_topics(session: Session, languages: list[str] | None = None) -> list[Topic]:
    """Completed topics that have nuggets, not retired: the ones assessors vote on (of these
    languages only, when an assessor works in some)."""
    query = select(Topic).where(Topic.status == TOPIC_COMPLETED, Topic.retired.is_(False), Topic.nuggets.any())
    if languages:
        query = query.where(Topic.lang.in_(languages))
    return list(session.scalars(
        query.order_by(Topic.lang, Topic.id)
        .options(selectinload(Topic.texts), selectinload(Topic.nuggets).selectinload(Nugget.votes))))


class NuggetsChanged(ValueError):
    """The nuggets open to an assessor are no longer the ones their form showed."""

    def __init__(self, added: list[Nugget], removed: int, edited: list[Nugget]):
        self.added, self.removed, self.edited = added, removed, edited
        parts = [f"{len(added)} added ({', '.join(n.label for n in added)})" if added else "",
                 f"{removed} removed" if removed else "",
                 f"{len(edited)} edited ({', '.join(n.label for n in edited)})" if edited else ""]
        super().__init__(", ".join(p for p in parts if p))


N = TypeVar("N", bound=NuggetLike)


def open_nuggets(nuggets: Sequence[N], assessor: str) -> list[N]:
    """Of a topic's nuggets, those the assessor has not voted on yet: what their voting form shows."""
    return [n for n in nuggets if not any(v.assessor == assessor for v in n.votes)]


def form_stamp(nuggets: Sequence[NuggetLike]) -> str:
    """The IDs and edit versions of the nuggets a form shows, as the form carries them back."""
    return " ".join(f"{n.id}:{n.version}" for n in sorted(nuggets, key=lambda n: n.id))


def submit(topic: Topic, assessor: str, stamp: str, vital_ids: set[int]) -> int:
    """Record the votes of a submitted form: one on each nugget it showed (ticked = vital).

    `stamp` is the form_stamp() of the nuggets the form showed. When the open nuggets are no longer
    those (one added, removed or edited meanwhile), nothing is recorded: NuggetsChanged says what
    changed, so the assessor sees the new list instead of a vote they never cast. Returns how many
    votes were cast, 0 when this form's votes are in already (a form sent twice)."""
    nuggets = open_nuggets(topic.nuggets, assessor)
    if not nuggets and stamp:
        return 0
    if stamp != form_stamp(nuggets):
        shown = dict(pair.split(":", 1) for pair in stamp.split() if ":" in pair)
        added = [n for n in nuggets if str(n.id) not in shown]
        edited = [n for n in nuggets if shown.get(str(n.id), str(n.version)) != str(n.version)]
        removed = len(set(shown) - {str(n.id) for n in nuggets})
        raise NuggetsChanged(added, removed, edited)
    for nugget in nuggets:
        nugget.votes.append(Vote(assessor=assessor, vital=nugget.id in vital_ids))
    return len(nuggets)


def reopen(topic: Topic, assessor: str) -> int:
    """Remove an assessor's votes on a topic so that they can vote again; returns how many."""
    removed = 0
    for nugget in topic.nuggets:
        for vote in [v for v in nugget.votes if v.assessor == assessor]:
            nugget.votes.remove(vote)
            removed += 1
    return removed


def assessors_of(topics: Sequence[TopicLike]) -> list[str]:
    return sorted({v.assessor for t in topics for n in t.nuggets for v in n.votes})


def tally(nugget: NuggetLike) -> tuple[int, int]:
    """(vital votes, voters) of a nugget."""
    return sum(1 for v in nugget.votes if v.vital), len(nugget.votes)
