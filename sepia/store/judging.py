"""Assessors' queues and what a judgment writes: a CCLQA item's nugget matches go to every response
the item stands for (nugget_judgment), an IR4QA item's level to its document (relevance_judgment).
Saving again replaces the assessor's earlier judgment of that item; nothing else is touched."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from sqlalchemy import bindparam, delete, func, select
from sqlalchemy.orm import Session, selectinload

from sepia.scoring.adjudication import ADJUDICATED
from sepia.store import models as db


@dataclass
class TopicProgress:
    pool_id: int
    pool: str
    kind: str
    topic_id: str
    assessor: str
    total: int
    judged: int
    skipped: int

    @property
    def done(self) -> bool:
        return self.judged == self.total


def progress(session: Session, assessor: str | None = None) -> list[TopicProgress]:
    """Items assigned, judged and skipped per pool, topic and assessor (one assessor's, or everyone's)."""
    query = (select(db.Pool.id, db.Pool.name, db.Pool.kind, db.PoolEntry.topic_id, db.Assignment.assessor,
                    func.count(), func.count(db.Assignment.judged_at),
                    func.sum(func.cast(db.Assignment.skipped, db.Integer)))
             .join(db.PoolEntry, db.PoolEntry.id == db.Assignment.entry_id).join(db.Pool)
             .group_by(db.Pool.id, db.Pool.name, db.Pool.kind, db.PoolEntry.topic_id, db.Assignment.assessor)
             .order_by(db.Pool.name, db.PoolEntry.topic_id, db.Assignment.assessor))
    if assessor is not None:
        query = query.where(db.Assignment.assessor == assessor)
    return [TopicProgress(pool_id, name, kind, topic_id, who, total, judged, int(skipped or 0))
            for pool_id, name, kind, topic_id, who, total, judged, skipped in session.execute(query)]


# Built once: building the statement costs more than running it (tools/bench_web.py).
_nugget_judgment = db.NuggetJudgment.__table__
NUGGET_MATCHES = select(_nugget_judgment.c.nugget_id, _nugget_judgment.c.match).where(
    _nugget_judgment.c.response_id == bindparam("response_id"), _nugget_judgment.c.assessor == bindparam("assessor"))


def queue_item(session: Session, assignment_id: int, responses: bool = True) -> db.Assignment:
    """One item of a queue with its entry and, with `responses` (a CCLQA item), the entry's responses
    and their DOCIDs, to judge."""
    entry = selectinload(db.Assignment.entry)
    return session.get_one(db.Assignment, assignment_id, options=[
        entry.selectinload(db.PoolEntry.members).selectinload(db.Response.docids) if responses else entry])


def next_open(queue: list, after: int | None = None):
    """The first item neither judged nor skipped (after the one at index `after`, wrapping round)."""
    start = 0 if after is None else after + 1
    ordered = queue[start:] + queue[:start]
    return next((a for a in ordered if a.judged_at is None and not a.skipped), None)


def nugget_matches(session: Session, response_id: int | None, assessor: str) -> dict[int, float]:
    """The assessor's current judgment of a CCLQA item (its entry's response): nugget ID -> match."""
    return dict(session.connection().execute(NUGGET_MATCHES, {"response_id": response_id, "assessor": assessor}).all())


def save_nugget_judgment(session: Session, assignment: db.Assignment, nugget_ids: Sequence[int],
                         matched: set[int], comment: str = "") -> None:
    """The assessor's judgment of a CCLQA item; the caller commits."""
    write_nugget_matches(session, assignment.entry, assignment.assessor, nugget_ids, matched)
    mark_judged(assignment, comment)


def write_nugget_matches(session: Session, entry: db.PoolEntry, assessor: str, nugget_ids: Sequence[int],
                         matched: set[int]) -> None:
    """Match (1) the nuggets in `matched`, not (0) the other nuggets of the topic, for every response
    the item stands for, replacing what this assessor said of them before."""
    responses = [r.id for r in entry.members]
    session.execute(delete(db.NuggetJudgment).where(
        db.NuggetJudgment.response_id.in_(responses), db.NuggetJudgment.assessor == assessor)
        .execution_options(synchronize_session=False))
    session.add_all(db.NuggetJudgment(response_id=r, nugget_id=n, assessor=assessor,
                                      match=1.0 if n in matched else 0.0) for r in responses for n in nugget_ids)


def save_relevance(session: Session, assignment: db.Assignment, level: int, comment: str = "") -> None:
    """The assessor's judgment of an IR4QA item; the caller commits."""
    write_relevance(session, assignment.entry, assignment.assessor, level)
    mark_judged(assignment, comment)


def write_relevance(session: Session, entry: db.PoolEntry, assessor: str, level: int) -> None:
    session.execute(delete(db.RelevanceJudgment).where(
        db.RelevanceJudgment.topic_id == entry.topic_id, db.RelevanceJudgment.docid == entry.docid,
        db.RelevanceJudgment.assessor == assessor).execution_options(synchronize_session=False))
    session.add(db.RelevanceJudgment(topic_id=entry.topic_id, docid=entry.docid, assessor=assessor, level=level))


def skip(assignment: db.Assignment, comment: str = "") -> None:
    assignment.skipped = True
    assignment.comment = comment


def mark_judged(assignment: db.Assignment, comment: str) -> None:
    assignment.judged_at = db.utcnow()
    assignment.skipped = False
    assignment.comment = comment


SECONDS_KEPT = 3600.0  # longer on one item is a screen left open, not judging time


def add_seconds(assignment: db.Assignment, seconds: float | None) -> None:
    """Add the seconds the screen timed for this save to the item's (nothing if untimed or absurd)."""
    if seconds is not None and 0 <= seconds <= SECONDS_KEPT:
        assignment.seconds = (assignment.seconds or 0.0) + seconds


# ---------------------------------------------------------------- disputes and agreement

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


def _entries(pool: db.Pool, entry_id: int | None):
    """The pool's entries (not the control items mixed in), or only the one with this ID."""
    chosen = select(db.PoolEntry).where(db.PoolEntry.pool_id == pool.id, db.PoolEntry.control_id.is_(None))
    return chosen if entry_id is None else chosen.where(db.PoolEntry.id == entry_id)


def _shared(session: Session, pool: db.Pool, entry_id: int | None) -> list[db.PoolEntry]:
    """The pool's items (or the one entry) that more than one assessor judged."""
    entries = session.scalars(_entries(pool, entry_id).options(selectinload(db.PoolEntry.assignments))).all()
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
    entries = {e.id: e for e in session.scalars(_entries(pool, entry_id).options(selectinload(db.PoolEntry.members)))}
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


@dataclass
class AgreementRow:
    lang: str
    answer_type: str
    units: int  # CCLQA: item x nugget pairs; IR4QA: items; each judged by two or more assessors
    kappa: float  # Fleiss
    alpha: float  # Krippendorff: nominal for nugget matches, ordinal for relevance levels
    # CCLQA: the categories above are the values judged (support 1, partial 0.5, not 0); these count
    # a partial support as a yes (1 and 0.5 against 0). NaN for relevance.
    kappa_yes_no: float = float("nan")
    alpha_yes_no: float = float("nan")


def agreement(session: Session, pool: db.Pool) -> list[AgreementRow]:
    """Agreement on the pool's overlap (its assessors' own judgments, not the adjudications), per
    language and answer type of the topics."""
    import numpy as np

    from sepia.metaeval.agreement import fleiss_kappa, krippendorff_alpha_counts

    rated: dict[int, list[list[float]]] = {}  # entry ID -> its units' ratings
    if pool.kind == "cclqa":
        for entry_id, by_assessor in nugget_marks(session, pool).items():
            judged = [m for a, m in by_assessor.items() if a != ADJUDICATED]
            rated[entry_id] = [[m.get(nugget, 0.0) for m in judged] for nugget in {n for m in judged for n in m}]
    else:
        for entry_id, levels in relevance_marks(session, pool).items():
            rated[entry_id] = [[level for a, level in levels.items() if a != ADJUDICATED]]
    topics = dict(session.execute(select(db.PoolEntry.id, db.PoolEntry.topic_id).where(
        db.PoolEntry.id.in_(list(rated)))).all())
    kinds = {t: (lang, answer_type or "OTHER") for t, lang, answer_type in session.execute(
        select(db.Topic.id, db.Topic.lang, db.Topic.answer_type).where(db.Topic.id.in_(set(topics.values()))))}
    units: dict[tuple[str, str], list[list[float]]] = {}
    for entry_id, entry_units in rated.items():
        units.setdefault(kinds.get(topics[entry_id], ("?", "OTHER")), []).extend(entry_units)
    rows = []
    for (lang, answer_type), ratings in sorted(units.items()):
        values = sorted({v for unit in ratings for v in unit})
        counts = np.array([[unit.count(v) for v in values] for unit in ratings], float)
        level = "nominal" if pool.kind == "cclqa" else "ordinal"
        row = AgreementRow(lang, answer_type, len(ratings), fleiss_kappa(counts),
                           krippendorff_alpha_counts(counts, np.array(values, float), level))
        if pool.kind == "cclqa":
            yes_no = np.array([[sum(v == 0 for v in unit), sum(v > 0 for v in unit)] for unit in ratings], float)
            row.kappa_yes_no = fleiss_kappa(yes_no)
            row.alpha_yes_no = krippendorff_alpha_counts(yes_no, np.array([0.0, 1.0]), "nominal")
        rows.append(row)
    return rows


# ---------------------------------------------------------------- the BINARIZED suggestion

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
    entries = session.scalars(_entries(pool, None).options(
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
