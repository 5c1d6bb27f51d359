#!/usr/bin/env python
"""Load test: assessors judging pooled responses at once against the documented production start;
reports the time of each save and checks that every acknowledged judgment is in the store.

    .venv/bin/python tools/load_judging.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test
    .venv/bin/python tools/load_judging.py                 # SQLite in a fresh data directory

Each round makes a fresh store (on PostgreSQL a schema of its own), runs `sepia db upgrade`, seeds
topics with ten nuggets, CCLQA runs, a pool shared out to the assessors with an overlap, then runs
the production start of docs/web.md (gunicorn, W workers x T threads) and lets A assessors judge their queues
over loopback as the judging screen does (GET the item, read it for about --think seconds, POST the
ticked nuggets; --think 0 saves back to back, a stress test beyond what people do). Afterwards:
- lost: an acknowledged save (302) whose nugget judgments the store does not hold as sent;
- duplicated: more than one judgment of one assessor on one response and nugget;
- p50 / p95 of a save beside the aim (p95 under 100 ms).
Exit status 1 when a judgment was lost or duplicated, or a request failed with a 5xx.
"""
from __future__ import annotations

import argparse
import os
import random
import re
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

from sqlalchemy import create_engine, select  # noqa: E402
from webload import BIN, PASSWORD, Client, Clock, fresh_database, production_server, run_all, server_env  # noqa: E402

from sepia.formats import model  # noqa: E402
from sepia.store.exchange.runs import import_run  # noqa: E402
from sepia.store.db import Store  # noqa: E402
from sepia.store.models import Assignment, Nugget, NuggetJudgment, PoolEntry, Topic, TopicText, User  # noqa: E402
from sepia.store.pools import assign_pool, build_pool  # noqa: E402
from sepia.services.accounts import hash_password  # noqa: E402

AIM_MS = 100.0
ACTION_RE = re.compile(r'action="(/judge/\d+/[^/]+/(\d+))"')
NUGGET_RE = re.compile(r'name="nugget" value="(\d+)"')


def seed(url: str, assessors: int, topics: int, runs: int, seed_value: int) -> tuple[int, list[str]]:
    """Topics, runs, a pool assigned with 20% overlap; returns the pool's ID and the assessors."""
    rng = random.Random(seed_value)
    store = Store(url)
    names = [f"assessor{i:02d}" for i in range(assessors)]
    password_hash = hash_password(PASSWORD)
    with store.transaction() as session:
        session.add_all(User(username=n, password_hash=password_hash, role="assessor") for n in names)
        topic_ids = [f"LOAD-CS-{t + 1:04d}" for t in range(topics)]
        for topic_id in topic_ids:
            topic = Topic(id=topic_id, lang="CS", answer_type="DEFINITION", status="completed")
            topic.texts = [TopicText(kind="question", lang="CS", text="什么是禽流感？")]
            topic.nuggets = [Nugget(label=f"N{n + 1:03d}", text=f"信息{n}", position=n) for n in range(10)]
            session.add(topic)
        for r in range(runs):
            import_run(session, model.CCLQARun(model.Metadata(f"T{r:02d}-CS-CS-01-T"), [
                model.CCLQATopic(t, [model.Answer(i + 1, f"回答{rng.randrange(40)}") for i in range(10)])
                for t in topic_ids]))
        pool = build_pool(session, "load", "cclqa", 30)
        assign_pool(session, "load", names, overlap=0.2, seed=seed_value)
        pool_id = pool.id
    store.dispose()
    return pool_id, names


def assessor(port: int, name: str, pool_id: int, clock: Clock, sent: dict, timings: list, statuses: Counter,
             lock: threading.Lock, seed_value: int, think: float) -> None:
    rng = random.Random(seed_value)
    client = Client(port)
    client.log_in(name)
    _, page = client.request("GET", "/judge/")
    topics = sorted(set(re.findall(rf'href="/judge/{pool_id}/([^"]+)"', page)))
    clock.barrier.wait()
    for topic_id in topics:
        while time.time() < clock.deadline:
            _, page = client.request("GET", f"/judge/{pool_id}/{topic_id}")
            found = ACTION_RE.search(page)
            if found is None:
                break  # the topic is done
            nuggets = NUGGET_RE.findall(page)
            ticked = sorted(int(n) for n in nuggets if rng.random() < 0.2)
            time.sleep(rng.uniform(0.5, 1.5) * think)  # reading the response and the nuggets
            started = time.perf_counter()
            status, _ = client.request("POST", found.group(1), [("action", "save")] + [("nugget", str(n)) for n in ticked])
            elapsed = time.perf_counter() - started
            with lock:
                timings.append(elapsed)
                statuses[status] += 1
                if status == 302:
                    sent[int(found.group(2))] = (name, set(ticked))


def check(url: str, sent: dict) -> tuple[int, int]:
    """(lost, duplicated) judgments in the store against the acknowledged saves."""
    engine = create_engine(url)
    with engine.connect() as connection:
        rows = connection.execute(select(NuggetJudgment.response_id, NuggetJudgment.nugget_id,
                                         NuggetJudgment.assessor, NuggetJudgment.match)).all()
        entries = dict(connection.execute(select(Assignment.id, PoolEntry.response_id)
                                          .join(PoolEntry, PoolEntry.id == Assignment.entry_id)).all())
    engine.dispose()
    duplicated = sum(n - 1 for n in Counter((r, n, a) for r, n, a, _ in rows).values() if n > 1)
    held: dict[tuple[int, str], set[int]] = {}
    judged: set[tuple[int, str]] = set()
    for response_id, nugget_id, assessor, match in rows:
        judged.add((response_id, assessor))
        if match >= 1:
            held.setdefault((response_id, assessor), set()).add(nugget_id)
    lost = sum(1 for assignment, (name, ticked) in sent.items()
               if (entries[assignment], name) not in judged or held.get((entries[assignment], name), set()) != ticked)
    return lost, duplicated


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", help="PostgreSQL URL (a fresh schema is made); default SQLite")
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--assessors", type=int, default=16)
    parser.add_argument("--topics", type=int, default=32)
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--think", type=float, default=1.0,
                        help="mean seconds an assessor reads an item before saving (0: saves back to back, a stress test)")
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="sepia-load-judging-"))
    url, drop = fresh_database(args.database_url, home)
    env = server_env(home, url)
    subprocess.run([str(BIN / "sepia"), "db", "upgrade"], env=env, check=True, capture_output=True)
    pool_id, names = seed(url, args.assessors, args.topics, args.runs, args.seed)
    sent: dict[int, tuple[str, set[int]]] = {}
    timings: list[float] = []
    statuses: Counter = Counter()
    lock = threading.Lock()
    with production_server(env, args.workers, args.threads) as server:
        port = server.port
        clock = Clock(len(names), args.seconds)
        run_all([threading.Thread(target=assessor, args=(port, name, pool_id, clock, sent, timings, statuses, lock,
                                                        args.seed * 100 + i, args.think))
                 for i, name in enumerate(names)])
    lost, duplicated = check(url, sent)
    drop()
    errors = sum(n for status, n in statuses.items() if status >= 500)
    backend = "PostgreSQL" if args.database_url and not args.database_url.startswith("sqlite") else "SQLite"
    load = os.getloadavg()
    p50 = statistics.median(timings) * 1000 if timings else 0.0
    p95 = statistics.quantiles(timings, n=20)[-1] * 1000 if len(timings) > 1 else p50
    print(f"# judging on {backend}: gunicorn {args.workers} workers x {args.threads} threads, {len(names)} assessors, "
          f"{args.topics} topics x {args.runs} runs x 10 responses, {args.think:g} s reading per item; "
          f"load average {load[0]:.2f} on {os.cpu_count()} cores")
    print(f"saves {len(timings)}  acknowledged {len(sent)}  5xx {errors}  lost {lost}  duplicated {duplicated}  "
          f"p50 {p50:.1f} ms  p95 {p95:.1f} ms (aim < {AIM_MS:g} ms)")
    return 1 if lost or duplicated or errors else 0


if __name__ == "__main__":
    sys.exit(main())
