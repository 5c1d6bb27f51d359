"""Index builds that die or collide: a build killed with SIGKILL leaves no worker processes, and
the next build explains what it found; a live build's index is refused with its PID; a write lock
still held for a dead build is removed. POSIX only (signals, /proc for the worker check)."""
from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.search import indexer
from sepia.search.engine import IndexBusy
from sepia.services.documents import ingest
from sepia.services.indexing import build_index
from sepia.store.db import Store

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")


WORDS = "election turnout vaccine influenza committee announcement report council".split()


def documents(first: int, count: int) -> list[dict]:
    return [{"docid": f"D{i}", "title": f"doc {i}", "date": "",
             "body": " ".join(WORDS[(i + k) % len(WORDS)] + str(k % 50) for k in range(150))}
            for i in range(first, first + count)]


@pytest.fixture
def en_store(request, tmp_path, sepia_home, monkeypatch):
    """The store of SEPIA_DATABASE_URL with 10 English documents indexed, and as many more as
    the test's parameter says (20 by default) stored but not indexed."""
    url = f"sqlite:///{tmp_path / 'lock.db'}"
    monkeypatch.setenv("SEPIA_DATABASE_URL", url)
    store = Store(url)
    path = tmp_path / "docs.jsonl"
    for first, count in ((0, 10), (10, getattr(request, "param", 20))):
        path.write_text("".join(json.dumps({"id": d["docid"], "title": d["title"], "text": d["body"]}) + "\n"
                                for d in documents(first, count)), encoding="utf-8")
        assert ingest(store, "EN", [path], progress=False).stored == count
        if first == 0:
            build_index(store, "EN", sepia_home / "index", procs=1, progress=False)
    yield store
    store.dispose()


def children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def running(pid: int) -> bool:
    """Alive and not a zombie (an orphan's exit may wait for a reaper that never comes)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in "ZX"
    except OSError:
        return False


def wait_until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def kill_build_once_its_workers_run(*options: str) -> int:
    """Start `sepia index build --procs 2 OPTIONS`, kill it with SIGKILL as soon as two worker
    processes run, check that the workers end with it; the build's PID."""
    build = subprocess.Popen([sys.executable, "-c", "from sepia.cli import main; main()",
                              "index", "build", "--procs", "2", "--no-progress", *options],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    workers: set[int] = set()

    def both_workers_started():
        workers.update(children(build.pid))
        return len(workers) >= 2

    try:
        assert wait_until(both_workers_started, 60), \
            build.stderr.read() if build.poll() is not None else "no workers started"
        assert build.poll() is None, "the build ended before it could be killed"
        build.send_signal(signal.SIGKILL)
        build.wait()
        assert wait_until(lambda: not any(map(running, workers)), 5), "workers outlived their build"
    finally:
        for pid in filter(running, [build.pid, *workers]):
            os.kill(pid, signal.SIGKILL)
    return build.pid


@pytest.mark.parametrize("en_store", [3000], indirect=True)  # enough for worker processes
@pytest.mark.slow
def test_killed_build_leaves_no_workers_and_the_next_build_explains(en_store, sepia_home):
    build_pid = kill_build_once_its_workers_run()
    result = CliRunner().invoke(main, ["index", "build", "--no-progress"])
    assert result.exit_code == 0, result.output
    assert f"EN: the build by process {build_pid} did not finish" in result.output
    assert "3000 documents added, 3010 indexed" in result.output


def test_live_build_is_refused_with_its_pid(en_store, sepia_home):
    other = subprocess.Popen(["sleep", "30"])
    try:
        (sepia_home / "index" / "en" / indexer.BUILDER_FILE).write_text(f"{other.pid}\n")
        result = CliRunner().invoke(main, ["index", "build", "--no-progress"])
    finally:
        other.kill()
        other.wait()
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert f"error: the EN index is being written by process {other.pid}" in result.output


def test_lock_of_a_dead_build_is_removed(en_store, sepia_home, monkeypatch):
    """The builder is dead but something (its orphaned workers, here a helper) holds the lock."""
    monkeypatch.setattr(indexer, "LOCK_WAIT", 0.2)
    index = sepia_home / "index" / "en"
    dead = subprocess.Popen(["true"])
    dead.wait()
    (index / indexer.BUILDER_FILE).write_text(f"{dead.pid}\n")
    lock = os.open(index / indexer.LOCK_FILE, os.O_CREAT | os.O_WRONLY)
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        report = build_index(en_store, "EN", sepia_home / "index", procs=1, progress=False)
    finally:
        os.close(lock)
    assert report.added == 20
    assert any(f"removed the write lock held for process {dead.pid}" in note for note in report.notes)
    assert not (index / indexer.BUILDER_FILE).exists()


def test_lock_of_an_unknown_writer_is_left_alone(en_store, sepia_home, monkeypatch):
    monkeypatch.setattr(indexer, "LOCK_WAIT", 0.2)
    index = sepia_home / "index" / "en"
    lock = os.open(index / indexer.LOCK_FILE, os.O_CREAT | os.O_WRONLY)
    fcntl.flock(lock, fcntl.LOCK_EX)
    try:
        with pytest.raises(IndexBusy, match=f"locked by another writer.*{index / indexer.LOCK_FILE}"):
            build_index(en_store, "EN", sepia_home / "index", procs=1, progress=False)
    finally:
        os.close(lock)


FAILING_BUILD = """
import sys, time
from whoosh import index
from sepia.search import indexer

ix = index.create_in(sys.argv[1], indexer.schema_for("EN"))
writer = indexer.open_writer(ix, expected=3000, procs=2)

def stream():
    for i in range(400):              # two jobs: both workers start
        yield {"docid": str(i), "title": "", "date": "", "body": f"election turnout {i}"}
    time.sleep(1)                     # and go idle, waiting for more
    raise RuntimeError("the store went away")

try:
    indexer.write_documents(writer, stream())
except RuntimeError:
    print("failed", flush=True)
"""


def test_failed_parallel_build_ends(tmp_path):
    """Whoosh's cancel leaves idle workers waiting for jobs, and the failed build joining them."""
    result = subprocess.run([sys.executable, "-c", FAILING_BUILD, str(tmp_path)], capture_output=True,
                            text=True, timeout=15)
    assert result.stdout == "failed\n", result.stderr
