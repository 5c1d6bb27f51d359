"""Engine and sessions for the campaign store; the schema is created by Alembic migrations."""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from sepia import config

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    # WAL lets readers (the web tool) work while an import writes; foreign keys are off by default.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def make_engine(url: str | None = None) -> Engine:
    url = url or config.database_url()
    engine = create_engine(url, future=True)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def alembic_config(engine: Engine):
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.attributes["engine"] = engine
    return cfg


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the store's schema up to date (creates every table on an empty database)."""
    from alembic import command

    command.upgrade(alembic_config(engine), revision)


class Store:
    """One database: its engine, a session factory, and transactions that commit or roll back whole."""

    def __init__(self, url: str | None = None, migrate: bool = True):
        self.engine = make_engine(url)
        if migrate:
            upgrade(self.engine)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """A session whose work is committed at the end, or rolled back entirely on any error."""
        with self.sessions() as session, session.begin():
            yield session

    def dispose(self) -> None:
        self.engine.dispose()


def open_store(url: str | None = None) -> Store:
    return Store(url)
