"""Pools by priority and depth, checked by hand."""
import json

import pytest
from sqlalchemy import func, select
from click.testing import CliRunner

from sepia.cli import main
from sepia.formats import model
from sepia.store.exchange.runs import import_run
from sepia.store.models import Assignment, Nugget, PoolEntry, Topic
from sepia.store.pools import assign_pool, build_pool, pool_rows
from tests.helpers import accounts


def ir_run(run_id, docids):
    return model.IR4QARun(model.Metadata(run_id), [
        model.IR4QATopic("X-CS-1", [model.RetrievedDoc(i + 1, d) for i, d in enumerate(docids)])])


def qa_run(run_id, texts):
    return model.CCLQARun(model.Metadata(run_id), [
        model.CCLQATopic("X-CS-1", [model.Answer(i + 1, t) for i, t in enumerate(texts)])])


@pytest.fixture
def filled(store):
    with store.transaction() as session:
        import_run(session, ir_run("A-CS-CS-01-T", ["d1", "d2", "d3"]))
        import_run(session, ir_run("B-CS-CS-01-T", ["d2", "d4", "d5"]))
        import_run(session, ir_run("A-CS-CS-02-T", ["d9", "d1"]))
        import_run(session, qa_run("A-CS-CS-01-T", ["甲", "乙", "丙"]))
        import_run(session, qa_run("B-CS-CS-03-D", ["丁"]))
    return store


def test_ir4qa_pool_by_depth_and_priority(filled):
    with filled.transaction() as session:
        build_pool(session, "p1", "ir4qa", depth=2, max_priority=1)
        header, rows = pool_rows(session, "p1")
    assert header == ["topic_id", "docid"]
    assert rows == [("X-CS-1", "d1"), ("X-CS-1", "d2"), ("X-CS-1", "d4")]  # d2 once; run 02 left out
    with filled.transaction() as session:
        build_pool(session, "all", "ir4qa", depth=1)
        assert pool_rows(session, "all")[1] == [("X-CS-1", "d1"), ("X-CS-1", "d2"), ("X-CS-1", "d9")]


def test_cclqa_pool_and_cli(filled, monkeypatch, store_url):
    monkeypatch.setenv("SEPIA_DATABASE_URL", store_url)
    runner = CliRunner()
    result = runner.invoke(main, ["pool", "build", "qa", "--kind", "cclqa", "--depth", "2"])
    assert result.exit_code == 0 and "3 cclqa items (3 responses) over 1 topics" in result.output
    assert runner.invoke(main, ["pool", "build", "qa", "--kind", "cclqa", "--depth", "2"]).exit_code == 1
    out = [line.split("\t") for line in runner.invoke(main, ["pool", "export", "qa"]).output.splitlines()]
    assert out[0] == ["topic_id", "item", "run_id", "answer_rank", "text"]
    assert [(r[0], r[2], r[3], r[4]) for r in out[1:]] == [
        ("X-CS-1", "A-CS-CS-01-T", "1", "甲"), ("X-CS-1", "A-CS-CS-01-T", "2", "乙"), ("X-CS-1", "B-CS-CS-03-D", "1", "丁")]
    assert runner.invoke(main, ["pool", "export", "nope"]).exit_code == 1


def test_equal_responses_are_one_item_judged_once(store, monkeypatch, store_url):
    """Responses whose text is equal after NFKC, lower case and white space folding are one item;
    the JSON export carries the texts, the runs of each item and the topic's nuggets."""
    with store.transaction() as session:
        import_run(session, qa_run("A-CS-CS-01-T", ["Bird Flu  is H5N1", "甲", "乙"]))
        import_run(session, qa_run("B-CS-CS-01-T", ["bird flu is ＨＨ5N1", "bird  flu is h5n1", "丙"]))
        import_run(session, qa_run("C-EN-CS-02-T", ["甲"]))
        import_run(session, qa_run("D-JA-JA-01-T", ["甲"]))  # another language: not in a CS pool
        session.add(Topic(id="X-CS-1", lang="CS", status="completed", nuggets=[
            Nugget(label="N001", text="H5N1", position=0), Nugget(label="N002", text="禽流感", position=1)]))
    monkeypatch.setenv("SEPIA_DATABASE_URL", store_url)
    runner = CliRunner()
    result = runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--lang", "CS", "--priority", "1",
                                  "--priority", "2"])
    assert result.exit_code == 0 and "5 cclqa items (7 responses) over 1 topics" in result.output, result.output
    document = json.loads(runner.invoke(main, ["pool", "export", "p", "--format", "json"]).output)
    assert document["kind"] == "cclqa" and document["lang"] == "CS" and document["depth"] == 30
    (topic,) = document["topics"]
    assert topic["nuggets"] == [{"nugget_id": "N001", "text": "H5N1"}, {"nugget_id": "N002", "text": "禽流感"}]
    runs = {item["text"]: sorted((r["run_id"], r["answer_rank"]) for r in item["responses"]) for item in topic["items"]}
    assert runs == {"Bird Flu  is H5N1": [("A-CS-CS-01-T", 1), ("B-CS-CS-01-T", 2)],
                    "bird flu is ＨＨ5N1": [("B-CS-CS-01-T", 1)],
                    "甲": [("A-CS-CS-01-T", 2), ("C-EN-CS-02-T", 1)], "乙": [("A-CS-CS-01-T", 3)],
                    "丙": [("B-CS-CS-01-T", 3)]}
    only_first = runner.invoke(main, ["pool", "build", "p1", "--kind", "cclqa", "--priority", "1", "--depth", "1"])
    # The first response of A, B and D (no language asked): three different texts.
    assert "3 cclqa items (3 responses)" in only_first.output


def test_assignment_shares_topics_out_with_the_overlap_asked(store):
    with store.transaction() as session:
        for t in range(6):
            import_run(session, model.CCLQARun(model.Metadata("A-CS-CS-01-T" if t == 0 else f"A{t}-CS-CS-01-T"), [
                model.CCLQATopic(f"X-CS-{t}", [model.Answer(i + 1, f"answer {t} {i}") for i in range(10)])]))
        build_pool(session, "p", "cclqa", depth=30)
        accounts(session, "a1", "a2", "a3")
        assert assign_pool(session, "p", ["a1", "a2", "a3"], overlap=0.2, seed=7) == 60 + 12
        # Assigning again keeps what is there.
        assert assign_pool(session, "p", ["a1", "a2", "a3"], overlap=0.2, seed=7) == 0
        rows = session.execute(select(Assignment.assessor, Assignment.position, PoolEntry.topic_id, PoolEntry.id)
                               .join(PoolEntry)).all()
    by_item: dict[int, list[str]] = {}
    for assessor, _, _, entry in rows:
        by_item.setdefault(entry, []).append(assessor)
    assert len(by_item) == 60 and sum(len(a) == 2 for a in by_item.values()) == 12
    assert all(len(set(a)) == len(a) for a in by_item.values())  # never twice to one assessor
    for topic in {t for _, _, t, _ in rows}:  # per topic 2 of its 10 items doubled
        assert sum(len(by_item[e]) == 2 for e in {e for _, _, t, e in rows if t == topic}) == 2
    for assessor in ("a1", "a2", "a3"):
        queue = sorted((p, t) for a, p, t, _ in rows if a == assessor)
        assert [p for p, _ in queue] == list(range(len(queue)))  # positions 0..n-1
        topics = [t for _, t in queue]
        assert topics == sorted(topics, key=topics.index)  # a topic's items stay together
    with pytest.raises(ValueError, match="overlap needs at least two"):
        with store.transaction() as session:
            assign_pool(session, "p", ["a1"], overlap=0.5)


def test_pool_assign_refuses_names_that_are_not_active_assessors(filled, monkeypatch, store_url):
    """A name that is no active assessor's account (a typo, an organiser, a deactivated assessor) would
    leave its items in nobody's queue: refused, every such name told, nothing stored; so is a name
    given twice."""
    monkeypatch.setenv("SEPIA_DATABASE_URL", store_url)
    with filled.transaction() as session:
        build_pool(session, "p", "ir4qa", depth=2, max_priority=1)
        accounts(session, "a1", "a2", organisers=("org",), inactive=("gone",))
    runner = CliRunner()
    refused = runner.invoke(main, ["pool", "assign", "p", "--assessor", "a1", "--assessor", "a3",
                                   "--assessor", "org", "--assessor", "gone"])
    assert refused.exit_code == 2 and "not active assessors: a3, org, gone" in refused.output
    twice = runner.invoke(main, ["pool", "assign", "p", "--assessor", "a1", "--assessor", "a2", "--assessor", "a1"])
    assert twice.exit_code == 2 and "assessors named more than once: a1" in twice.output
    with filled.transaction() as session:
        assert session.scalar(select(func.count()).select_from(Assignment)) == 0
    done = runner.invoke(main, ["pool", "assign", "p", "--assessor", "a1", "--assessor", "a2"])
    assert done.exit_code == 0 and "pool p: 3 assignments to 2 assessors" in done.output
    with filled.transaction() as session:
        assert set(session.scalars(select(Assignment.assessor))) == {"a1"}  # one topic: to the first named


def test_an_imported_relevance_judgment_keeps_the_document_from_its_assessor(filled):
    """Issue 33: an item already judged by an assessor is never handed out to them again, judged
    through an assignment or imported (here a relevance judgment of d1 by a1): a1 keeps the topic,
    d1 goes to nobody, the other documents to a1."""
    from sepia.store.models import RelevanceJudgment

    with filled.transaction() as session:
        build_pool(session, "p", "ir4qa", depth=2, max_priority=1)
        session.add(RelevanceJudgment(topic_id="X-CS-1", docid="d1", assessor="a1", level=1))
        accounts(session, "a1", "a2")
        assert assign_pool(session, "p", ["a2", "a1"]) == 2
        rows = sorted(session.execute(select(PoolEntry.docid, Assignment.assessor).join(Assignment)).all())
    assert rows == [("d2", "a1"), ("d4", "a1")]
