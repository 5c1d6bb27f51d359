"""Races that used to end in silence, on each backend, with threads on connections of their own:
a run a pool holds is never replaced (its responses' ON DELETE CASCADE would drop the pool's items
and every judgment on them), a team replacing a run while the organiser builds a pool ends one way or
the other but never with a pool missing the team, and a rebuilt pool never takes an old pool's ID."""
from __future__ import annotations

import threading

import pytest
from sqlalchemy import func, select

from sepia.formats import model
from sepia.store.exchange.gold import import_gold
from sepia.store.exchange.judgments import import_judgments
from sepia.store.exchange.runs import import_run
from sepia.store.db import Store
from sepia.store.errors import ImportRefused
from sepia.store.models import NuggetJudgment, Pool, PoolEntry, Response, Run, RunTopic, pool_member
from sepia.store.pools import build_pool

TOPIC = "X-CS-1"


def qa_run(run_id, texts):
    return model.CCLQARun(model.Metadata(run_id), [
        model.CCLQATopic(TOPIC, [model.Answer(i + 1, t) for i, t in enumerate(texts)])])


def pooled(store, name) -> set[tuple[str, str]]:
    """(run ID, text) of every response the pool holds."""
    with store.transaction() as session:
        return set(session.execute(
            select(Run.run_id, Response.text).select_from(Run).join(RunTopic, RunTopic.run_id == Run.id)
            .join(Response, Response.run_topic_id == RunTopic.id)
            .join(pool_member, pool_member.c.response_id == Response.id)
            .join(PoolEntry, PoolEntry.id == pool_member.c.entry_id).join(Pool, Pool.id == PoolEntry.pool_id)
            .where(Pool.name == name)).all())


def test_a_run_a_pool_holds_is_refused_a_replacement_and_nothing_is_lost(store):
    with store.transaction() as session:
        import_run(session, qa_run("A-CS-CS-01-T", ["甲", "乙"]))
        import_run(session, qa_run("B-CS-CS-01-T", ["丙"]))
        build_pool(session, "main", "cclqa", depth=5)
    with pytest.raises(ImportRefused) as refused, store.transaction() as session:
        import_run(session, qa_run("A-CS-CS-01-T", ["丁"]), replace=True)
    assert refused.value.reasons == ["cclqa run A-CS-CS-01-T can no longer be replaced: its responses are held by "
                                     "pool main, which replacing it would lose; ask the organisers"]
    assert pooled(store, "main") == {("A-CS-CS-01-T", "甲"), ("A-CS-CS-01-T", "乙"), ("B-CS-CS-01-T", "丙")}
    with store.transaction() as session:  # a run no pool holds is still replaced
        import_run(session, qa_run("C-CS-CS-01-T", ["戊"]))
        import_run(session, qa_run("C-CS-CS-01-T", ["己"]), replace=True)


def test_a_run_with_judgments_is_refused_a_replacement(store):
    with store.transaction() as session:
        import_run(session, qa_run("A-CS-CS-01-T", ["甲"]))
        import_gold(session, model.GoldStandard("CS", [model.GoldTopic(TOPIC, "DEFINITION", nuggets=[model.GoldNugget("N001", "甲")])]))
        import_judgments(session, [model.Judgment(TOPIC, "A-CS-CS-01-T", 1, "N001", 1.0, "as1")])
    with pytest.raises(ImportRefused) as refused, store.transaction() as session:
        import_run(session, qa_run("A-CS-CS-01-T", ["丁"]), replace=True)
    assert "held by 1 nugget judgment," in refused.value.reasons[0]
    with store.transaction() as session:
        assert session.scalar(select(func.count()).select_from(NuggetJudgment)) == 1


def _at_once(*jobs):
    """Run the jobs in threads released together; each one's exception (or None)."""
    start = threading.Barrier(len(jobs))
    outcomes: list[BaseException | None] = [None] * len(jobs)

    def run(i, job):
        start.wait()
        try:
            job()
        except BaseException as error:  # noqa: BLE001 (the test looks at it)
            outcomes[i] = error

    threads = [threading.Thread(target=run, args=(i, job)) for i, job in enumerate(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return outcomes


def test_a_replacement_during_a_pool_build_never_leaves_the_team_out(store_url):
    stores = [Store(store_url) for _ in range(2)]
    try:
        for trial in range(10):
            name = f"pool{trial}"
            with stores[0].transaction() as session:
                import_run(session, qa_run(f"T{trial}-CS-CS-01-T", ["甲", "乙"]))

            def replace(trial=trial):
                with stores[0].transaction() as session:
                    import_run(session, qa_run(f"T{trial}-CS-CS-01-T", [f"new {trial}"]), replace=True)

            def build(name=name):
                with stores[1].transaction() as session:
                    build_pool(session, name, "cclqa", depth=5)

            replaced, built = _at_once(replace, build)
            assert built is None, built
            assert replaced is None or isinstance(replaced, ImportRefused), replaced
            team = {text for run_id, text in pooled(stores[0], name) if run_id == f"T{trial}-CS-CS-01-T"}
            assert team == ({f"new {trial}"} if replaced is None else {"甲", "乙"}), (trial, replaced)  # as it stands
    finally:
        for s in stores:
            s.dispose()


def test_a_rebuilt_pool_never_takes_an_old_ones_id(store):
    with store.transaction() as session:
        import_run(session, qa_run("A-CS-CS-01-T", ["甲"]))
        first = build_pool(session, "main", "cclqa", depth=5).id
    ids = [first]
    for _ in range(3):
        with store.transaction() as session:
            ids.append(build_pool(session, "main", "cclqa", depth=5, replace=True).id)
    with store.transaction() as session:
        ids.append(build_pool(session, "other", "cclqa", depth=5).id)
        assert sorted(session.scalars(select(Pool.id))) == ids[-2:]
    assert len(set(ids)) == len(ids) and ids == sorted(ids), ids
