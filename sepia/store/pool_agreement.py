"""Agreement on a pool's overlap: Fleiss' kappa and Krippendorff's alpha of its assessors' own
judgments (not the adjudications), per language and answer type of the topics."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from sepia.scoring.adjudication import ADJUDICATED
from sepia.store import models as db
from sepia.store.disputes import nugget_marks, relevance_marks


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
