"""A pool build gathers its items by reads only and holds the runs (SQLite: the store's write lock)
only for its writes: another connection saves and replaces a run meanwhile without waiting, and the
pool is gathered again from the runs as they are then. A rebuild deletes the old pool in one
statement, the database's ON DELETE CASCADE taking every row that hangs on it; judgments stay."""
from __future__ import annotations

import pytest
from sqlalchemy import event, func, select, text

from sepia.formats import model
from sepia.store import models as db
from sepia.store.exchange.gold import import_gold
from sepia.store.exchange.judgments import import_judgments
from sepia.store.exchange.runs import import_run
from sepia.store.db import Store
from sepia.store.plans import make_plan
from sepia.store.pools import assign_pool, build_pool
from tests.helpers import accounts

TOPICS = ("X-CS-1", "X-CS-2")


def qa_run(run_id: str, words: str):
    return model.CCLQARun(model.Metadata(run_id), [
        model.CCLQATopic(topic, [model.Answer(1, f"{words} {topic}"), model.Answer(2, f"shared {topic}")])
        for topic in TOPICS])


def pooled_texts(store: Store, name: str) -> set[tuple[str, str]]:
    with store.transaction() as session:
        return set(session.execute(
            select(db.Run.run_id, db.Response.text).select_from(db.Pool)
            .join(db.PoolEntry, db.PoolEntry.pool_id == db.Pool.id)
            .join(db.pool_member, db.pool_member.c.entry_id == db.PoolEntry.id)
            .join(db.Response, db.Response.id == db.pool_member.c.response_id)
            .join(db.RunTopic, db.RunTopic.id == db.Response.run_topic_id).join(db.Run)
            .where(db.Pool.name == name)).all())


def impatient(store_url: str) -> Store:
    """A second store on the same database that waits at most a second for a lock, and then fails."""
    other = Store(store_url, migrate=False)

    @event.listens_for(other.engine, "connect")
    def short_wait(dbapi_connection, _record):
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA busy_timeout=1000" if other.engine.dialect.name == "sqlite" else "SET lock_timeout = '1s'")
        cursor.close()
        if other.engine.dialect.name == "postgresql":
            dbapi_connection.commit()
    return other


@pytest.mark.parametrize("change", [False, True])
def test_others_write_while_a_pool_is_gathered_and_a_replaced_run_is_pooled_as_it_is_now(store, store_url,
                                                                                          monkeypatch, change):
    from sepia.store import pools

    with store.transaction() as session:
        import_run(session, qa_run("A-CS-CS-01-T", "old"))
        import_run(session, qa_run("B-CS-CS-01-T", "b"))
    other = impatient(store_url)
    pooled = pools._pooled
    calls = []

    def meanwhile(*args):
        calls.append(1)
        if len(calls) == 1:    # while the build gathers: a save, and (change) a team replacing its run
            with other.transaction() as session:
                session.add(db.Guideline(task="cclqa", version=1, text="judge", author="org"))
            if change:
                with other.transaction() as session:
                    import_run(session, qa_run("A-CS-CS-01-T", "new"), replace=True)
        return pooled(*args)

    monkeypatch.setattr(pools, "_pooled", meanwhile)
    try:
        with store.transaction() as session:
            build_pool(session, "p", "cclqa", depth=5)
    finally:
        other.dispose()
    assert len(calls) == (2 if change else 1)   # gathered again only when the runs changed meanwhile
    words = "new" if change else "old"
    assert pooled_texts(store, "p") == {(run, f"{w} {t}") for t in TOPICS
                                        for run, w in [("A-CS-CS-01-T", words), ("B-CS-CS-01-T", "b"),
                                                       ("A-CS-CS-01-T", "shared"), ("B-CS-CS-01-T", "shared")]}
    with store.transaction() as session:
        assert session.scalar(select(func.count()).select_from(db.Guideline)) == 1


def test_a_rebuild_deletes_the_old_pool_in_one_statement_and_everything_on_it_goes(store):
    with store.transaction() as session:
        import_gold(session, model.GoldStandard("CS", [
            model.GoldTopic(t, "DEFINITION", [], [model.GoldNugget("N001", "a nugget", 1.0)]) for t in TOPICS]))
        for team in "ABC":
            import_run(session, qa_run(f"{team}-CS-CS-01-T", team))
        build_pool(session, "p", "cclqa", depth=5)
        make_plan(session, "p", "50%", "none", 1, "items")
        accounts(session, "as1", "as2")
        assign_pool(session, "p", ["as1", "as2"], overlap=1.0)
        import_judgments(session, [model.Judgment(t, "A-CS-CS-01-T", 1, "N001", 1.0, "as1") for t in TOPICS])
        old = session.scalar(select(db.Pool.id))
    hanging = {  # every table whose rows hang on a pool, and how to count those of the old one
        "pool_entry": "SELECT count(*) FROM pool_entry WHERE pool_id = :p",
        "pool_member": "SELECT count(*) FROM pool_member JOIN pool_entry ON pool_entry.id = entry_id WHERE pool_id = :p",
        "assignment": "SELECT count(*) FROM assignment JOIN pool_entry ON pool_entry.id = entry_id WHERE pool_id = :p",
        "judging_plan": "SELECT count(*) FROM judging_plan WHERE pool_id = :p",
        "plan_nugget": "SELECT count(*) FROM plan_nugget JOIN judging_plan ON judging_plan.id = plan_id WHERE pool_id = :p",
        "plan_topic": "SELECT count(*) FROM plan_topic JOIN judging_plan ON judging_plan.id = plan_id WHERE pool_id = :p"}
    with store.transaction() as session:
        before = {table: session.scalar(text(query), {"p": old}) for table, query in hanging.items()}
        all_rows = {table: session.scalar(text(f"SELECT count(*) FROM {table}")) for table in hanging}
    assert all(before.values()), before     # the old pool has rows in every one of them
    deletes: list[str] = []

    def seen(_connection, _cursor, statement, *_args):
        if statement.lstrip().upper().startswith("DELETE"):
            deletes.append(statement)

    event.listen(store.engine, "before_cursor_execute", seen)
    try:
        with store.transaction() as session:
            new = build_pool(session, "p", "cclqa", depth=5, replace=True).id
    finally:
        event.remove(store.engine, "before_cursor_execute", seen)
    assert len(deletes) == 1 and "pool" in deletes[0]
    with store.transaction() as session:
        assert {table: session.scalar(text(query), {"p": old}) for table, query in hanging.items()} == dict.fromkeys(
            hanging, 0)
        # nothing else went: the new pool's items and members are the old one's in number, judgments stay
        after = {table: session.scalar(text(f"SELECT count(*) FROM {table}")) for table in ("pool_entry", "pool_member")}
        assert after == {table: all_rows[table] for table in after}
        assert session.scalar(select(func.count()).select_from(db.NuggetJudgment)) == len(TOPICS)
        assert session.scalar(select(func.count()).select_from(db.Pool)) == 1 and new != old
