"""Pool builds and judgment imports stream (issue 34): what they hold in memory and the statements
they send do not grow with the number of runs or judgments. tools/bench_import_memory.py measures
the peak memory at TREC RAG scale; these tests count objects and statements instead of bytes."""
from __future__ import annotations

import pytest
from sqlalchemy import event, func, select

from sepia.formats import model
from sepia.store.errors import ImportRefused
from sepia.store.exchange.gold import export_gold, import_gold
from sepia.store.exchange.judgments import import_judgments
from sepia.store.exchange.runs import import_run
from sepia.store.wipe import delete_all
from sepia.store.models import NuggetJudgment, PoolEntry, pool_member
from sepia.store.pools import build_pool, pool_rows, pool_size

TOPICS = ("X-CS-1", "X-CS-2", "X-CS-3")


def qa_run(team: str, answers: int = 4):
    return model.CCLQARun(model.Metadata(f"{team}-CS-CS-01-T"), [
        model.CCLQATopic(topic, [model.Answer(rank, f"{topic} answer {rank} of {team if rank % 2 else 'all'}")
                                 for rank in range(1, answers + 1)]) for topic in TOPICS])


def ir_run(team: str):
    return model.IR4QARun(model.Metadata(f"{team}-CS-CS-01-T"), [
        model.IR4QATopic(topic, [model.RetrievedDoc(rank, f"{team if rank % 2 else 'all'}-{rank}")
                                 for rank in range(1, 5)]) for topic in TOPICS])


def teams(n: int) -> list[str]:
    return [f"T{i:02d}" for i in range(n)]


class Statements:
    def __init__(self, engine):
        self.count = 0
        self.engine = engine

    def __enter__(self):
        event.listen(self.engine, "before_cursor_execute", self.seen)
        return self

    def seen(self, *_args, **_kwargs):
        self.count += 1

    def __exit__(self, *_exc):
        event.remove(self.engine, "before_cursor_execute", self.seen)


def build_measured(store, runs: int, kind: str) -> tuple[int, int, list]:
    """(statements sent, objects in the session afterwards, the pool's rows) of a pool of `runs` runs."""
    with store.transaction() as session:
        for team in teams(runs):
            import_run(session, qa_run(team) if kind == "cclqa" else ir_run(team))
    with store.transaction() as session, Statements(store.engine) as statements:
        pool = build_pool(session, f"{kind}-{runs}", kind, depth=3)
        held = len(session.identity_map)  # what the session holds while the caller holds the pool
        assert pool.name == f"{kind}-{runs}"
        rows = pool_rows(session, f"{kind}-{runs}")[1]
    return statements.count, held, rows


@pytest.mark.parametrize("kind", ["cclqa", "ir4qa"])
def test_a_pool_build_holds_no_response_and_sends_as_many_statements_for_2_runs_as_for_12(store, kind):
    few_statements, few_held, _ = build_measured(store, 2, kind)
    with store.transaction() as session:
        delete_all(session)
    many_statements, many_held, rows = build_measured(store, 12, kind)
    assert many_statements == few_statements
    assert few_held == many_held == 1  # the pool's own row: no run, response or item object
    # the items are still right: to depth 3 (ranks 1, 2, 3: a team's own, the shared one, its own)
    # each topic has the shared answer or document once and two of each team's own
    with store.transaction() as session:
        size = pool_size(session, session.scalar(select(PoolEntry.pool_id).limit(1)))
    assert size.items == len(TOPICS) * (12 * 2 + 1) == (len(rows) if kind == "ir4qa" else size.items)
    assert size.responses == (len(TOPICS) * 12 * 3 if kind == "cclqa" else 0)


def test_a_pool_is_written_a_batch_of_topics_at_a_time(store, monkeypatch):
    from sepia.store import pools

    monkeypatch.setattr(pools, "BATCH", 2)  # every topic of 2 runs x depth 3 makes at least 2 items
    statements_small_batches, _held, rows = build_measured(store, 2, "cclqa")
    with store.transaction() as session:
        members = session.scalar(select(func.count()).select_from(pool_member))
        entries = session.scalars(select(PoolEntry.topic_id).order_by(PoolEntry.id)).all()
    assert members == len(rows) == len(TOPICS) * 2 * 3
    assert entries == sorted(entries)  # a topic's items together, never split across batches
    assert statements_small_batches > 0


def judgments_of(runs: int) -> list[model.Judgment]:
    return [model.Judgment(topic, f"{team}-CS-CS-01-T", rank, "N001", 1.0 if rank % 2 else 0.0, "as1")
            for team in teams(runs) for topic in TOPICS for rank in range(1, 5)]


def import_measured(store, runs: int, replace: bool = False) -> tuple[int, int]:
    with store.transaction() as session, Statements(store.engine) as statements:
        import_judgments(session, judgments_of(runs), replace=replace)
        held = len(session.identity_map)
    return statements.count, held


def stored_runs_and_nuggets(store, runs: int) -> None:
    with store.transaction() as session:
        import_gold(session, model.GoldStandard("CS", [
            model.GoldTopic(topic, "DEFINITION", [], [model.GoldNugget("N001", "a nugget", 1.0)]) for topic in TOPICS]))
        for team in teams(runs):
            import_run(session, qa_run(team))


def test_a_judgment_import_holds_no_object_and_sends_as_many_statements_for_2_runs_as_for_12(store):
    stored_runs_and_nuggets(store, 12)
    few = import_measured(store, 2)
    with store.transaction() as session:
        session.query(NuggetJudgment).delete()
    many = import_measured(store, 12)
    assert few == many and many[1] == 0
    again = import_measured(store, 12, replace=True)  # every judgment replaced: no more statements
    assert again[0] <= many[0] + 1 and again[1] == 0
    with store.transaction() as session:
        stored = session.execute(select(func.count(), func.sum(NuggetJudgment.match))).one()
    assert tuple(stored) == (12 * len(TOPICS) * 4, 12 * len(TOPICS) * 2)


def gold_of(topics: int) -> model.GoldStandard:
    return model.GoldStandard("CS", [
        model.GoldTopic(f"X-CS-{t}", "DEFINITION", [model.LangText("EN", f"question {t}")],
                        [model.GoldNugget(f"N{n:03d}", f"nugget {n}", None, [f"D{n}", "D0"], [("as1", True), ("as2", n % 2 == 0)])
                         for n in range(1, 6)]) for t in range(topics)])


def test_a_gold_import_sends_as_many_statements_for_4_topics_as_for_40_and_replaces_whole(store):
    from sepia.store.models import Nugget, NuggetSource, Vote

    counts = []
    for topics in (4, 40):
        with store.transaction() as session:
            delete_all(session)
        with store.transaction() as session, Statements(store.engine) as statements:
            assert import_gold(session, gold_of(topics)) == topics * 5
        counts.append(statements.count)
    assert counts[0] == counts[1]
    with store.transaction() as session:
        with pytest.raises(ImportRefused):
            import_gold(session, gold_of(1))
    with store.transaction() as session:  # replacing swaps the nuggets whole, their votes and sources too
        import_gold(session, model.GoldStandard("CS", [model.GoldTopic("X-CS-0", "DEFINITION", [], [
            model.GoldNugget("N009", "only nugget", 2.0, vital_count=1, voter_count=3)])]), replace=True)
    with store.transaction() as session:
        nuggets = session.execute(select(Nugget.label, Nugget.weight, Nugget.vital_count, Nugget.voter_count)
                                  .where(Nugget.topic_id == "X-CS-0")).all()
        assert [tuple(n) for n in nuggets] == [("N009", 2.0, 1, 3)]
        assert session.scalar(select(func.count()).select_from(Vote)) == 39 * 5 * 2
        assert session.scalar(select(func.count()).select_from(NuggetSource)) == 39 * 5 * 2
        exported = export_gold(session, topic_ids=["X-CS-7"])
    back, sent = exported.topics[0].nuggets[1], gold_of(8).topics[7].nuggets[1]
    assert (back.nugget_id, back.text, back.sources, back.votes) == (sent.nugget_id, sent.text, sent.sources, sent.votes)
    assert [q.text for q in exported.topics[0].questions] == ["question 7"]


# ---------------------------------------------------------------- `sepia import` of a judgments TSV

class Counted(model.Judgment):
    """A Judgment counting how many of its kind are alive at once."""
    alive = peak = 0

    def __new__(cls, *_args, **_kwargs):
        Counted.alive += 1
        Counted.peak = max(Counted.peak, Counted.alive)
        return super().__new__(cls)

    def __del__(self):
        Counted.alive -= 1


def judgments_tsv(path, assessors: int, runs: int = 12, repeat: int = 0) -> int:
    """A TSV judging every stored answer once per assessor, its first `repeat` lines repeated at the end."""
    rows = ["\t".join((j.topic_id, j.run_id, str(j.answer_rank), j.nugget_id, "1", f"as{a}"))
            for a in range(assessors) for j in judgments_of(runs)]
    path.write_text("\n".join([HEADER_LINE, *rows, *rows[:repeat]]) + "\n", encoding="utf-8")
    return len(rows)


HEADER_LINE = "topic_id\trun_id\tanswer_rank\tnugget_id\tmatch\tassessor"


def test_sepia_import_reads_a_judgments_file_a_line_at_a_time(store, on_store, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from sepia.cli import main
    from sepia.formats import judgments

    stored_runs_and_nuggets(store, 12)
    path = tmp_path / "j.tsv"
    lines = judgments_tsv(path, assessors=5)
    monkeypatch.setattr(judgments, "Judgment", Counted)
    monkeypatch.setattr(Counted, "peak", 0)
    result = CliRunner().invoke(main, ["import", str(path)])
    assert result.exit_code == 0, result.output
    assert f"imported {lines} judgments" in result.output
    assert lines == 720 and Counted.peak <= 2  # one line's judgment at a time, not the file's 720
    with store.transaction() as session:
        assert session.scalar(select(func.count()).select_from(NuggetJudgment)) == lines


def test_sepia_import_refuses_a_file_with_duplicates_listing_them_as_validate_does(store, on_store, tmp_path):
    from click.testing import CliRunner

    from sepia.cli import main
    from sepia.formats.errors import MAX_PROBLEMS
    from sepia.formats.validate import validate_file

    stored_runs_and_nuggets(store, 12)
    path = tmp_path / "j.tsv"
    judgments_tsv(path, assessors=8, repeat=MAX_PROBLEMS + 3)  # 1,152 lines, then 1,003 repeated
    with path.open("a", encoding="utf-8") as out:
        out.write("X-CS-1\tR\t0\tN001\t2\tas1\n")  # a line with 2 problems: counted past the cap
    result = CliRunner().invoke(main, ["import", str(path)])
    assert result.exit_code == 1
    expected = [str(p) for p in validate_file(path)[1]]
    assert expected[0] == f"{path}:1154:1: same judgment already given on line 2"
    assert expected[-1].endswith(":2154:1: 5 more problems not shown") and len(expected) == MAX_PROBLEMS + 1
    assert result.stderr.splitlines() == [*expected, "nothing imported: fix the problems above"]
    with store.transaction() as session:
        assert session.scalar(select(func.count()).select_from(NuggetJudgment)) == 0


def test_an_import_naming_no_stored_nugget_lists_the_first_1000_unknown_ones(store):
    from sepia.formats.errors import MAX_PROBLEMS

    stored_runs_and_nuggets(store, 1)
    unknown = [model.Judgment("X-CS-1", "T00-CS-CS-01-T", 1, f"M{i:04d}", 1.0, "as1") for i in range(MAX_PROBLEMS + 5)]
    with pytest.raises(ImportRefused) as refused, store.transaction() as session:
        import_judgments(session, unknown)
    assert refused.value.reasons == [f"no stored nugget M{i:04d} in topic X-CS-1" for i in range(MAX_PROBLEMS)]
