"""Settings read from the environment, with embedded defaults under one data directory."""
from __future__ import annotations

import os
from pathlib import Path

DEFAULT_MAX_XML_BYTES = 64 * 1024 * 1024
DEFAULT_MAX_DOCUMENT_BYTES = 16 * 1024 * 1024


def home_path() -> Path:
    """Where the data directory is (SEPIA_HOME, default ~/.sepia), without creating it."""
    return Path(os.environ.get("SEPIA_HOME") or Path.home() / ".sepia").expanduser()


def sepia_home() -> Path:
    """The data directory holding the SQLite store and the indexes, created when missing."""
    home = home_path()
    home.mkdir(parents=True, exist_ok=True)
    return home


def database_url() -> str:
    """SEPIA_DATABASE_URL if set (any SQLAlchemy URL), else SQLite in the data directory."""
    return os.environ.get("SEPIA_DATABASE_URL") or f"sqlite:///{sepia_home() / 'sepia.db'}"


def sqlite_directory(url: str | None = None) -> Path | None:
    """The directory of the store's SQLite file (of `url`, else of database_url()); None for another database."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url or database_url())
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    return Path(parsed.database).resolve().parent


def index_dir() -> Path:
    path = sepia_home() / "index"
    path.mkdir(parents=True, exist_ok=True)
    return path


def max_xml_bytes() -> int:
    """Files larger than this are refused before parsing (SEPIA_MAX_XML_BYTES)."""
    value = os.environ.get("SEPIA_MAX_XML_BYTES")
    return int(value) if value else DEFAULT_MAX_XML_BYTES


def max_document_bytes() -> int:
    """Collection documents (and lines) longer than this are skipped unread (SEPIA_MAX_DOCUMENT_BYTES)."""
    value = os.environ.get("SEPIA_MAX_DOCUMENT_BYTES")
    return int(value) if value else DEFAULT_MAX_DOCUMENT_BYTES
