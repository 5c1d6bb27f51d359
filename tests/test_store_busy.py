"""SQLite's writers queue for one write lock: a write waits its turn instead of answering "busy"."""
from __future__ import annotations

import sqlite3
import threading
import time

import pytest
from sqlalchemy import text

from sepia.store.db import Store

# Longer than the 10 s a writer waited before issue 34, shorter than the wait now.
HELD_SECONDS = 12.0


@pytest.mark.slow
def test_a_write_waits_behind_a_writer_that_holds_the_lock_past_ten_seconds(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    holder = sqlite3.connect(tmp_path / "store.db", isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    release = threading.Timer(HELD_SECONDS, lambda: holder.execute("ROLLBACK"))
    release.start()
    started = time.monotonic()
    try:
        with store.transaction() as session:
            session.execute(text("INSERT INTO topic_set (name, description, created_at) "
                                 "VALUES ('waited', '', CURRENT_TIMESTAMP)"))
    finally:
        release.join()
        holder.close()
    waited = time.monotonic() - started
    with store.transaction() as session:
        names = session.scalars(text("SELECT name FROM topic_set")).all()
    store.dispose()
    assert names == ["waited"] and waited >= HELD_SECONDS - 0.5
