"""The Alembic migrations build exactly the schema the models describe, on every backend."""
import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from sepia.store.models import Base

pytestmark = pytest.mark.real_migrations  # these check what the migrations themselves build


def test_migrations_match_the_models(store):
    with store.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []
    tables = set(inspect(store.engine).get_table_names())
    assert set(Base.metadata.tables) <= tables and "alembic_version" in tables


def test_sqlite_store_uses_wal_and_foreign_keys(tmp_path):
    from sepia.store.db import Store

    store = Store(f"sqlite:///{tmp_path / 'wal.db'}")
    with store.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    store.dispose()


def test_opening_a_connection_takes_no_lock_while_another_process_writes(tmp_path, monkeypatch):
    # Connecting used to switch the file to WAL, which needs the write lock: two processes starting
    # together could deadlock on it, and SQLite reports that as "database is locked" without waiting.
    import sqlite3

    from sepia.store import db

    path = tmp_path / "fresh.db"
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # another process holds the write lock of a fresh store
    writer.execute("CREATE TABLE t (x)")
    monkeypatch.setattr(db, "SQLITE_BUSY_TIMEOUT_MS", 100)
    engine = db.make_engine(f"sqlite:///{path}")
    try:
        with engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    finally:
        engine.dispose()
        writer.execute("ROLLBACK")
        writer.close()


def test_default_store_lives_in_sepia_home(sepia_home):
    from sepia import config

    assert config.database_url() == f"sqlite:///{sepia_home / 'sepia.db'}"


def test_the_tests_copy_of_a_migrated_store_is_what_the_migrations_build(tmp_path, migrated_template):
    """conftest.py gives a test's new SQLite store as a copy of one store migrated once: the copy has
    the tables, indexes, version and journal mode the migrations give a new file (each table's clauses
    compared as a set: a batch migration writes a table's constraints in no fixed order)."""
    import re

    from sepia.store.db import make_engine, upgrade

    def built(name, migrate):
        engine = make_engine(f"sqlite:///{tmp_path / name}")
        migrate(engine)
        with engine.connect() as connection:
            rows = connection.exec_driver_sql("SELECT type, name, sql FROM sqlite_master ORDER BY name").all()
            found = ([(kind, table, frozenset(re.split(r",?\s*\n", sql or ""))) for kind, table, sql in rows],
                     connection.exec_driver_sql("SELECT version_num FROM alembic_version").all(),
                     connection.exec_driver_sql("PRAGMA journal_mode").scalar())
        engine.dispose()
        return found

    copied = built("copied.db", migrated_template.upgrade)
    assert migrated_template.path is not None and copied == built("migrated.db", upgrade)
    assert len(copied[0]) > 20 and copied[2] == "wal"


def test_the_tests_new_stores_match_the_models_on_every_backend(store_url, migrated_template):
    """What the other tests get for a new store (a copy on SQLite, the migrations' statements run again
    on PostgreSQL) is the schema of the models, at the newest revision."""
    from alembic.script import ScriptDirectory

    from sepia.store.db import alembic_config, make_engine

    engine = make_engine(store_url)
    migrated_template.upgrade(engine)
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []
        heads = set(ScriptDirectory.from_config(alembic_config(engine)).get_heads())
        assert set(context.get_current_heads()) == heads
    engine.dispose()
    assert (migrated_template.statements if engine.dialect.name == "postgresql" else migrated_template.path)
