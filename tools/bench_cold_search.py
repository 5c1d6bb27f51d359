#!/usr/bin/env python
"""Benchmark: the first searches of a freshly started server, beside the same searches once warm.

    nice .venv/bin/python tools/bench_cold_search.py              # 3 starts, 16 concurrent searches
    nice .venv/bin/python tools/bench_cold_search.py --rounds 5 --clients 32

Builds the sample campaign in a fresh data directory (`sepia demo --no-serve`: store and the CS, CT
and JA search indexes) and logs in one topic developer per client once. Then, `--rounds` times, it
starts gunicorn as docs/web.md does and, as soon as the server accepts connections, sends
`--clients` searches at once, half Japanese and half simplified Chinese, each a different document
title in the search pane of a topic of that language (cold); then the same searches at once
`--warm` times more (warm). Times are from the moment the server accepts connections (cold) or
the searches are sent (warm) to each complete answer. Prints the p50 and p95 of both beside the
aim: the cold p95 under 1 s on a quiet machine; also the machine's load before and after, since
the machine may be shared.
"""
from __future__ import annotations

import argparse
import os
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

from sqlalchemy import select  # noqa: E402
from webload import BIN, PASSWORD, Client, production_server, server_env  # noqa: E402

from sepia.store.db import Store  # noqa: E402
from sepia.store.models import Document, Topic  # noqa: E402
from sepia.services.accounts import create_user  # noqa: E402

AIM_SECONDS = 1.0
LANGUAGES = ("JA", "CS")


def prepare(home: Path, clients: int) -> list[str]:
    """The sample campaign with a topic developer per client; each client's search path."""
    subprocess.run([str(BIN / "sepia"), "demo", "--no-serve", "--home", str(home)], env=server_env(home, None),
                   check=True, capture_output=True)
    store = Store(f"sqlite:///{home / 'sepia.db'}")
    paths = []
    with store.transaction() as session:
        for i in range(clients):
            create_user(session, f"cold{i:02d}", PASSWORD, "topic_developer")
        by_lang = {}
        for lang in LANGUAGES:
            topics = session.scalars(select(Topic.id).where(Topic.lang == lang).order_by(Topic.id)).all()
            titles = session.scalars(select(Document.title).where(Document.lang == lang, Document.title != "")
                                     .order_by(Document.docid.desc())).all()
            by_lang[lang] = (topics, titles)
        for i in range(clients):
            topics, titles = by_lang[LANGUAGES[i % len(LANGUAGES)]]
            n = i // len(LANGUAGES)
            paths.append(f"/topics/{topics[n % len(topics)]}/search?q={quote(titles[n % len(titles)])}")
    store.dispose()
    return paths


def log_in(port: int, clients: int) -> list[str]:
    """Session cookies for the clients (the store keeps sessions across server starts)."""
    cookies = []
    for i in range(clients):
        client = Client(port)
        client.log_in(f"cold{i:02d}")
        cookies.append(client.cookie)
    return cookies


def searches_at_once(port: int, cookies: list[str], paths: list[str], since: float | None = None) -> list[float]:
    """Each client's search sent at once on a connection of its own; seconds from `since` (default:
    the moment they are sent) to each answer, which must list hits."""
    seconds = [0.0] * len(paths)
    failures: list[str] = []
    barrier = threading.Barrier(len(paths) + 1)

    def one(i: int) -> None:
        client = Client(port)
        client.cookie = cookies[i]
        barrier.wait()
        status, page = client.request("GET", paths[i])
        seconds[i] = time.time() - start
        if status != 200 or 'class="hits"' not in page:
            failures.append(f"{paths[i]} answered {status}{'' if status != 200 else ' without hits'}")

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(paths))]
    for thread in threads:
        thread.start()
    barrier.wait()
    start = time.time() if since is None else since
    for thread in threads:
        thread.join()
    if failures:
        raise RuntimeError("; ".join(failures))
    return seconds


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=16, help="concurrent searches, half JA, half CS")
    parser.add_argument("--rounds", type=int, default=3, help="fresh server starts")
    parser.add_argument("--warm", type=int, default=5, help="warm repetitions per start")
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()
    cold: list[float] = []
    warm: list[float] = []
    cold_cpu: list[float] = []
    with tempfile.TemporaryDirectory(prefix="sepia-bench-cold-") as folder:
        home = Path(folder)
        paths = prepare(home, args.clients)
        env = server_env(home, None)
        with production_server(env, 1, 1) as server:
            cookies = log_in(server.port, args.clients)
        load_before = os.getloadavg()
        for round_ in range(args.rounds):
            with production_server(env, args.workers, args.threads) as server:
                cpu_before = server.cpu_seconds()
                cold += searches_at_once(server.port, cookies, paths, since=server.serving_since)
                cold_cpu.append(server.cpu_seconds() - cpu_before)
                for _ in range(args.warm):
                    warm += searches_at_once(server.port, cookies, paths)
            print(f"start {round_ + 1}/{args.rounds}: cold p95 {p95(cold[-len(paths):]):.3f} s", file=sys.stderr)
        load_after = os.getloadavg()
    print(f"# gunicorn {args.workers} workers x {args.threads} threads, sample campaign; {args.clients} searches "
          f"at once (JA and CS), {args.rounds} fresh starts; {os.cpu_count()} cores; load average before "
          f"{' '.join(f'{x:.2f}' for x in load_before)}, after {' '.join(f'{x:.2f}' for x in load_after)}")
    print(f"{'searches':10} {'answers':>8} {'p50 s':>7} {'p95 s':>7} {'aim p95':>8}")
    verdict = "met" if p95(cold) < AIM_SECONDS else "NOT MET"
    print(f"{'cold':10} {len(cold):8d} {statistics.median(cold):7.3f} {p95(cold):7.3f} {'< ' + str(AIM_SECONDS):>8}"
          f"  {verdict}")
    print(f"{'warm':10} {len(warm):8d} {statistics.median(warm):7.3f} {p95(warm):7.3f}")
    cpu = statistics.median(cold_cpu)
    print(f"# server CPU from accepting connections to the last cold answer: {cpu:.2f} s (median of the starts); "
          f"on {os.cpu_count()} idle cores that work alone takes {cpu / os.cpu_count():.2f} s (waiting on nothing else)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
