"""Shared fixtures: an isolated data directory for every test, and campaign stores on SQLite and,
when SEPIA_TEST_DATABASE_URL is set, on PostgreSQL (each test in a schema of its own)."""
from __future__ import annotations

import os
import uuid

import pytest

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


@pytest.fixture(params=BACKENDS)
def store_url(request, tmp_path):
    """A database URL for an empty store, on each backend available."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.db'}"
        return
    from sqlalchemy import text

    admin, schema, url = _postgres_schema_url()
    try:
        yield url
    finally:
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


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
