"""IR4QA relevance judgments (qrels) in the campaign store: import a qrels file, read the qrels
back, each document's level combined over its assessors as `sepia.ir4qa.qrels.combine` does."""
from __future__ import annotations

from typing import Iterable

from sqlalchemy import insert, select, update
from sqlalchemy.orm import Session

from sepia import vocab
from sepia.ir4qa.qrels import Qrels, RelevanceRow, combine
from sepia.scoring.adjudication import official
from sepia.store import models as db
from sepia.store.errors import ImportRefused

DEFAULT_ASSESSOR = "qrels"  # who judged the rows of a three-column qrels file, unless told
CHUNK = 5000  # topic IDs per IN (...) list


def import_qrels(session: Session, rows: Iterable[RelevanceRow], assessor: str = DEFAULT_ASSESSOR,
                 replace: bool = False) -> int:
    """Store the rows (those without an assessor as `assessor`'s). A document the same assessor has
    already judged for the topic is refused, every one named, unless `replace`, which sets its new
    level. Nothing is written when anything is refused."""
    rows = [r if r.assessor else RelevanceRow(r.topic_id, r.docid, r.level, assessor) for r in rows]
    topics = sorted({r.topic_id for r in rows})
    existing: dict[tuple[str, str, str | None], int] = {}  # (topic, DOCID, assessor) -> row id
    for i in range(0, len(topics), CHUNK):
        existing.update(((t, d, a), pk) for pk, t, d, a in session.execute(
            select(db.RelevanceJudgment.id, db.RelevanceJudgment.topic_id, db.RelevanceJudgment.docid,
                   db.RelevanceJudgment.assessor).where(db.RelevanceJudgment.topic_id.in_(topics[i:i + CHUNK]))))
    clashes = [r for r in rows if (r.topic_id, r.docid, r.assessor) in existing]
    if clashes and not replace:
        shown = [f"document {r.docid} of topic {r.topic_id} is already judged by {r.assessor} "
                 "(use replace to overwrite)" for r in clashes[:20]]
        more = [f"... and {len(clashes) - 20} more"] if len(clashes) > 20 else []
        raise ImportRefused(shown + more)
    if clashes:
        session.execute(update(db.RelevanceJudgment), [
            {"id": existing[(r.topic_id, r.docid, r.assessor)], "level": r.level} for r in clashes])
    new = [{"topic_id": r.topic_id, "docid": r.docid, "assessor": r.assessor, "level": r.level}
           for r in rows if (r.topic_id, r.docid, r.assessor) not in existing]
    if new:
        session.execute(insert(db.RelevanceJudgment), new)
    session.flush()
    return len(rows)


def relevance_rows(session: Session, lang: str | None = None) -> list[RelevanceRow]:
    """Every stored judgment (of one target language's topics), in the order they were stored."""
    query = select(db.RelevanceJudgment.topic_id, db.RelevanceJudgment.docid, db.RelevanceJudgment.level,
                   db.RelevanceJudgment.assessor).order_by(db.RelevanceJudgment.id)
    return [RelevanceRow(*row) for row in session.execute(query)
            if lang is None or vocab.topic_language(row[0]) == lang]


def load_qrels(session: Session, lang: str | None = None) -> Qrels:
    """The qrels to score with: one level per topic and document, the adjudicated one where an
    organiser decided, else combined over the assessors."""
    return combine(official_rows(session, lang))


def official_rows(session: Session, lang: str | None = None) -> list[RelevanceRow]:
    return official(relevance_rows(session, lang), key=lambda r: (r.topic_id, r.docid))
