#!/usr/bin/env python
"""Benchmark: the web tool's pages under concurrent clients, against the documented production start.

    .venv/bin/python tools/bench_web.py                  # 16 clients, 20 s, the sample campaign
    .venv/bin/python tools/bench_web.py --clients 32 --seconds 60

Builds the sample campaign in a fresh data directory (`sepia demo --no-serve`: store and search
indexes), starts `gunicorn --workers 3 --threads 8 'sepia.web:create_app()'` and drives it over
loopback with half the clients as assessors (the voting page) and half as topic developers (nugget
page, topic page, the search pane with a query in the topic's language). A trivial request (the style sheet,
served by the same application) is timed in the same run as the baseline. Prints p50 and p95 per page beside the aim (p95
under 50 ms) and the ratio to the baseline, with the machine's load.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from webload import BIN, PASSWORD, Client, production_server, run_all, server_env  # noqa: E402

from sepia.store.db import Store  # noqa: E402
from sepia.store.models import Topic  # noqa: E402
from sepia.web.accounts import create_user  # noqa: E402

AIM_MS = 50.0


def prepare(home: Path, clients: int) -> list[tuple[str, str, str]]:
    """The sample campaign with accounts; returns (topic ID, language, query) of each topic with nuggets."""
    subprocess.run([str(BIN / "sepia"), "demo", "--no-serve", "--home", str(home)], env=server_env(home, None),
                   check=True, capture_output=True)
    store = Store(f"sqlite:///{home / 'sepia.db'}")
    with store.transaction() as session:
        for i in range(clients):
            role = "assessor" if i % 2 == 0 else "topic_developer"
            create_user(session, f"bench{i:02d}", PASSWORD, role)
        topics = []
        for topic in session.query(Topic).filter(Topic.nuggets.any()).order_by(Topic.id):
            topic.status = "completed"  # the sample topics have nuggets; voting needs them completed
            question = topic.text_of("question", topic.lang) or ""
            letters = [c for c in question if c.isalnum()]
            topics.append((topic.id, topic.lang, "".join(letters[:2])))
    store.dispose()
    return topics


def client(port: int, index: int, topics, deadline_box: list, barrier: threading.Barrier,
           timings: dict, lock: threading.Lock, seed: int) -> None:
    rng = random.Random(seed)
    browser = Client(port)
    browser.log_in(f"bench{index:02d}")
    barrier.wait()
    assessor = index % 2 == 0
    while time.time() < deadline_box[0]:
        topic_id, _lang, query = rng.choice(topics)
        if assessor:
            pages = [("voting page", f"/votes/{topic_id}")]
        else:
            pages = [("nugget page", f"/nuggets/{topic_id}"), ("topic page", f"/topics/{topic_id}"),
                     ("search pane", f"/topics/{topic_id}/search?q={quote(query)}")]
        pages.append(("trivial page (baseline)", "/static/sepia.css"))
        for name, path in pages:
            started = time.perf_counter()
            status, _ = browser.request("GET", path)
            elapsed = time.perf_counter() - started
            with lock:
                timings.setdefault(name, []).append(elapsed)
                if status != 200:
                    timings.setdefault(f"errors {status}", []).append(elapsed)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="sepia-bench-web-"))
    topics = prepare(home, args.clients)
    timings: dict[str, list[float]] = {}
    lock = threading.Lock()
    deadline_box = [0.0]
    barrier = threading.Barrier(args.clients, action=lambda: deadline_box.__setitem__(0, time.time() + args.seconds))
    with production_server(server_env(home, None), args.workers, args.threads) as (port, _errors):
        run_all([threading.Thread(target=client, args=(port, i, topics, deadline_box, barrier, timings, lock, i))
                 for i in range(args.clients)])
    load = os.getloadavg()
    print(f"# {args.clients} clients, {args.seconds:g} s, gunicorn {args.workers} workers x {args.threads} threads, "
          f"sample campaign ({len(topics)} topics); load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} "
          f"on {os.cpu_count()} cores")
    baseline = statistics.quantiles(timings["trivial page (baseline)"], n=20)[-1] * 1000
    print(f"{'page':26} {'requests':>9} {'p50 ms':>8} {'p95 ms':>8} {'aim p95':>8} {'p95/trivial':>12}")
    for name, values in sorted(timings.items()):
        p50 = statistics.median(values) * 1000
        p95 = statistics.quantiles(values, n=20)[-1] * 1000 if len(values) > 1 else p50
        aim = "" if name.startswith(("trivial", "errors")) else f"< {AIM_MS:g}"
        print(f"{name:26} {len(values):9d} {p50:8.1f} {p95:8.1f} {aim:>8} {p95 / baseline:12.2f}")
    return 1 if any(name.startswith("errors") for name in timings) else 0


if __name__ == "__main__":
    sys.exit(main())
