"""A full disk under `sepia import`, whichever process opens the store first: the one documented line
on standard error, exit 1, and nothing before it that reads as success.

Alone on a store in WAL mode, SQLite must create the -wal and -shm files to open it, and says
"disk I/O error" when there is no room for them; with a server holding the store open, the failure
comes at the commit. Both are simulated in the process, and the first for real on a full tmpfs where
this machine lets the test mount one."""
from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import event, select
from sqlalchemy.engine import Engine
from sqlalchemy.pool import Pool

from sepia import diskfull
from sepia.cli import main
from sepia.resources import resource_dir
from sepia.store.db import Store
from sepia.store.models import Topic

TOPICS = resource_dir("corpora") / "cs" / "topics.xml"


@contextmanager
def failing(target, name: str, message: str, code: int):
    """Every `name` event of `target` fails as SQLite's driver would, with `message` and its code."""
    def fail(*_args):
        error = sqlite3.OperationalError(message)
        error.sqlite_errorcode = code
        raise error

    event.listen(target, name, fail)
    try:
        yield
    finally:
        event.remove(target, name, fail)


def imported(store_url: str) -> list[str]:
    store = Store(store_url)
    with store.transaction() as session:
        ids = session.scalars(select(Topic.id)).all()
    store.dispose()
    return list(ids)


def test_alone_on_a_full_disk_import_says_so_in_one_line(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 'store.db'}"
    Store(url).dispose()  # migrated; now no process has it open
    monkeypatch.setattr(diskfull, "MIN_ROOM", 1 << 62)  # no disk has that much room
    with failing(Pool, "connect", "disk I/O error", 10 | (15 << 8)):  # SQLITE_IOERR_SHMOPEN
        result = CliRunner().invoke(main, ["import", str(TOPICS)], env={"SEPIA_DATABASE_URL": url})
    assert (result.exit_code, result.stderr, result.stdout) == (1, diskfull.MESSAGE + "\n", "")
    assert imported(url) == []


def test_an_io_error_with_room_on_disk_is_not_called_a_full_disk(tmp_path):
    url = f"sqlite:///{tmp_path / 'store.db'}"
    Store(url).dispose()
    with failing(Pool, "connect", "disk I/O error", 10):
        result = CliRunner().invoke(main, ["import", str(TOPICS)], env={"SEPIA_DATABASE_URL": url})
    assert result.exit_code == 1 and isinstance(result.exception, Exception)
    assert diskfull.MESSAGE not in result.output


def test_nothing_reads_as_success_before_a_commit_the_disk_refuses(tmp_path):
    url = f"sqlite:///{tmp_path / 'store.db'}"
    server = Store(url)  # a server holding the store open
    try:
        with failing(Engine, "commit", "database or disk is full", 13):
            result = CliRunner().invoke(main, ["import", str(TOPICS)], env={"SEPIA_DATABASE_URL": url})
    finally:
        server.dispose()
    assert (result.exit_code, result.stderr, result.stdout) == (1, diskfull.MESSAGE + "\n", "")
    assert imported(url) == []


@contextmanager
def full_tmpfs(folder: Path):
    folder.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(folder)],
                      capture_output=True).returncode != 0:
        pytest.skip("this machine does not let the test mount a file system")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


@pytest.mark.skipif(sys.platform != "linux" or os.geteuid() != 0, reason="mounting a tmpfs needs Linux and root")
def test_on_a_really_full_disk_import_says_so_in_one_line(tmp_path):
    with full_tmpfs(tmp_path / "small") as folder:
        url = f"sqlite:///{folder / 'store.db'}"
        Store(url).dispose()
        filler = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT)
        try:  # fill what is left
            while os.write(filler, b"\0" * 4096):
                pass
        except OSError:
            pass
        finally:
            os.close(filler)
        env = {**os.environ, "SEPIA_DATABASE_URL": url}
        result = subprocess.run([sys.executable, "-c", "from sepia.cli import main; main()", "import", str(TOPICS)],
                                capture_output=True, text=True, env=env)
        assert (result.returncode, result.stderr, result.stdout) == (1, diskfull.MESSAGE + "\n", "")
        (folder / "filler").unlink()
        assert imported(url) == []
