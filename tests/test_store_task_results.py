"""IR4QA and Question Analysis scores kept in the store and read back for the results pages, on
SQLite and PostgreSQL: every measure the organiser asked for, the same numbers as the scoring, and
scoring again replaces instead of adding."""
from __future__ import annotations

import pytest

from sepia.campaign import task_results
from sepia.formats.read import read_file
from sepia.ir4qa.evaluate import stored_measures
from sepia.ir4qa.qrels import read_qrels_rows
from sepia.resources import resource_dir
from sepia.services.qa_scores import score_stored_qa
from sepia.services.scores import score_stored_ir4qa
from sepia.store.exchange.runs import import_run
from sepia.store.exchange.topics import import_topics
from sepia.store.models import EvaluationResult
from sepia.store.relevance import import_qrels

CS = resource_dir("corpora") / "cs"


@pytest.fixture
def campaign(store):
    with store.transaction() as session:
        import_topics(session, read_file(CS / "topics.xml"))
        import_qrels(session, read_qrels_rows(CS / "qrels.tsv"))
        import_run(session, read_file(CS / "ir4qa" / "TEAMA-CS-CS-01-T.xml"))
        import_run(session, read_file(CS / "qa" / "TEAMA-CS-CS-01-T.xml"))
    return store


def test_ir4qa_scores_keep_every_measure_asked_for(campaign):
    scored = score_stored_ir4qa(campaign, "1:3", measures=stored_measures(("P@5", "RR")))
    with campaign.transaction() as session:
        found = task_results.load(session, "ir4qa")
    assert found.measures == ["AP", "ntcir:Q", "ntcir:nDCG", "P@5", "RR"] and found.settings["gains"] == "1:3"
    [run], [expected] = found.runs, scored.runs
    assert run.means == expected.means and run.team == "TEAMA"
    assert run.topics["P@5"] == {t: s.values["P@5"] for t, s in expected.topics.items()}
    # P@5 by hand for the first topic: its top five documents against the qrels
    relevant = {r.docid for r in read_qrels_rows(CS / "qrels.tsv") if r.topic_id == "SEPIA-CS-0001" and r.level > 0}
    top = [d.docid for d in sorted(read_file(CS / "ir4qa" / "TEAMA-CS-CS-01-T.xml").topics[0].documents,
                                   key=lambda d: d.rank)][:5]
    assert run.topics["P@5"]["SEPIA-CS-0001"] == sum(d in relevant for d in top) / 5
    table = found.table("CS-CS")
    assert table.columns == ["Run", "AP", "ntcir:Q", "ntcir:nDCG", "P@5", "RR"] and table.rows[0][1:] == list(expected.means.values())
    with campaign.transaction() as session:
        rows = session.query(EvaluationResult).count()
    score_stored_ir4qa(campaign, "1:3", measures=stored_measures(("P@5", "RR")))
    with campaign.transaction() as session:
        assert session.query(EvaluationResult).count() == rows == 5 * (1 + len(expected.topics))


def test_qa_scores_are_kept_and_read_back_as_scored(campaign):
    [scored] = score_stored_qa(campaign)
    with campaign.transaction() as session:
        found = task_results.load(session, "qa")
        rows = session.query(EvaluationResult).count()
    [run] = found.runs
    assert run.means == {"accuracy": scored.accuracy, "KT-recall": scored.key_term_recall,
                         "KT-precision": scored.key_term_precision}
    assert run.by_type == pytest.approx(scored.by_type)
    correct = [t.correct for t in scored.typed]
    assert run.means["accuracy"] == sum(correct) / len(correct)  # by hand: right answer types over typed topics
    score_stored_qa(campaign)
    score_stored_qa(campaign, save=False)
    with campaign.transaction() as session:
        assert session.query(EvaluationResult).count() == rows
