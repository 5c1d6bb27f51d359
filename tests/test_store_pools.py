"""Pools by priority and depth, checked by hand."""
import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.formats import model
from sepia.store import io
from sepia.store.pools import build_pool, pool_rows


def ir_run(run_id, docids):
    return model.IR4QARun(model.Metadata(run_id), [
        model.IR4QATopic("X-CS-1", [model.RetrievedDoc(i + 1, d) for i, d in enumerate(docids)])])


def qa_run(run_id, texts):
    return model.CCLQARun(model.Metadata(run_id), [
        model.CCLQATopic("X-CS-1", [model.Answer(i + 1, t) for i, t in enumerate(texts)])])


@pytest.fixture
def filled(store):
    with store.transaction() as session:
        io.import_run(session, ir_run("A-CS-CS-01-T", ["d1", "d2", "d3"]))
        io.import_run(session, ir_run("B-CS-CS-01-T", ["d2", "d4", "d5"]))
        io.import_run(session, ir_run("A-CS-CS-02-T", ["d9", "d1"]))
        io.import_run(session, qa_run("A-CS-CS-01-T", ["甲", "乙", "丙"]))
        io.import_run(session, qa_run("B-CS-CS-03-D", ["丁"]))
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
    assert result.exit_code == 0 and "3 cclqa items over 1 topics" in result.output
    assert runner.invoke(main, ["pool", "build", "qa", "--kind", "cclqa", "--depth", "2"]).exit_code == 1
    out = runner.invoke(main, ["pool", "export", "qa"]).output.splitlines()
    assert out == ["topic_id\trun_id\tanswer_rank", "X-CS-1\tA-CS-CS-01-T\t1", "X-CS-1\tA-CS-CS-01-T\t2",
                   "X-CS-1\tB-CS-CS-03-D\t1"]
    assert runner.invoke(main, ["pool", "export", "nope"]).exit_code == 1
