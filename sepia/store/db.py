"""Engine and sessions for the campaign store; the schema is created by Alembic migrations."""
from __future__ import annotations

import fcntl
import functools
import zlib
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from sqlalchemy import create_engine, event, text, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from sepia import config

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
# How long SQLite waits for another writer before giving up with "database is locked". Writers
# queue for SQLite's one write lock; under a busy campaign on a loaded machine (load 14-16 on 2
# cores: 16 assessors judging or voting back to back, teams uploading) each holder keeps it 1-2 s
# (its thread waits for the interpreter lock between statements), so a save behind 5-10 others
# waited past 10 s and was answered 503 "busy". 30 s covers that queue and stays within what a
# browser and `sepia submit` wait; PostgreSQL, which locks rows and not the file, never queues so.
SQLITE_BUSY_TIMEOUT_MS = 30_000
# The key of the PostgreSQL advisory lock that lets one process at a time migrate the schema.
MIGRATION_LOCK_KEY = zlib.crc32(b"sepia schema migration")


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    # Per connection: how long to wait for another writer, and foreign keys (off by default).
    # WAL is the file's own setting, switched once under the migration lock (see upgrade).
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA foreign_keys=ON")
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
    """Bring the store's schema up to date (creates every table on an empty database).

    Several server processes may start on one fresh store at once: a lock lets one migrate while
    the others wait, and then find nothing left to do."""
    from alembic import command

    cfg = alembic_config(engine)
    if revision == "head" and _at_head(engine, cfg):
        return
    with _migration_lock(engine):
        _use_wal(engine)
        command.upgrade(cfg, revision)


def _use_wal(engine: Engine) -> None:
    """Put a SQLite store in WAL mode, which lets readers (the web tool) work while an import writes.

    The mode is kept in the file, so it is switched once, under the migration lock: two processes
    switching at the same moment would each hold a read lock while waiting for the other's, and
    SQLite answers such a deadlock with "database is locked" at once instead of waiting."""
    if engine.dialect.name == "sqlite":
        with engine.connect() as connection:
            connection.exec_driver_sql("PRAGMA journal_mode=WAL")


def _at_head(engine: Engine, cfg) -> bool:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        current = set(MigrationContext.configure(connection).get_current_heads())
    return current == _script_heads(cfg.get_main_option("script_location"))


@functools.cache
def _script_heads(script_location: str) -> frozenset[str]:
    """The newest revisions of the migration scripts, read once per process: reading them executes every
    script (10 ms), and every command and server process opens the store."""
    from alembic.script import ScriptDirectory

    return frozenset(ScriptDirectory(script_location).get_heads())


@contextmanager
def _migration_lock(engine: Engine) -> Iterator[None]:
    """PostgreSQL: an advisory lock held by one connection. SQLite: a lock file beside the
    database (SQLite's own locks do not cover Alembic's separate check-then-create steps)."""
    if engine.dialect.name == "postgresql":
        with engine.connect() as connection:
            connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
            try:
                yield
            finally:
                connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK_KEY})
        return
    database = engine.url.database if engine.dialect.name == "sqlite" else None
    if not database or database == ":memory:":
        yield
        return
    with open(f"{database}.migrate-lock", "a") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock_file, fcntl.LOCK_UN)


def hold(session: Session, column, *where) -> None:
    """Hold the rows of `column`'s table that match `where` until the transaction ends, before reading
    what decides a write: another transaction holding them waits, then reads what this one wrote (a
    row lock on PostgreSQL; on SQLite the write lock, so that what is read next is the latest).
    `column`, a column that is no key, is set to itself."""
    session.execute(update(column.class_).where(*where).values({column.key: column})
                    .execution_options(synchronize_session=False))


class Store:
    """One database: its engine, a session factory, and transactions that commit or roll back whole.
    As a context manager (`with Store() as store:`) it is disposed at the end, so that a command
    leaves no connection open behind it (PostgreSQL counts them against max_connections)."""

    def __init__(self, url: str | None = None, migrate: bool = True):
        self.engine = make_engine(url)
        if migrate:
            try:
                upgrade(self.engine)
            except BaseException:  # a store that failed to open is nobody's to dispose of
                self.engine.dispose()
                raise
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    @contextmanager
    def transaction(self) -> Iterator[Session]:
        """A session whose work is committed at the end, or rolled back entirely on any error."""
        with self.sessions() as session, session.begin():
            yield session

    def dispose(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc) -> None:
        self.dispose()
