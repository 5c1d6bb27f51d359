"""Scoring the Question Analysis runs the campaign store holds against its topics' answer types and
gold key terms, as from files; the scores are kept in the store (`sepia.store.results.replace_qa_scores`)
for the results pages.
"""
from __future__ import annotations

from typing import Sequence

from sepia import vocab
from sepia.qa.evaluate import SETTINGS, QARunScore, evaluate_qa_run, ranked_qa
from sepia.services.scores import NothingToScore
from sepia.store.exchange import runs as runs_io
from sepia.store.exchange.topics import export_topics
from sepia.store.db import Store
from sepia.store.results import replace_qa_scores


def score_stored_qa(store: Store, run_ids: Sequence[str] | None = None,
                    lang_pairs: Sequence[str] | None = None, save: bool = True) -> list[QARunScore]:
    """The stored QA runs (all, those named, or those of the language pairs given), one at a time,
    against the stored topics; with `save`, the scores replace those the runs had in the store.
    Raises NothingToScore when the store lacks runs or topics."""
    with store.transaction() as session:
        ids = _stored_qa_runs(session, run_ids, lang_pairs)
        topics = export_topics(session).topics
        if not any(t.answer_type for t in topics):
            raise NothingToScore("the store holds no topic with an answer type: import topics with "
                                 "`sepia import TOPICS.xml`")
        results = []
        for run_id in ids:
            results.append(evaluate_qa_run(topics, runs_io.export_run(session, run_id, "qa")))
            session.expunge_all()  # the rows of this run are not needed again
    if save:
        with store.transaction() as session:
            replace_qa_scores(session, results, SETTINGS)
    return ranked_qa(results)


def _stored_qa_runs(session, run_ids: Sequence[str] | None, lang_pairs: Sequence[str] | None) -> list[str]:
    """The stored QA run IDs asked for: every run named must be stored; at least one must remain."""
    stored = runs_io.run_ids(session, "qa")
    missing = [r for r in dict.fromkeys(run_ids or []) if r not in stored]
    if missing:
        raise NothingToScore(f"no Question Analysis run {', '.join(missing)} in the store")
    pairs = {p.upper() for p in lang_pairs or []}
    ids = [r for r in stored if (not run_ids or r in run_ids) and (not pairs or vocab.language_pair_of(r) in pairs)]
    if not ids:
        among = f" of {', '.join(sorted(pairs))}" if pairs else ""
        raise NothingToScore(f"the store holds no Question Analysis runs{among}: import some with "
                             "`sepia import RUN.xml`")
    return ids
