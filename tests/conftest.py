"""Shared fixtures: an isolated data directory for every test, and campaign stores on SQLite and,
when SEPIA_TEST_DATABASE_URL is set, on PostgreSQL (each test in a schema of its own)."""
from __future__ import annotations

import os
import shutil
import uuid

import pytest

from sepia.store import db
from sepia.store.db import Store

POSTGRES_URL = os.environ.get("SEPIA_TEST_DATABASE_URL")
BACKENDS = ["sqlite"] + (["postgres"] if POSTGRES_URL else [])


def pytest_collection_modifyitems(items):
    """The longest tests first: the browser tests (marked, or in tests/browser), then those marked slow,
    then the rest (a stable sort, so each group keeps its files' order). `make test` hands whole files to
    the workers in this order (pytest-xdist's --dist loadfile --no-loadscope-reorder), so the long files
    start at once and the many short ones fill in around them: the last file a worker takes is a short
    one, and no core waits idle at the end behind a 40 s browser walk."""
    def group(item) -> int:
        if item.get_closest_marker("browser") or item.path.parent.name == "browser":
            return 0
        return 1 if item.get_closest_marker("slow") else 2

    items.sort(key=group)


def pytest_configure(config):
    config.addinivalue_line("markers", "real_migrations: new stores run every migration, not a copy of what they did")


class MigratedTemplate:
    """New stores as the migrations leave them, without running the migrations for each: on SQLite a
    copy of a store migrated once per test process; on PostgreSQL, in a new schema, the statements the
    migrations ran in an empty one (captured once per process, run again in one transaction). The
    migrations take 0.1-0.3 s of CPU on SQLite (244 new stores a run) and 1.8-2.1 s of wall time on
    PostgreSQL, a copy 0.01 s and a replay 1.1-1.5 s. tests/test_store_migrations.py checks the copies against the
    migrations and the models; the tests marked `real_migrations` run the migrations themselves."""

    def __init__(self, folder):
        self.folder = folder
        self.path = None
        self.statements = None
        self.migrate = db.upgrade

    def upgrade(self, engine, revision: str = "head") -> None:
        if revision == "head" and engine.dialect.name == "postgresql":
            self._replay(engine)
        database = engine.url.database if engine.dialect.name == "sqlite" else None
        if (revision == "head" and database and database != ":memory:" and not engine.url.query
                and not os.path.exists(database) and os.access(os.path.dirname(os.path.abspath(database)), os.W_OK)):
            with db._migration_lock(engine):  # as the migrations do: one writer of a new file
                if not os.path.exists(database):
                    shutil.copyfile(self.template(), database)
        self.migrate(engine, revision)  # at head already after a copy: it checks and returns

    def template(self):
        if self.path is None:
            path = self.folder / "template.db"
            store = Store(f"sqlite:///{path}", migrate=False)
            self.migrate(store.engine)
            with store.engine.connect() as connection:
                connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
            store.dispose()
            self.path = path
        return self.path

    def _replay(self, engine) -> None:
        statements = self.postgres_statements()
        with db._migration_lock(engine), engine.begin() as connection:
            if connection.exec_driver_sql("SELECT to_regclass('alembic_version')").scalar() is not None:
                return  # not an empty schema: the migrations see to it
            cursor = connection.connection.cursor()
            for statement, parameters, many in statements:  # exactly as the migrations ran them
                (cursor.executemany if many else cursor.execute)(statement, parameters)

    def postgres_statements(self):
        """What the migrations of an empty schema wrote (their reads, SELECTs, left out), in order."""
        if self.statements is None:
            from sqlalchemy import event, text

            admin, schema, url = _postgres_schema_url()
            engine = db.make_engine(url)
            ran = []
            event.listen(engine, "before_cursor_execute",
                         lambda _c, _cursor, statement, parameters, _x, many: ran.append((statement, parameters, many)))
            try:
                self.migrate(engine)
            finally:
                engine.dispose()
                with admin.begin() as connection:
                    connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
                admin.dispose()
            writes = [s for s in ran if not s[0].lstrip().upper().startswith("SELECT")]
            assert writes and not any(schema in s[0] for s in writes), "a migration names its schema"
            self.statements = writes
        return self.statements


@pytest.fixture(scope="session")
def migrated_template(tmp_path_factory):
    return MigratedTemplate(tmp_path_factory.mktemp("migrated"))


@pytest.fixture(autouse=True)
def new_stores_from_the_template(request, migrated_template, monkeypatch):
    if request.node.get_closest_marker("real_migrations") is None:
        monkeypatch.setattr(db, "upgrade", migrated_template.upgrade)


@pytest.fixture(autouse=True)
def sepia_home(tmp_path, monkeypatch):
    home = tmp_path / "sepia-home"
    monkeypatch.setenv("SEPIA_HOME", str(home))
    monkeypatch.delenv("SEPIA_DATABASE_URL", raising=False)
    return home


def _postgres_schema_url():
    from sqlalchemy import create_engine, text

    schema = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(POSTGRES_URL)
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    separator = "&" if "?" in POSTGRES_URL else "?"
    return admin, schema, f"{POSTGRES_URL}{separator}options=-csearch_path%3D{schema}"


# The fixtures that migrate a test's store first thing, before the test sees it (these here; `web` of
# test_web_hardening_two, `disputed` of test_web_adjudication_race and `store_with_collection` of
# test_hostile_files, through Store(store_url)): such a test is given an emptied PostgreSQL schema at
# head from its process's pool (SchemaPool) instead of a new one.
MIGRATED_AT_SETUP = {"store", "campaign_store", "web", "disputed", "store_with_collection"}


class SchemaPool:
    """PostgreSQL schemas at head emptied for the next test that wants a migrated store. A new schema
    costs a replay of the migrations and DROP SCHEMA at the end, both many files written and
    synced (0.2 s on a quiet machine, 1.8 s on a busy one); emptying its tables and restarting its
    sequences costs 0.01-0.07 s. A schema whose structure is no longer what the migrations make (a
    test went down and up again, say) or that cannot be emptied is dropped instead."""

    FINGERPRINT = """
        SELECT md5(string_agg(replace(x, current_schema() || '.', ''), ',' ORDER BY x)) FROM (
            SELECT c.relname || ':' || c.relkind::text || ':' || a.attnum || ':' || a.attname || ':' || a.atttypid::text
                   || ':' || a.attnotnull::text || ':' || a.attisdropped::text
                   || ':' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
            FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid
            LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
            WHERE c.relnamespace = current_schema()::regnamespace AND a.attnum > 0
            UNION ALL SELECT conname || ':' || pg_get_constraintdef(oid) FROM pg_constraint
            WHERE connamespace = current_schema()::regnamespace
            UNION ALL SELECT indexname || ':' || indexdef FROM pg_indexes WHERE schemaname = current_schema()
            UNION ALL SELECT 'version:' || version_num FROM alembic_version) s(x)"""

    def __init__(self, template: MigratedTemplate):
        self.template = template
        self.free: list[tuple[str, str]] = []  # (schema, URL)
        self.fingerprint = None  # of a schema the replay just made

    def take(self) -> tuple[str, str]:
        if self.free:
            return self.free.pop()
        admin, schema, url = _postgres_schema_url()
        admin.dispose()
        engine = db.make_engine(url)
        try:
            self.template._replay(engine)
            if self.fingerprint is None:
                with engine.connect() as connection:
                    self.fingerprint = connection.exec_driver_sql(self.FINGERPRINT).scalar()
        finally:
            engine.dispose()
        return schema, url

    def give_back(self, schema: str, url: str) -> None:
        engine = db.make_engine(url)
        try:
            with engine.begin() as connection:
                if connection.exec_driver_sql(self.FINGERPRINT).scalar() != self.fingerprint:
                    raise LookupError("not the schema the migrations make")
                tables = connection.exec_driver_sql(
                    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
                    "AND tablename <> 'alembic_version'").scalars().all()
                sequences = connection.exec_driver_sql(
                    "SELECT sequencename FROM pg_sequences WHERE schemaname = current_schema()").scalars().all()
                connection.exec_driver_sql("SET LOCAL session_replication_role = replica")  # no foreign-key order
                connection.exec_driver_sql("; ".join([f'DELETE FROM "{t}"' for t in tables]
                                                     + [f'ALTER SEQUENCE "{q}" RESTART' for q in sequences]))
        except Exception:  # noqa: BLE001 - any doubt, and the schema goes
            _drop_schema(schema)
            return
        finally:
            engine.dispose()
        self.free.append((schema, url))

    def close(self) -> None:
        for schema, _url in self.free:
            _drop_schema(schema)
        self.free.clear()


@pytest.fixture(scope="session")
def schema_pool(migrated_template):
    pool = SchemaPool(migrated_template)
    yield pool
    pool.close()


def _drop_schema(schema: str) -> None:
    from sqlalchemy import create_engine, text

    admin = create_engine(POSTGRES_URL)
    try:
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    finally:
        admin.dispose()


@pytest.fixture(params=BACKENDS)
def store_url(request, tmp_path):
    """A database URL for an empty store, on each backend available (on PostgreSQL at head already
    when a fixture of MIGRATED_AT_SETUP would migrate it anyway, the test's migrations not real)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.db'}"
        return
    if MIGRATED_AT_SETUP & set(request.fixturenames) and request.node.get_closest_marker("real_migrations") is None:
        pool = request.getfixturevalue("schema_pool")
        schema, url = pool.take()
        try:
            yield url
        finally:
            pool.give_back(schema, url)
        return
    admin, schema, url = _postgres_schema_url()
    admin.dispose()
    try:
        yield url
    finally:
        _drop_schema(schema)


@pytest.fixture
def store(store_url):
    s = Store(store_url)
    yield s
    s.dispose()


@pytest.fixture
def on_store(store_url, monkeypatch):
    """The commands' store (SEPIA_DATABASE_URL) is the test's, on each backend."""
    monkeypatch.setenv("SEPIA_DATABASE_URL", store_url)
    return store_url


def _import(*paths):
    from click.testing import CliRunner

    from sepia.cli import main

    result = CliRunner().invoke(main, ["import", *map(str, paths)])
    assert result.exit_code == 0, result.output


@pytest.fixture
def campaign_store(on_store):
    """Every sample collection imported with `sepia import`, on each backend."""
    from sepia.demo import collection_files, sample_collections
    from sepia.resources import resource_dir

    for folder in sample_collections(resource_dir("corpora")):
        files = collection_files(folder)
        runs = sorted((folder / "runs").glob("*.xml")) + sorted((folder / "ir4qa").glob("*.xml"))
        _import(files["topics"], files["gold"], *runs, files["judgments"], files["qrels"])
    campaign = Store(on_store)
    yield campaign
    campaign.dispose()


@pytest.fixture
def plan_campaign(store, on_store):
    """The CS sample's topics, gold standard and runs imported with `sepia import`, for judging plans."""
    from sepia.resources import resource_dir

    cs = resource_dir("corpora") / "cs"
    _import(cs / "topics.xml", cs / "gold.xml", *sorted((cs / "runs").glob("*.xml")))
    return store


@pytest.fixture
def app(tmp_path):
    """The web tool on a copy of a store holding web_helpers' accounts and documents (SQLite only)."""
    from web_helpers import web_app

    application = web_app(tmp_path)
    yield application
    application.extensions["sepia_store"].dispose()


@pytest.fixture
def web_store(app):
    """The web tool's own store (not `store`, which is one per backend)."""
    return app.extensions["sepia_store"]
