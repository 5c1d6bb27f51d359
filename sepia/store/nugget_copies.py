"""A topic's nuggets are unique: two with one text (after NFKC and white-space folding) would both go
to voting, into the pyramid weights and into recall. New copies are refused where nuggets are added;
the copies a store holds from before are listed here and merged into the first of each, keeping
every vote and judgment."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session

from sepia.store import models as db
from sepia.vocab import nugget_key


@dataclass(frozen=True)
class Copies:
    """Nuggets of one topic with one text: the first (by position) is kept, the others merge into it."""
    topic_id: str
    keep: db.Nugget
    others: tuple[db.Nugget, ...]


def same_text(nuggets: Iterable[db.Nugget], text: str, but: int | None = None) -> db.Nugget | None:
    """The nugget among `nuggets` (other than the one with ID `but`) whose text is `text`'s copy."""
    key = nugget_key(text)
    return next((n for n in nuggets if n.id != but and nugget_key(n.text) == key), None)


def find_copies(session: Session, topic_ids: Iterable[str] | None = None) -> list[Copies]:
    """Every group of copies in the store (or among these topics' nuggets), by topic."""
    query = select(db.Nugget).order_by(db.Nugget.topic_id, db.Nugget.position, db.Nugget.id)
    if topic_ids is not None:
        query = query.where(db.Nugget.topic_id.in_(list(topic_ids)))
    groups: dict[tuple[str, str], list[db.Nugget]] = {}
    for nugget in session.scalars(query):
        groups.setdefault((nugget.topic_id, nugget_key(nugget.text)), []).append(nugget)
    return [Copies(topic_id, group[0], tuple(group[1:])) for (topic_id, _), group in groups.items() if len(group) > 1]


def merge(session: Session, copies: Copies) -> dict[str, int]:
    """Merge the copies into the kept nugget; the caller commits. An assessor who voted on several
    copies keeps one vote, vital when any was; a response judged against several copies by one
    assessor keeps the highest match. Answer texts, sources, control items' expected answers and
    plans' nuggets move to the kept one. Returns how many votes and judgments moved or were folded."""
    keep, others = copies.keep, copies.others
    ids = [keep.id, *(n.id for n in others)]
    moved = {"votes": 0, "judgments": 0}
    votes = {v.assessor: v for v in keep.votes}
    for vote in session.scalars(select(db.Vote).where(db.Vote.nugget_id.in_(ids[1:])).order_by(db.Vote.id)):
        kept = votes.get(vote.assessor)
        if kept is None:
            vote.nugget_id = keep.id
            votes[vote.assessor] = vote
        else:
            kept.vital = kept.vital or vote.vital
            session.delete(vote)
        moved["votes"] += 1
    judged: dict[tuple[int, str], db.NuggetJudgment] = {}
    for row in session.scalars(select(db.NuggetJudgment).where(db.NuggetJudgment.nugget_id.in_(ids))
                               .order_by(db.NuggetJudgment.nugget_id != keep.id, db.NuggetJudgment.id)):
        kept_row = judged.setdefault((row.response_id, row.assessor), row)
        if row.nugget_id == keep.id:
            continue
        if kept_row is row:
            row.nugget_id = keep.id
        else:
            kept_row.match = max(kept_row.match, row.match)
            session.delete(row)
        moved["judgments"] += 1
    _move_links(session, keep, others)
    session.flush()  # the votes and judgments point at the kept nugget before the copies go
    for nugget in others:
        session.expire(nugget)  # its loaded votes are the kept nugget's now: not deleted with it
        session.delete(nugget)
    session.flush()
    return moved


def _move_links(session: Session, keep: db.Nugget, others: tuple[db.Nugget, ...]) -> None:
    """Answer texts, sources, control items and plans' nuggets of the copies, onto the kept nugget."""
    for nugget in others:
        keep.answer_texts += [a for a in nugget.answer_texts if a not in keep.answer_texts]
        known = {s.docid for s in keep.sources}
        keep.sources += [db.NuggetSource(docid=s.docid, position=len(keep.sources) + i)
                         for i, s in enumerate(s for s in nugget.sources if s.docid not in known)]
    gone = {str(n.id) for n in others}
    for control in session.scalars(select(db.ControlItem).where(db.ControlItem.topic_id == keep.topic_id,
                                                                db.ControlItem.kind == "cclqa")):
        expected = control.expected.split()
        if gone & set(expected):
            control.expected = " ".join(dict.fromkeys(str(keep.id) if n in gone else n for n in expected))
    labels = {n.label for n in others}
    planned = session.scalars(select(db.PlanNugget).where(db.PlanNugget.topic_id == keep.topic_id,
                                                          db.PlanNugget.label.in_(labels | {keep.label}))).all()
    has_kept = {(p.plan_id, p.run_id) for p in planned if p.label == keep.label}   # per plan and response
    for row in planned:
        if row.label in labels:
            if (row.plan_id, row.run_id) in has_kept:
                session.delete(row)
            else:
                row.label = keep.label
                has_kept.add((row.plan_id, row.run_id))


def merge_all(session: Session, topic_ids: Iterable[str] | None = None) -> list[tuple[Copies, dict[str, int]]]:
    """Merge every group of copies (of these topics); the caller commits."""
    return [(copies, merge(session, copies)) for copies in find_copies(session, topic_ids)]
