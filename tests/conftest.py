"""Shared fixtures: an isolated data directory for every test, and campaign stores on SQLite and,
when SEPIA_TEST_DATABASE_URL is set, on PostgreSQL (each test in a schema of its own)."""
from __future__ import annotations

import os
import uuid

import pytest

from sepia.store.db import Store

POSTGRES_URL = os.environ.get("SEPIA_TEST_DATABASE_URL")
BACKENDS = ["sqlite"] + (["postgres"] if POSTGRES_URL else [])


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
