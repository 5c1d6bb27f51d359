"""Which topics an IR4QA run's means are over (issue 21, item 6): a topic ID without a language (TREC's
401) is every run's; a run left with no scored topic has no mean ('-', exit 1), never 0.0;
`--average trec_eval` averages as trec_eval does (the run's topics found in the qrels), checked
against pytrec_eval; `--format trec` says which topics its 'all' lines are over (num_q)."""
from __future__ import annotations

import json
import random

import pytest
import pytrec_eval
from click.testing import CliRunner
from sqlalchemy import func, select

from sepia.cli import main
from sepia.ir4qa.evaluate import IR4QAEvaluator, ranked_ir4qa
from sepia.resources import resource_dir
from sepia.services.scores import score_stored_ir4qa
from sepia.store import models as db
from sepia.store.db import Store

TAG = "TEAM0-EN-EN-01-T"


def evaluate(tmp_path, qrels: str, run: str, *args):
    (tmp_path / "qrels.txt").write_text(qrels)
    (tmp_path / "run.txt").write_text(run)
    return CliRunner().invoke(main, ["evaluate-ir4qa", "--qrels", str(tmp_path / "qrels.txt"),
                                     str(tmp_path / "run.txt"), *args])


def test_a_sepia_run_id_keeps_topics_without_a_language(tmp_path):
    """The issue's example: it printed 'EN-EN (0 topics) 0.0000' and exited 0."""
    result = evaluate(tmp_path, "401 0 D1 2\n", f"401 Q0 D1 1 2.0 {TAG}\n")
    assert result.exit_code == 0, result.output
    assert "EN-EN (1 topic" in result.stdout and f"{TAG}  1.0000   1.0000      1.0000" in result.stdout


def test_topics_of_another_language_are_still_left_out():
    evaluator = IR4QAEvaluator({"ACLIA2-CS-0001": {"D1": 1}, "ACLIA2-EN-0001": {"D2": 1}, "7": {"D3": 1}}, [1.0])
    scored = evaluator.score(TAG, {"ACLIA2-EN-0001": ["D2"], "7": ["D9"]})
    assert sorted(scored.topics) == ["7", "ACLIA2-EN-0001"] and scored.means["AP"] == 0.5


def test_a_run_without_a_scored_topic_has_no_mean(tmp_path):
    qrels, run = "ACLIA2-CS-0001 0 D1 1\n", f"401 Q0 D1 1 2.0 {TAG}\n"
    table = evaluate(tmp_path, qrels, run)
    assert table.exit_code == 1 and "0.0000" not in table.stdout
    assert f"{TAG}   -        -           -" in table.stdout
    assert f"error: no topic scored for {TAG}" in table.stderr and "no topic scored: the qrels have none" in table.stderr
    assert evaluate(tmp_path, qrels, run, "--format", "tsv").stdout.splitlines()[-1] == f"{TAG}\tALL\t-\t-\t-\t"
    data = json.loads(evaluate(tmp_path, qrels, run, "--format", "json").stdout)
    assert data["runs"][0]["AP"] is None and data["runs"][0]["topics"] == []
    lines = evaluate(tmp_path, qrels, run, "--format", "trec").stdout.splitlines()
    assert [line.split("\t")[1:] for line in lines[1:]] == [["all", "-"]] * 3 + [["all", "0"]]


def test_runs_without_a_scored_topic_rank_last():
    evaluator = IR4QAEvaluator({"ACLIA2-CS-0001": {"D1": 1}}, [1.0])
    scores = [evaluator.score("A-EN-EN-01-T", {}), evaluator.score("B-CS-CS-01-T", {"ACLIA2-CS-0001": ["D2"]})]
    assert scores[0].means == {} and scores[1].means["AP"] == 0.0
    assert [s.run_id for s in ranked_ir4qa(scores)] == ["B-CS-CS-01-T", "A-EN-EN-01-T"]


def random_case(seed: int):
    """qrels with topics without a relevant document; a run missing some qrels topics, answering some
    topics the qrels lack, with ties."""
    rng = random.Random(seed)
    qrels, run = {}, {}
    for t in range(12):
        qid = str(401 + t)
        if t < 9:
            qrels[qid] = {f"d{i}": rng.choice([0, 0, 1, 2]) for i in rng.sample(range(30), rng.randrange(1, 12))}
        if t % 4 != 1:
            run[qid] = {f"d{i}": float(rng.randrange(5)) for i in rng.sample(range(30), rng.randrange(1, 15))}
    return qrels, run


@pytest.mark.parametrize("seed", range(3))
def test_trec_eval_averaging_equals_pytrec_eval(tmp_path, seed):
    qrels, run = random_case(seed)
    text_qrels = "".join(f"{q} 0 {d} {r}\n" for q, docs in qrels.items() for d, r in docs.items())
    text_run = "".join(f"{q} Q0 {d} {i + 1} {s} tagA\n" for q, docs in run.items() for i, (d, s) in enumerate(docs.items()))
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P.10", "recip_rank"}).evaluate(run)
    result = evaluate(tmp_path, text_qrels, text_run, "--measures", "AP,P@10,RR", "--format", "trec",
                      "--average", "trec_eval")
    assert result.exit_code == 0, result.output
    means = {f[0].strip(): f[2] for f in (line.split("\t") for line in result.stdout.splitlines()) if f[1] == "all"}
    assert int(means["num_q"]) == len(expected)
    for ours, theirs in (("AP", "map"), ("P@10", "P_10"), ("RR", "recip_rank")):
        mean = sum(v[theirs] for v in expected.values()) / len(expected)
        assert float(means[ours]) == pytest.approx(mean, abs=5e-5), ours
    assert "note: the 'all' lines are means over the run's topics found in the qrels" in result.stderr
    # SEPIA's: the qrels topics with a relevant document, 0 where the run has none of them
    sepia = evaluate(tmp_path, text_qrels, text_run, "--measures", "AP", "--format", "trec")
    relevant = [q for q, docs in qrels.items() if any(r > 0 for r in docs.values())]
    lines = [line.split("\t") for line in sepia.stdout.splitlines()]
    ap = {f[1]: float(f[2]) for f in lines if f[0].strip() == "AP"}
    assert sorted(q for q in ap if q != "all") == sorted(relevant)
    assert ap["all"] == pytest.approx(sum(ap[q] for q in relevant) / len(relevant), abs=1e-4)
    assert all(ap[q] == 0 for q in relevant if q not in run)
    assert "trec_eval's: --average trec_eval" in sepia.stderr


def test_the_store_keeps_no_mean_of_a_run_without_a_scored_topic(store_url, monkeypatch):
    monkeypatch.setenv("SEPIA_DATABASE_URL", store_url)
    corpora = resource_dir("corpora")
    imported = CliRunner().invoke(main, ["import", str(corpora / "cs" / "topics.xml"), str(corpora / "ja" / "topics.xml"),
                                         str(corpora / "cs" / "ir4qa" / "TEAMA-CS-CS-01-T.xml"),
                                         str(corpora / "ja" / "ir4qa" / "TEAMA-JA-JA-01-T.xml"),
                                         str(corpora / "ja" / "qrels.tsv")])
    assert imported.exit_code == 0, imported.output
    store = Store(store_url)
    try:
        results = score_stored_ir4qa(store)
        unscored = [r for r in results.runs if not r.topics]
        assert [r.run_id for r in unscored] == ["TEAMA-CS-CS-01-T"] and results.runs[-1] is unscored[0]
        with store.transaction() as session:
            kept = dict(session.execute(select(db.Run.run_id, func.count(db.EvaluationResult.id))
                                        .join(db.EvaluationResult).group_by(db.Run.run_id)).all())
        assert "TEAMA-CS-CS-01-T" not in kept and kept["TEAMA-JA-JA-01-T"] > 0
    finally:
        store.dispose()
