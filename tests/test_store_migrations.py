"""The Alembic migrations build exactly the schema the models describe, on every backend."""
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from sepia.store.models import Base


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


def test_default_store_lives_in_sepia_home(sepia_home):
    from sepia import config

    assert config.database_url() == f"sqlite:///{sepia_home / 'sepia.db'}"
