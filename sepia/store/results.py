"""Scores kept in the campaign store (evaluation_result): saving a run's scores replaces those it
had under the same settings, so scoring again never piles up duplicates."""
from __future__ import annotations

import json
from typing import Sequence

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from sepia.ir4qa.evaluate import MEASURES, IRRunScore
from sepia.scoring.evaluate import RunScore
from sepia.store import io
from sepia.store import models as db


def settings_key(settings: dict) -> str:
    """The settings as the store keeps them: JSON with sorted keys (as `io.save_scores` writes)."""
    return json.dumps(settings, sort_keys=True)


def forget_scores(session: Session, kind: str, run_ids: Sequence[str], settings: dict) -> int:
    """Delete the scores the runs of that kind have under exactly these settings; how many rows."""
    runs = select(db.Run.id).where(db.Run.kind == kind, db.Run.run_id.in_(list(run_ids)))
    result = session.execute(delete(db.EvaluationResult).where(
        db.EvaluationResult.run_id.in_(runs), db.EvaluationResult.settings == settings_key(settings)))
    return result.rowcount


def replace_cclqa_scores(session: Session, scores: Sequence[RunScore], settings: dict) -> int:
    """Keep the F-scores of CCLQA runs (one row per run and topic, plus the run's mean)."""
    forget_scores(session, "cclqa", [s.run_id for s in scores], settings)
    return io.save_scores(session, scores, settings)


def replace_ir4qa_scores(session: Session, scores: Sequence[IRRunScore], settings: dict) -> int:
    """Keep AP, Q and nDCG of IR4QA runs: per run and topic, plus the means (topic NULL)."""
    forget_scores(session, "ir4qa", [s.run_id for s in scores], settings)
    runs = dict(session.execute(select(db.Run.run_id, db.Run.id).where(
        db.Run.kind == "ir4qa", db.Run.run_id.in_([s.run_id for s in scores]))).all())
    key = settings_key(settings)
    rows = []
    for score in scores:
        common = {"run_id": runs[score.run_id], "settings": key}
        if score.topics:  # a run without a scored topic has no mean, not 0
            rows += [db.EvaluationResult(**common, measure=m, value=score.means[m]) for m in MEASURES]
        rows += [db.EvaluationResult(**common, measure=m, topic_id=topic_id, value=getattr(s, m.lower()))
                 for topic_id, s in score.topics.items() for m in MEASURES]
    session.add_all(rows)
    session.flush()
    return len(rows)
