"""Scoring what the campaign store holds: the CCLQA runs against the stored gold standard and nugget
judgments, the IR4QA runs against the stored relevance judgments. The numbers are those of the same
data scored from files (`sepia evaluate --store`, `sepia evaluate-ir4qa --store`, the web tool's
results pages).

Runs are read and scored one at a time, each with a few queries, so memory holds one run (and the
gold standard or qrels), however many runs the store has; a matcher that learns from other runs (the
learned matcher) is shown every stored CCLQA run first, and holds what it learnt from them.
"""
from __future__ import annotations

from typing import Iterable, Sequence

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from sepia import vocab
from sepia.ir4qa.evaluate import IR4QAEvaluator, IR4QAResults, ranked_ir4qa, rankings_of
from sepia.ir4qa.measures import default_gains, parse_gains
from sepia.scoring.evaluate import Evaluator, RunScore, Settings, ranked
from sepia.store.exchange.gold import export_gold
from sepia.store.exchange.judgments import export_judgments
from sepia.store.exchange.runs import export_run
from sepia.store import models as db
from sepia.store.db import Store
from sepia.store.relevance import load_qrels
from sepia.store.results import replace_cclqa_scores, replace_ir4qa_scores

TASK_NAMES = {"cclqa": "CCLQA", "ir4qa": "IR4QA"}


class NothingToScore(Exception):
    """The store lacks what scoring needs (runs, a gold standard, judgments) or a run asked for."""


def score_stored_runs(store: Store, settings: Settings | dict | None = None, run_ids: Sequence[str] | None = None,
                      lang_pairs: Sequence[str] | None = None, save: bool = True) -> list[RunScore]:
    """F-scores of the stored CCLQA runs (all, or those named, or those of the language pairs given)
    against the stored gold standard and, for the human matcher, the stored nugget judgments of all
    assessors; ranked, best first. `settings` is a `Settings` or a dict of its fields
    (`{"matcher": "human", "beta": 3}`). With `save`, the scores replace those the runs had under the
    same settings in evaluation_result (kept under `settings_key(settings.identity())`, shown as
    `settings.describe()`).

    Raises NothingToScore when the store lacks runs, a gold standard or (human) judgments."""
    settings = settings if isinstance(settings, Settings) else Settings(**(settings or {}))
    kind = settings.matcher_kind()
    learner = kind is not None and kind.learns_from_other_runs  # given every run's judgments at once
    human = kind is not None and kind.needs_judgments and not learner  # each run on its own judgments
    with store.transaction() as session:
        ids = stored_run_ids(session, "cclqa", run_ids, lang_pairs)
        gold = export_gold(session)
        if not gold.topics:
            raise NothingToScore("the store holds no gold standard (no topic has nuggets): "
                                 "import one with `sepia import GOLD.xml`")
        if kind is not None and kind.needs_judgments and not session.scalar(
                select(func.count()).select_from(db.NuggetJudgment)):
            raise NothingToScore(f"the store holds no nugget judgments for the {settings.matcher} matcher: import them "
                                 "with `sepia import JUDGMENTS.tsv`, or choose an automatic matcher")
        try:
            judgments = [] if human else (export_judgments(session) or None) if learner else None
            evaluator = Evaluator(gold, settings, judgments)
            if evaluator.learns:  # it learns from every stored run's judgments, each run's own left out
                evaluator.learn([run for run, _ in _stored_runs(session, "cclqa", stored_run_ids(session, "cclqa"))])
        except ValueError as exc:  # a model it cannot use, judgments it cannot learn from
            raise NothingToScore(f"the {settings.matcher} matcher: {exc}") from None
        results = ranked(evaluator.evaluate(run, judgments)
                         for run, judgments in _stored_runs(session, "cclqa", ids, with_judgments=human))
    if save:
        with store.transaction() as session:
            replace_cclqa_scores(session, results, settings)
    return results


def score_stored_ir4qa(store: Store, gains: Sequence[float] | str | None = None, cutoff: int = 1000,
                       run_ids: Sequence[str] | None = None, lang_pairs: Sequence[str] | None = None,
                       save: bool = True, **options) -> IR4QAResults:
    """AP, Q-measure and nDCG of the stored IR4QA runs (all, or those named, or those of the language
    pairs given) against the stored relevance judgments, each document's level combined over its
    assessors (the upper median, `sepia.ir4qa.qrels.combine`). `gains` as `[1, 2, 3]` or "1:2:3";
    by default the level itself, up to the highest level judged. With `save`, the scores replace
    those the runs had under the same settings in evaluation_result.

    Raises NothingToScore when the store lacks runs or relevance judgments; ValueError for bad gains
    or a level that has no gain. `options` as for `sepia.ir4qa.evaluate.IR4QAEvaluator`."""
    with store.transaction() as session:
        ids = stored_run_ids(session, "ir4qa", run_ids, lang_pairs)
        qrels = load_qrels(session)
        if not qrels:
            raise NothingToScore("the store holds no relevance judgments: import a qrels file with "
                                 "`sepia import QRELS.tsv`")
        gain_list = parse_gains(gains) if isinstance(gains, str) else list(gains or default_gains(qrels))
        evaluator = IR4QAEvaluator(qrels, gain_list, cutoff, **options)  # the qrels prepared once
        runs = ranked_ir4qa(evaluator.score(run.metadata.run_id, rankings_of(run))
                            for run, _ in _stored_runs(session, "ir4qa", ids))
    results = IR4QAResults(runs, gain_list, cutoff, options)
    if save:
        with store.transaction() as session:
            replace_ir4qa_scores(session, runs, results.settings)
    return results


def stored_run_ids(session: Session, kind: str, run_ids: Sequence[str] | None = None,
                   lang_pairs: Sequence[str] | None = None) -> list[str]:
    """The IDs of the stored runs of that kind, all or those named (each must be stored), of the
    language pairs given (`CS-CS`), if any."""
    query = select(db.Run.run_id).where(db.Run.kind == kind).order_by(db.Run.target_lang, db.Run.run_id)
    if run_ids:
        query = query.where(db.Run.run_id.in_(list(run_ids)))
    ids = list(session.scalars(query))
    missing = [r for r in dict.fromkeys(run_ids or []) if r not in ids]
    if missing:
        raise NothingToScore(f"no {TASK_NAMES[kind]} run {', '.join(missing)} in the store")
    if lang_pairs:
        pairs = {p.upper() for p in lang_pairs}
        ids = [r for r in ids if vocab.language_pair_of(r) in pairs]
    if not ids:
        among = f" of {', '.join(sorted({p.upper() for p in lang_pairs}))}" if lang_pairs else ""
        raise NothingToScore(f"the store holds no {TASK_NAMES[kind]} runs{among}: import some with "
                             "`sepia import RUN.xml`")
    return ids


def _stored_runs(session: Session, kind: str, run_ids: Iterable[str], with_judgments: bool = False):
    """(run, its nugget judgments or None) for each run, one run in memory at a time."""
    for run_id in run_ids:
        run = export_run(session, run_id, kind)
        judgments = export_judgments(session, run_id) if with_judgments else None
        session.expunge_all()  # the rows of this run are not needed again
        yield run, judgments


def score_stored_support(store: Store) -> list:
    """TREC RAG's citation support precision and recall (`sepia.scoring.support`) of every stored CCLQA
    run from the stored support judgments (an organiser's decision where one adjudicated a citation),
    as `sepia evaluate-support` gives them for the same files; best precision first. Raises
    NothingToScore when the store holds no support judgments."""
    from sepia.scoring.support import support_scores
    from sepia.store.support import support_judgments

    with store.transaction() as session:
        judgments = support_judgments(session)
        if not judgments:
            raise NothingToScore("the store holds no citation support judgments")
        by_run: dict[str, list] = {}
        for judgment in judgments:
            by_run.setdefault(judgment.run_id, []).append(judgment)
        results = [score for run, _ in _stored_runs(session, "cclqa", stored_run_ids(session, "cclqa"))
                   for score in support_scores([run], by_run.get(run.run_id, []))]
    return sorted(results, key=lambda r: (-r.precision, r.run_id))
