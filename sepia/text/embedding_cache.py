"""A persistent cache of sentence embeddings: one SQLite file per model under SEPIA's data directory
(`embeddings/<model id>.sqlite`), one row per (role, SHA-256 of the text) holding the float32 vector's
bytes, so a text embedded by one command is never embedded again by a later one.

Processes and threads share the file through SQLite's own locking (WAL, a busy timeout); each call
opens its own connection, so nothing mutable is shared. A file that cannot be read or written never
stops a command: the first error is one warning line, and from then on the vectors are computed.
"""
from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import uuid
from contextlib import closing
from pathlib import Path
from typing import Sequence

import numpy as np

from sepia.config import home_path

log = logging.getLogger(__name__)
OFF = "SEPIA_EMBEDDINGS_CACHE"   # "0" turns the cache off
CHUNK = 500                      # keys per SELECT ... IN (...), below SQLite's variable limit
TIMEOUT = 60.0                   # seconds a writer waits for another's transaction
# a rowid table: WITHOUT ROWID stores a 1.5 kB vector in overflow pages (the file twice the size)
SCHEMA = ("CREATE TABLE IF NOT EXISTS vectors (role TEXT NOT NULL, key BLOB NOT NULL, vector BLOB NOT NULL, "
          "PRIMARY KEY (role, key))")


def enabled() -> bool:
    return os.environ.get(OFF, "1").strip() != "0"


def cache_path(model_id: str) -> Path:
    return home_path() / "embeddings" / f"{model_id}.sqlite"


def _key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class EmbeddingCache:
    """The vectors of one model (of `dim` float32 each) in the file at `path`."""

    def __init__(self, path: Path, dim: int):
        self.path = path
        self.dim = dim
        self.broken = False

    def get(self, texts: Sequence[str], role: str) -> dict[str, np.ndarray]:
        """The cached vectors among `texts` (distinct), one query per CHUNK texts; a row of another length
        than the model's (a damaged file) counts as missing."""
        if self.broken or not self.path.exists():
            return {}
        by_key = {_key(t): t for t in texts}
        keys = list(by_key)
        found: dict[str, np.ndarray] = {}
        try:
            with closing(self._connect()) as connection:
                for start in range(0, len(keys), CHUNK):
                    chunk = keys[start:start + CHUNK]
                    rows = connection.execute(
                        f"SELECT key, vector FROM vectors WHERE role = ? AND key IN ({','.join('?' * len(chunk))})",
                        [role, *chunk])
                    found.update((by_key[key], np.frombuffer(vector, "<f4").astype(np.float32))
                                 for key, vector in rows
                                 if isinstance(vector, bytes) and len(vector) == 4 * self.dim and key in by_key)
        except (sqlite3.Error, OSError) as error:
            self._fail(error)
            return {}
        return found

    def put(self, texts: Sequence[str], vectors: np.ndarray, role: str) -> None:
        """Keep `vectors[i]` as the vector of `texts[i]`: one transaction."""
        if self.broken:
            return
        rows = [(role, _key(t), np.asarray(v, "<f4").tobytes()) for t, v in zip(texts, vectors)]
        try:
            if not self.path.exists():
                self._create()
            with closing(self._connect()) as connection, connection:
                connection.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)", rows)
        except (sqlite3.Error, OSError) as error:
            self._fail(error)

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=TIMEOUT)

    def _create(self) -> None:
        """The file made whole (WAL, the table) under another name and linked into place: switching a
        shared file to WAL is refused ('database is locked') while another process does the same."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        made = self.path.parent / f".{self.path.name}.{uuid.uuid4().hex}"
        try:
            with closing(sqlite3.connect(made)) as connection:
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute(SCHEMA)
            try:
                os.link(made, self.path)
            except FileExistsError:  # another process made it first
                pass
        finally:
            made.unlink(missing_ok=True)

    def _fail(self, error: Exception) -> None:
        self.broken = True
        log.warning("warning: the embedding cache %s cannot be used (%s); the embeddings are computed",
                    self.path, error)
