"""Disputes: the items of a pool that several assessors judged differently, their marks side by side,
and the official judgment an organiser decides for one (under ADJUDICATED; the assessors' own stay)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from sepia.scoring.adjudication import ADJUDICATED
from sepia.store import models as db
from sepia.store.judging import write_nugget_matches, write_relevance


@dataclass
class Dispute:
    """An item judged by several assessors who did not agree: their marks side by side."""
    entry: db.PoolEntry
    marks: Mapping[str, dict[int, float] | int]  # assessor -> {nugget: match} (CCLQA) or level (IR4QA)
    disagreements: int  # nuggets marked differently (CCLQA), or the spread of levels (IR4QA)
    decided: dict[int, float] | int | None  # the adjudicated judgment, if any

    def proposal(self) -> dict[int, bool | None]:
        """What the adjudication form offers for a CCLQA item: the decision, or else the majority of
        the assessors; a tie (as many saw a match as did not) is None: no default, the organiser
        chooses, so that one careless assessor and a quick "Decide" cannot make a match official."""
        if isinstance(self.decided, dict):
            return {n: m >= 1 for n, m in self.decided.items()}
        ties = self.ties()
        return {n: None if n in ties else 2 * yes > len(self.marks) for n, yes in self._matches().items()}

    def ties(self) -> set[int]:
        """The nuggets the assessors split on half and half (a CCLQA item)."""
        return {n for n, yes in self._matches().items() if 2 * yes == len(self.marks)}

    def said(self, nugget_id: int) -> str:
        """Which assessor said what of one nugget, e.g. "as1 match, as2 partial, as3 no"."""
        words = {1.0: "match", 0.5: "partial"}
        return ", ".join(f"{assessor} {words.get(m.get(nugget_id, 0.0), 'no')}"
                         for assessor, m in self.marks.items() if isinstance(m, dict))

    def _matches(self) -> dict[int, int]:
        """Nugget -> how many assessors saw a match (a partial match counts as none, as the human
        matcher reads it)."""
        marks = [m for m in self.marks.values() if isinstance(m, dict)]
        return {n: sum(m.get(n, 0.0) >= 1 for m in marks) for n in {n for m in marks for n in m}}


    def decision_token(self) -> str:
        """The decision as the adjudication form showed it ("" for none), sent back with the form so
        that a decision another organiser made meanwhile is told, not overwritten."""
        if isinstance(self.decided, dict):
            return ",".join(f"{n}:{m:g}" for n, m in sorted(self.decided.items()))
        return "" if self.decided is None else str(self.decided)


def pool_entries(pool: db.Pool, entry_id: int | None):
    """The pool's entries (not the control items mixed in), or only the one with this ID."""
    chosen = select(db.PoolEntry).where(db.PoolEntry.pool_id == pool.id, db.PoolEntry.control_id.is_(None))
    return chosen if entry_id is None else chosen.where(db.PoolEntry.id == entry_id)


def _shared(session: Session, pool: db.Pool, entry_id: int | None) -> list[db.PoolEntry]:
    """The pool's items (or the one entry) that more than one assessor judged."""
    entries = session.scalars(pool_entries(pool, entry_id).options(selectinload(db.PoolEntry.assignments))).all()
    return [e for e in entries if sum(a.judged_at is not None for a in e.assignments) > 1]


# Every assessor's judgment of every item of a pool (or of the one entry) that more than one assessor
# judged, the adjudication included (under ADJUDICATED): entry ID -> assessor -> their marks.

def nugget_marks(session: Session, pool: db.Pool, entry_id: int | None = None) -> dict[int, dict[str, dict[int, float]]]:
    """A CCLQA pool's: the marks are {nugget ID: match}."""
    shared = _shared(session, pool, entry_id)
    marks: dict[int, dict[str, dict[int, float]]] = {e.id: {} for e in shared}
    by_response = {e.response_id: e.id for e in shared}
    for response_id, assessor, nugget_id, match in session.execute(
            select(db.NuggetJudgment.response_id, db.NuggetJudgment.assessor, db.NuggetJudgment.nugget_id,
                   db.NuggetJudgment.match).where(db.NuggetJudgment.response_id.in_(list(by_response)))):
        marks[by_response[response_id]].setdefault(assessor, {})[nugget_id] = match
    return marks


def relevance_marks(session: Session, pool: db.Pool, entry_id: int | None = None) -> dict[int, dict[str, int]]:
    """An IR4QA pool's: the marks are a relevance level."""
    shared = _shared(session, pool, entry_id)
    marks: dict[int, dict[str, int]] = {e.id: {} for e in shared}
    by_doc = {(e.topic_id, e.docid): e.id for e in shared}
    for topic_id, docid, assessor, level in session.execute(
            select(db.RelevanceJudgment.topic_id, db.RelevanceJudgment.docid, db.RelevanceJudgment.assessor,
                   db.RelevanceJudgment.level).where(db.RelevanceJudgment.topic_id.in_({t for t, _ in by_doc}))):
        if (topic_id, docid) in by_doc:
            marks[by_doc[topic_id, docid]][assessor] = level
    return marks


def disputes(session: Session, pool: db.Pool, entry_id: int | None = None) -> list[Dispute]:
    """The pool's disputed items (or the one entry, if disputed), most disputed first (adjudicated
    ones included, marked so)."""
    entries = {e.id: e for e in session.scalars(pool_entries(pool, entry_id)
                                                .options(selectinload(db.PoolEntry.members)))}
    found = []
    if pool.kind == "cclqa":
        for item, by_assessor in nugget_marks(session, pool, entry_id).items():
            decided = by_assessor.pop(ADJUDICATED, None)
            nuggets = {n for m in by_assessor.values() for n in m}
            spread = sum(len({m.get(n, 0.0) for m in by_assessor.values()}) > 1 for n in nuggets)
            found.append(Dispute(entries[item], by_assessor, spread, decided))
    else:
        for item, levels in relevance_marks(session, pool, entry_id).items():
            adjudicated = levels.pop(ADJUDICATED, None)
            spread = max(levels.values()) - min(levels.values()) if levels else 0
            found.append(Dispute(entries[item], levels, spread, adjudicated))
    return sorted((d for d in found if d.disagreements), key=lambda d: (-d.disagreements, d.entry.topic_id, d.entry.id))


def adjudicate(session: Session, entry: db.PoolEntry, nugget_ids: Sequence[int] | None = None,
               matched: set[int] | None = None, level: int | None = None) -> None:
    """The official judgment of a disputed item; the assessors' own stay as they are."""
    if level is None:
        write_nugget_matches(session, entry, ADJUDICATED, nugget_ids or [], matched or set())
    else:
        write_relevance(session, entry, ADJUDICATED, level)
