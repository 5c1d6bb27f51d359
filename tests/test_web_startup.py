"""Several server processes starting at once on a fresh store: the schema is migrated once, every
process comes up, and all of them share one secret key that is never read half-written."""
from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import textwrap

import pytest
from sqlalchemy import create_engine, text

from sepia.web.security import SecretKeyError, load_secret_key

WORKERS = 4

# Each worker imports SEPIA, says so, waits for the word to go (sent to all once all have imported),
# then builds the application as a server worker does; it prints the secret key it got.
WORKER = textwrap.dedent("""
    import json, sys
    from sepia.web import create_app
    print("imported", flush=True)
    sys.stdin.readline()
    app = create_app({"DATABASE_URL": sys.argv[1]})
    print(json.dumps({"key": app.config["SECRET_KEY"]}))
""")


def start_workers(url: str, home) -> list[subprocess.CompletedProcess]:
    env = {**os.environ, "SEPIA_HOME": str(home)}
    env.pop("SEPIA_SECRET_KEY", None)
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, url], env=env, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(WORKERS)]
    for p in procs:
        p.stdout.readline()  # "imported" ("" from one that failed: its error shows below)
    for p in procs:
        with contextlib.suppress(BrokenPipeError):
            p.stdin.write("go\n")
            p.stdin.flush()
    answers = [p.communicate(timeout=120) for p in procs]
    return [subprocess.CompletedProcess(p.args, p.returncode, out, err) for p, (out, err) in zip(procs, answers)]


@pytest.mark.slow
def test_workers_starting_together_on_a_fresh_store_all_come_up(store_url, sepia_home):
    results = start_workers(store_url, sepia_home)
    for result in results:
        assert result.returncode == 0, result.stderr[-2000:]
    keys = {json.loads(result.stdout)["key"] for result in results}
    assert len(keys) == 1 and len(keys.pop()) == 64
    engine = create_engine(store_url)
    with engine.connect() as connection:
        versions = connection.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
    engine.dispose()
    from alembic.script import ScriptDirectory

    from sepia.store.db import alembic_config

    assert versions == list(ScriptDirectory.from_config(alembic_config(None)).get_heads())


def test_an_empty_key_file_is_named_with_the_fix(sepia_home, monkeypatch):
    monkeypatch.delenv("SEPIA_SECRET_KEY", raising=False)
    sepia_home.mkdir(parents=True, exist_ok=True)
    (sepia_home / "secret_key").write_bytes(b"")  # what a full disk left behind
    with pytest.raises(SecretKeyError, match="empty or damaged.*Delete it"):
        load_secret_key()


def test_a_key_that_cannot_be_written_says_why(sepia_home, monkeypatch):
    monkeypatch.delenv("SEPIA_SECRET_KEY", raising=False)
    sepia_home.mkdir(parents=True, exist_ok=True)
    os.chmod(sepia_home, 0o500)
    if os.access(sepia_home, os.W_OK):  # root writes anywhere: fake the full disk instead
        os.chmod(sepia_home, 0o700)

        def full(*_args, **_kwargs):
            raise OSError(28, "No space left on device")

        monkeypatch.setattr(os, "fsync", full)
    try:
        with pytest.raises(SecretKeyError, match="Cannot write the secret key"):
            load_secret_key()
    finally:
        os.chmod(sepia_home, 0o700)
    assert [p.name for p in sepia_home.iterdir()] == []  # no half-written key left behind


@pytest.mark.slow
def test_concurrent_voting_against_the_production_start_loses_no_vote(store_url):
    # tools/load_voting.py makes its own fresh store: on PostgreSQL from the base URL.
    base = None if store_url.startswith("sqlite") else os.environ["SEPIA_TEST_DATABASE_URL"]
    command = [sys.executable, "tools/load_voting.py", "--seconds", "4", "--assessors", "8", "--topics", "6",
               "--workers", "2", "--threads", "4"] + (["--database-url", base] if base else [])
    result = subprocess.run(command, capture_output=True, text=True, timeout=300,
                            cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert result.returncode == 0 and "OK: no vote lost" in result.stdout, result.stdout + result.stderr[-3000:]
    header, row = result.stdout.splitlines()[1:3]
    counts = dict(zip(header.split("\t"), row.split("\t")))
    assert int(counts["submits"]) > 0 and int(counts["nuggets added"]) > 0
    assert counts["lost"] == counts["duplicated"] == counts["phantom"] == counts["5xx"] == "0"
