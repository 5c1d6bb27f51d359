"""Scores kept in the campaign store (evaluation_result), under the identity of their settings:
saving a run's scores replaces those it had under the same settings, so scoring again never piles
up duplicates."""
from __future__ import annotations

import hashlib
import json
from typing import Sequence, cast

from sqlalchemy import CursorResult, delete, select
from sqlalchemy.orm import Session

from sepia.ir4qa.evaluate import IRRunScore
from sepia.qa.evaluate import QARunScore
from sepia.scoring.evaluate import RunScore, Settings
from sepia.store import models as db


def settings_key(values: dict) -> str:
    """The stable identity of scoring settings, which the store keeps and finds scores by: the SHA-256
    (hex) of their values as canonical JSON (keys sorted, every number a float so that 3 and 3.0 are
    one value, no spaces). `Settings.identity()` gives a CCLQA scoring's values; IR4QA's and QA's
    settings are values already. Migration 0019 computes the same for the scores kept before."""
    canonical = json.dumps(_canonical(values), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _canonical(value):
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return value


def shown(settings: dict) -> str:
    """The settings as the store keeps them to show: JSON with sorted keys."""
    return json.dumps(settings, sort_keys=True)


def forget_scores(session: Session, kind: str, run_ids: Sequence[str], key: str) -> int:
    """Delete the scores the runs of that kind have under exactly the settings of `key`
    (`settings_key`); how many rows."""
    runs = select(db.Run.id).where(db.Run.kind == kind, db.Run.run_id.in_(list(run_ids)))
    result = session.execute(delete(db.EvaluationResult).where(
        db.EvaluationResult.run_id.in_(runs), db.EvaluationResult.settings_id == key))
    return cast(CursorResult, result).rowcount  # a DELETE's result is a cursor's


RAG_PREFIX = "RAG "  # measures of TREC RAG's nugget scores: `RAG vital`, `RAG vital answered`


def rag_means(means: dict | None) -> dict[str, float]:
    """A run's TREC RAG scores (`nuggetizer.run_means`) by the measure names the store keeps them
    under: over all topics (`RAG vital`) and over the answered topics, as nuggetizer averages
    (`RAG vital answered`)."""
    if means is None:
        return {}
    return {**{f"{RAG_PREFIX}{m}": v for m, v in means["all_topics"].items()},
            **{f"{RAG_PREFIX}{m} answered": v for m, v in means["answered_topics"].items()}}


def save_scores(session: Session, scores, settings: dict, key: str) -> int:
    """Keep F-scores in the store: one row per run and topic plus the run's mean (topic NULL), and
    the run's TREC RAG scores (topic NULL, `rag_means`); `settings` as `Settings.describe` shows
    them, `key` their identity (`settings_key`)."""
    runs = _run_pks(session, "cclqa", scores)
    measure = f"F{settings.get('beta', 3):g}"
    as_shown = shown(settings)
    rows = 0
    for run_score in scores:
        run_pk = runs.get(run_score.run_id)
        if run_pk is None:
            continue
        common = {"run_id": run_pk, "measure": measure, "matcher": run_score.matcher,
                  "settings": as_shown, "settings_id": key}
        session.add(db.EvaluationResult(**common, value=run_score.score))
        for m, value in rag_means(run_score.nuggetizer).items():  # TREC RAG's four scores, run means only
            session.add(db.EvaluationResult(**{**common, "measure": m}, value=value))
            rows += 1
        for t in run_score.topics:
            session.add(db.EvaluationResult(**common, topic_id=t.topic_id, answer_type=t.answer_type, value=t.f,
                                            recall=t.recall, precision=t.precision))
        rows += 1 + len(run_score.topics)
    session.flush()
    return rows


def replace_cclqa_scores(session: Session, scores: Sequence[RunScore], settings: Settings) -> int:
    """Keep the F-scores of CCLQA runs (one row per run and topic, plus the run's mean)."""
    described = settings.describe()
    key = settings_key(settings.identity(described))
    forget_scores(session, "cclqa", [s.run_id for s in scores], key)
    return save_scores(session, scores, described, key)


def _run_pks(session: Session, kind: str, scores: Sequence) -> dict[str, int]:
    """The store's primary keys of the scored runs of that kind, by run ID (runs not in the store absent)."""
    return dict(session.execute(select(db.Run.run_id, db.Run.id).where(
        db.Run.kind == kind, db.Run.run_id.in_([s.run_id for s in scores]))).all())


def _replace(session: Session, kind: str, scores: Sequence, settings: dict, rows_of) -> int:
    """Forget the runs' scores under these settings and add `rows_of(score, common)` for each run,
    `common` being the run's and settings' columns; how many rows were added."""
    key = settings_key(settings)
    forget_scores(session, kind, [s.run_id for s in scores], key)
    runs = _run_pks(session, kind, scores)
    common = {"settings": shown(settings), "settings_id": key}
    rows = [row for score in scores for row in rows_of(score, {"run_id": runs[score.run_id], **common})]
    session.add_all(rows)
    session.flush()
    return len(rows)


def replace_ir4qa_scores(session: Session, scores: Sequence[IRRunScore], settings: dict) -> int:
    """Keep every measure the IR4QA runs were scored with (AP, ntcir:Q and ntcir:nDCG, and those asked for beside
    them): per run and topic, plus the means (topic NULL)."""
    def rows_of(score: IRRunScore, common: dict) -> list:
        return [db.EvaluationResult(**common, measure=m, value=value) for m, value in score.means.items()] + [
            db.EvaluationResult(**common, measure=m, topic_id=topic_id, value=s.values[m])
            for topic_id, s in score.topics.items() for m in score.means]
    return _replace(session, "ir4qa", scores, settings, rows_of)


QA_MEASURES = ("accuracy", "KT-recall", "KT-precision")


def replace_qa_scores(session: Session, scores: Sequence[QARunScore], settings: dict) -> int:
    """Keep the scores of Question Analysis runs: per topic, whether the answer type is right (1 or
    0, with the topic's gold answer type; topics with one only) and the key terms' recall and
    precision (topics with gold key terms only); per run (topic NULL) the means that exist."""
    def rows_of(score: QARunScore, common: dict) -> list:
        means = zip(QA_MEASURES, (score.accuracy, score.key_term_recall, score.key_term_precision))
        return ([db.EvaluationResult(**common, measure=m, value=v) for m, v in means if v is not None]
                + [db.EvaluationResult(**common, measure="accuracy", topic_id=t.topic_id, answer_type=t.gold_type,
                                       value=float(t.correct)) for t in score.typed]
                + [db.EvaluationResult(**common, measure=m, topic_id=t.topic_id, answer_type=t.gold_type, value=v)
                   for t in score.topics if t.key_terms is not None
                   for m, v in (("KT-recall", t.key_terms.recall), ("KT-precision", t.key_terms.precision))])
    return _replace(session, "qa", scores, settings, rows_of)
