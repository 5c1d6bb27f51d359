#!/usr/bin/env python
"""Benchmark: the memory and time a large run costs, beside issue 20's aims.

    .venv/bin/python tools/bench_run_memory.py                    # the issue's shapes (a few minutes)
    .venv/bin/python tools/bench_run_memory.py --topics 90 --uploads 3 --upload-topics 25   # quick look

- `sepia validate` and `sepia import` of an IR4QA run of TOPICS x 1,000 documents (900: 59 MB, under
  the 64 MiB limit), each in a process of its own: peak RSS against 5 x the file's size + the
  baseline, the peak of the same command on a one-topic run (the interpreter and the modules it loads);
  the import's wall time against 15 s (the store holds the run's topics first, as a campaign's does);
- a gunicorn worker (the production start of docs/web.md, one worker) after UPLOADS uploads of a
  16 MB run over /api/runs: its RSS against its RSS after one small upload, aim within 100 MB.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from runfiles import ir4qa_run, seed_campaign, topics_file, upload, write_ir4qa_run  # noqa: E402
from webload import BIN, _children, fresh_database, production_server, server_env  # noqa: E402

from sepia.web.app import DEFAULT_MAX_UPLOAD_BYTES  # noqa: E402

MB = 1024 * 1024
RUN_ID, TINY_ID = "BENCH-CS-CS-01-T", "BENCH-CS-CS-02-T"


# A child's peak RSS starts at its parent's RSS at the fork (Linux keeps it across exec), so each
# command is started by a small interpreter of its own, not by this process and the runs it made.
LAUNCHER = """
import os, subprocess, sys, time
started = time.perf_counter()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_pid, status, usage = os.wait4(child.pid, 0)
print(usage.ru_maxrss, time.perf_counter() - started, status)
"""


def measured(command: list[str], env: dict) -> tuple[float, float]:
    """Peak RSS (MB) and wall time (s) of a command in a process of its own; it must succeed."""
    done = subprocess.run([sys.executable, "-c", LAUNCHER, *command], env=env, capture_output=True, text=True)
    peak_kb, elapsed, status = done.stdout.split()
    if done.returncode or int(status):
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr[-2000:]}")
    return int(peak_kb) / 1024, float(elapsed)


def worker_rss(server_pid: int) -> float:
    (worker,) = _children(server_pid)
    status = Path(f"/proc/{worker}/status").read_text()
    return int(status.split("VmRSS:")[1].split()[0]) / 1024


def row(what: str, value: float, unit: str, aim: str, met: bool) -> None:
    print(f"{what:<34}{value:>10.1f} {unit:<3}  aim {aim:<28}{'met' if met else 'NOT MET'}", flush=True)


def command_figures(args, folder: Path) -> None:
    run, tiny, topics = folder / f"{RUN_ID}.xml", folder / f"{TINY_ID}.xml", folder / "topics.xml"
    write_ir4qa_run(run, RUN_ID, args.topics, 1000)
    write_ir4qa_run(tiny, TINY_ID, 1, 10)
    topics.write_bytes(topics_file(args.topics))
    size = run.stat().st_size / MB
    home = folder / "home"
    home.mkdir()
    url, drop = fresh_database(args.database_url, home)
    env = server_env(home, url)
    sepia = str(BIN / "sepia")
    subprocess.run([sepia, "db", "upgrade"], env=env, check=True, capture_output=True)
    subprocess.run([sepia, "import", str(topics)], env=env, check=True, capture_output=True)
    print(f"# run: {args.topics} topics x 1,000 documents, {size:.1f} MB; baselines: the same command on a "
          "one-topic run")
    for command in ("validate", "import"):
        baseline, _ = measured([sepia, command, str(tiny)], env)
        peak, elapsed = measured([sepia, command, str(run)], env)
        aim = 5 * size + baseline
        row(f"sepia {command}: peak RSS", peak, "MB", f"<= 5 x {size:.0f} + {baseline:.0f} = {aim:.0f}", peak <= aim)
    row("sepia import: wall time", elapsed, "s", "< 15", elapsed < 15)
    drop()


def worker_figures(args, folder: Path) -> None:
    home = folder / "web"
    home.mkdir()
    url, drop = fresh_database(args.database_url, home)
    env = server_env(home, url)
    subprocess.run([str(BIN / "sepia"), "db", "upgrade"], env=env, check=True, capture_output=True)
    seed_campaign(url, args.upload_topics)
    big = ir4qa_run(RUN_ID, args.upload_topics, 1000)
    if len(big) > DEFAULT_MAX_UPLOAD_BYTES - 64 * 1024:
        raise SystemExit(f"--upload-topics {args.upload_topics} makes {len(big):,} bytes, over the upload limit")
    with production_server(env, 1, 4) as server:
        status, answer = upload(server.port, ir4qa_run(RUN_ID, 2, 10), "small.xml")
        if status != 201:
            raise SystemExit(f"the small upload was refused ({status}): {answer}")
        before = worker_rss(server.pid)
        for number in range(args.uploads):
            status, answer = upload(server.port, big, f"big{number}.xml")
            if status != 201:
                raise SystemExit(f"upload {number + 1} was refused ({status}): {answer}")
        time.sleep(1)
        after = worker_rss(server.pid)
    drop()
    print(f"# worker: {args.uploads} uploads of {len(big) / MB:.1f} MB ({args.upload_topics} topics x 1,000 "
          f"documents); RSS {before:.0f} MB after one small upload, {after:.0f} MB after them")
    row("worker RSS growth", after - before, "MB", "<= 100", after - before <= 100)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--topics", type=int, default=900, help="topics of the large run (x 1,000 documents)")
    parser.add_argument("--uploads", type=int, default=10)
    parser.add_argument("--upload-topics", type=int, default=240, help="topics of each upload: 240 make 16 MB")
    parser.add_argument("--database-url", help="PostgreSQL base URL (a fresh schema is made); default SQLite")
    parser.add_argument("--only", choices=("commands", "worker"), help="one of the two parts")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sepia-bench-run-") as folder:
        if args.only != "worker":
            command_figures(args, Path(folder))
        if args.only != "commands":
            worker_figures(args, Path(folder))
    return 0


if __name__ == "__main__":
    sys.exit(main())
