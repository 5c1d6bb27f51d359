#!/usr/bin/env python
"""Load test: do run uploads hold up other writers? An assessor's save (a pyramid vote) p95 while
teams upload 16 MB runs over the API, beside the same p95 without uploads, on one production start.

    .venv/bin/python tools/load_uploads.py                     # SQLite in a fresh data directory
    .venv/bin/python tools/load_uploads.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test

The production start of docs/web.md (gunicorn, W workers x T threads) on a fresh store; A assessors
vote topic after topic (tools/load_voting.py's assessors) for S seconds alone (or --alone-seconds),
then S seconds again while U uploaders each send a run of UPLOAD_TOPICS x 1,000 documents (16 MB at
240) to /api/runs with one personal token, one after another. Printed: the saves' count, p50 and p95
in each phase, their ratio, and the uploads' statuses and times. Issue 20 saw a save wait 8.8 s instead of 10 ms
on SQLite (an upload's pending write held the store while 16 MB were validated) and uploads with
one token serialise on PostgreSQL. Exit status 1 when a request failed with a 5xx.
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from load_voting import Tally, assessor, seed_store  # noqa: E402
from runfiles import ir4qa_run, seed_campaign, upload  # noqa: E402
from webload import BIN, Clock, fresh_database, production_server, run_all, server_env  # noqa: E402


class Uploads:
    def __init__(self):
        self.lock = threading.Lock()
        self.statuses: Counter = Counter()
        self.seconds: list[float] = []


def uploader(port: int, number: int, data: bytes, clock: Clock, uploads: Uploads) -> None:
    clock.barrier.wait()
    while time.time() < clock.deadline:
        started = time.perf_counter()
        status, _answer = upload(port, data, f"BENCH-CS-CS-0{number + 1}-T.xml")
        with uploads.lock:
            uploads.statuses[status] += 1
            uploads.seconds.append(time.perf_counter() - started)


def phase(port: int, args, topics: list[str], runs: list[bytes], seed: int, seconds: float) -> tuple[Tally, Uploads]:
    tally, uploads = Tally(), Uploads()
    clock = Clock(args.assessors + len(runs), seconds)
    threads = [threading.Thread(target=assessor, args=(port, f"assessor{i:02d}", topics, clock, tally, seed + i))
               for i in range(args.assessors)]
    threads += [threading.Thread(target=uploader, args=(port, n, run, clock, uploads)) for n, run in enumerate(runs)]
    run_all(threads)
    return tally, uploads


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) > 1 else (values[0] if values else 0.0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", help="PostgreSQL base URL (a fresh schema is made); default SQLite")
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--assessors", type=int, default=8)
    parser.add_argument("--uploaders", type=int, default=2)
    parser.add_argument("--upload-topics", type=int, default=240, help="x 1,000 documents: 240 make 16 MB")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each phase")
    parser.add_argument("--alone-seconds", type=float, help="length of the phase without uploads (default: --seconds)")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="sepia-load-uploads-"))
    url, drop = fresh_database(args.database_url, home)
    env = server_env(home, url)
    subprocess.run([str(BIN / "sepia"), "db", "upgrade"], env=env, check=True, capture_output=True)
    topics = sorted(seed_store(url, args.assessors, 400, 5))  # more topics than anyone votes on in a phase
    seed_campaign(url, args.upload_topics)
    runs = [ir4qa_run(f"BENCH-CS-CS-0{n + 1}-T", args.upload_topics, 1000) for n in range(args.uploaders)]
    alone_seconds = args.alone_seconds or args.seconds
    backend = "PostgreSQL" if args.database_url and not args.database_url.startswith("sqlite") else "SQLite"
    print(f"# {backend}: gunicorn {args.workers} workers x {args.threads} threads, {args.assessors} assessors, "
          f"{alone_seconds:g} s alone, {args.seconds:g} s with {args.uploaders} uploaders of "
          f"{len(runs[0]) / 2**20:.1f} MB runs, one token")
    with production_server(env, args.workers, args.threads) as server:
        alone, _ = phase(server.port, args, topics, [], 1, alone_seconds)
        loaded, uploads = phase(server.port, args, topics, runs, 1001, args.seconds)
    drop()
    print("phase\tsaves\tp50 ms\tp95 ms\tuploads\tupload statuses\tupload s (mean)")
    failed = False
    for name, tally, sent in (("without uploads", alone, None), ("with uploads", loaded, uploads)):
        latencies = tally.latencies
        statuses = " ".join(f"{s}x{n}" for s, n in sorted(sent.statuses.items())) if sent else "-"
        mean = f"{statistics.mean(sent.seconds):.1f}" if sent and sent.seconds else "-"
        print(f"{name}\t{len(latencies)}\t{1000 * statistics.median(latencies):.1f}\t{1000 * p95(latencies):.1f}\t"
              f"{len(sent.seconds) if sent else 0}\t{statuses}\t{mean}")
        failed |= any(s >= 500 for s in tally.statuses) or bool(sent and any(s >= 500 for s in sent.statuses))
    print(f"p95 with uploads / without: {p95(loaded.latencies) / p95(alone.latencies):.2f}")
    if failed:
        print("FAILED: a request answered 5xx")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
