"""SQLite's writers queue for one write lock: a write waits its turn instead of answering "busy"."""
from __future__ import annotations

import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import text

from sepia.store.db import Store

ROOT = Path(__file__).resolve().parents[1]
# Long enough to see the write queue behind the holder (past pysqlite's own 5 s default would take a
# worker's whole share of the suite's time); that it would queue past the 10 s it waited before issue
# 34 is read from the connection itself, below.
HELD_SECONDS = 2.0


def test_a_write_waits_behind_a_writer_that_holds_the_lock_past_ten_seconds(tmp_path):
    store = Store(f"sqlite:///{tmp_path / 'store.db'}")
    with store.transaction() as session:  # the wait SQLite applies on the store's own connections
        assert session.execute(text("PRAGMA busy_timeout")).scalar_one() >= 20_000
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


@pytest.mark.slow
def test_votes_while_teams_upload_runs_on_the_production_start_get_no_busy_answer():
    """tools/load_uploads.py on SQLite: assessors vote alone, then while two teams upload 2 MB runs one after another
    over the API (the mixed writers of issue 34's load); it exits 1 on any 5xx, 503 "busy" included. The assessors
    vote alone for a second (enough for saves: each starts its first vote at once) and with the uploads for four."""
    command = [sys.executable, "tools/load_uploads.py", "--seconds", "4", "--alone-seconds", "1", "--assessors", "8",
               "--uploaders", "2", "--upload-topics", "30", "--workers", "2", "--threads", "4"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 0 and "FAILED" not in result.stdout, result.stdout + result.stderr[-3000:]
    phases = {line.split("\t")[0]: line.split("\t") for line in result.stdout.splitlines()[2:4]}
    assert int(phases["without uploads"][1]) > 0 and int(phases["with uploads"][1]) > 0  # saves made
    statuses = phases["with uploads"][5].split()
    assert len(statuses) == 1 and statuses[0].startswith("201x")  # every upload stored, none refused
