#!/usr/bin/env python
"""Load test: concurrent pyramid voting against the documented production start, with nuggets added
while the assessors vote; reports lost, duplicated and phantom votes (all must be 0).

    .venv/bin/python tools/load_voting.py                       # SQLite in a fresh data directory
    .venv/bin/python tools/load_voting.py --rounds 10 --seconds 60
    .venv/bin/python tools/load_voting.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test

Each round starts a fresh store (on PostgreSQL a schema of its own), runs `sepia db upgrade`, then
the production start of docs/web.md (gunicorn, W workers x T threads) and drives it over
loopback only: A assessors vote topic after topic (GET the form, POST it, as a browser does) while a
topic developer adds a nugget to topics at random moments. Afterwards it compares the store with what
the server acknowledged:
- lost: a vote the server acknowledged (302 after the POST) that the store lacks or holds otherwise;
- duplicated: more than one vote of one assessor on one nugget;
- phantom: a vote on a nugget the assessor's form did not show (the defect this guards against);
- unacknowledged: a vote in the store from a request whose answer never came (not a failure, shown).
Exit status 1 when lost, duplicated or phantom is not 0, or a request failed with a 5xx.
"""
from __future__ import annotations

import argparse
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

from sepia.store.db import Store  # noqa: E402
from sepia.store.models import AnswerText, Document, Nugget, Topic, TopicText, User, Vote  # noqa: E402
from sepia.services.accounts import hash_password  # noqa: E402

DOCID = "LOAD_DOC_0001"
DOC_TEXT = "新华社北京电。禽流感是一种由甲型流感病毒引起的禽类传染病。专家说，病毒可以传染给人。"
STAMP_RE = re.compile(r'name="shown" value="([^"]*)"')


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class Tally:
    """What the clients saw, shared between their threads under one lock."""

    def __init__(self):
        self.lock = threading.Lock()
        self.acknowledged: dict[tuple[str, int], bool] = {}  # (assessor, nugget) -> vital
        self.shown: set[tuple[str, int]] = set()  # every (assessor, nugget) a submitted form showed
        self.sent: set[tuple[str, int]] = set()  # every (assessor, nugget) of a POST, answered or not
        self.latencies: list[float] = []
        self.statuses: Counter = Counter()
        self.nuggets_added = 0


def assessor(port: int, name: str, topics: list[str], clock: Clock, tally: Tally, seed: int) -> None:
    rng = random.Random(seed)
    client = Client(port)
    client.log_in(name)
    clock.barrier.wait()
    deadline = clock.deadline
    order = topics[:]
    rng.shuffle(order)
    for topic in order:
        while time.time() < deadline:
            status, page = client.request("GET", f"/votes/{topic}")
            stamp = STAMP_RE.search(page).group(1)
            shown = [int(pair.split(":")[0]) for pair in stamp.split()]
            if not shown:
                break  # nothing left to vote on in this topic
            vital = [n for n in shown if rng.random() < 0.4]
            with tally.lock:
                tally.sent.update((name, n) for n in shown)
            started = time.perf_counter()
            status, _ = client.request("POST", f"/votes/{topic}",
                                       [("shown", stamp)] + [("vital", str(n)) for n in vital])
            elapsed = time.perf_counter() - started
            with tally.lock:
                tally.latencies.append(elapsed)
                tally.statuses[status] += 1
                if status == 302:
                    tally.shown.update((name, n) for n in shown)
                    for n in shown:
                        tally.acknowledged[(name, n)] = n in vital
            if status != 409:  # 409: the nuggets changed meanwhile; look again and vote on the new list
                break


def developer(port: int, topics: list[str], answer_ids: dict[str, int], clock: Clock, tally: Tally,
              seed: int) -> None:
    rng = random.Random(seed)
    client = Client(port)
    client.log_in("developer")
    clock.barrier.wait()
    start, deadline = clock.start + clock.seconds * 0.1, clock.deadline  # nuggets come once voting is under way
    while time.time() < deadline:
        time.sleep(max(0.0, min(rng.uniform(0.05, 0.4), deadline - time.time())))
        if time.time() < start:
            continue
        topic = rng.choice(topics)
        status, _ = client.request("POST", f"/nuggets/{topic}", [
            ("text", f"新增的信息块{rng.randrange(10**6)}"), ("answer_ids", str(answer_ids[topic]))])
        with tally.lock:
            tally.statuses[status] += 1
            tally.nuggets_added += status == 302


def seed_store(url: str, assessors: int, topics: int, nuggets: int) -> dict[str, int]:
    """Accounts, one document and completed topics with nuggets; returns each topic's answer text ID."""
    store = Store(url)
    password_hash = hash_password(PASSWORD)
    answers = {}
    with store.transaction() as session:
        session.add(User(username="developer", password_hash=password_hash, role="topic_developer"))
        session.add_all(User(username=f"assessor{i:02d}", password_hash=password_hash, role="assessor")
                        for i in range(assessors))
        session.add(Document(docid=DOCID, lang="CS", title="禽流感", text=DOC_TEXT))
        for t in range(topics):
            topic = Topic(id=f"LOAD-CS-{t + 1:04d}", lang="CS", answer_type="DEFINITION", status="completed")
            topic.texts = [TopicText(kind="question", lang="CS", text="什么是禽流感？"),
                           TopicText(kind="question", lang="EN", text="What is bird flu?", position=1)]
            answer = AnswerText(docid=DOCID, start=7, end=30, text=DOC_TEXT[7:30])
            topic.answer_texts = [answer]
            topic.nuggets = [Nugget(label=f"N{n + 1:03d}", text=f"信息块{n + 1}", position=n, answer_texts=[answer])
                             for n in range(nuggets)]
            session.add(topic)
            session.flush()
            answers[topic.id] = answer.id
    store.dispose()
    return answers


def stored_votes(url: str) -> list[tuple[str, int, bool]]:
    engine = create_engine(url)
    with engine.connect() as connection:
        rows = connection.execute(select(Vote.assessor, Vote.nugget_id, Vote.vital)).all()
    engine.dispose()
    return [tuple(row) for row in rows]


def one_round(args, number: int) -> dict:
    home = Path(tempfile.mkdtemp(prefix="sepia-load-"))
    url, drop = fresh_database(args.database_url, home)
    env = server_env(home, url)
    subprocess.run([str(BIN / "sepia"), "db", "upgrade"], env=env, check=True, capture_output=True)
    answers = seed_store(url, args.assessors, args.topics, args.nuggets)
    tally = Tally()
    topics = sorted(answers)
    with production_server(env, args.workers, args.threads) as server:
        port, errors = server.port, server.errors
        clock = Clock(args.assessors + 1, args.seconds)
        threads = [threading.Thread(target=assessor, args=(port, f"assessor{i:02d}", topics, clock, tally,
                                                          args.seed * 1000 + number * 100 + i))
                   for i in range(args.assessors)]
        threads.append(threading.Thread(target=developer, args=(port, topics, answers, clock, tally,
                                                               args.seed + number)))
        run_all(threads)
    stored = stored_votes(url)
    drop()
    pairs = Counter((a, n) for a, n, _ in stored)
    held = {(a, n): vital for a, n, vital in stored}
    result = {
        "round": number,
        "submits": len(tally.latencies),
        "votes": len(stored),
        "nuggets added": tally.nuggets_added,
        "refused (409)": tally.statuses[409],
        "5xx": sum(count for status, count in tally.statuses.items() if status >= 500),
        "lost": sum(1 for key, vital in tally.acknowledged.items() if held.get(key) != vital),
        "duplicated": sum(count - 1 for count in pairs.values() if count > 1),
        "phantom": sum(1 for key in pairs if key not in tally.sent),
        "unacknowledged": sum(1 for key in pairs if key not in tally.acknowledged and key in tally.sent),
        "p50 ms": 1000 * statistics.median(tally.latencies) if tally.latencies else 0.0,
        "p95 ms": 1000 * statistics.quantiles(tally.latencies, n=20)[-1] if len(tally.latencies) > 1 else 0.0,
    }
    if result["5xx"]:
        log(errors[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", help="PostgreSQL URL (a fresh schema is made per round); default SQLite")
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--assessors", type=int, default=16)
    parser.add_argument("--topics", type=int, default=40)
    parser.add_argument("--nuggets", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=20.0, help="how long the assessors vote per round")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    backend = "PostgreSQL" if args.database_url and not args.database_url.startswith("sqlite") else "SQLite"
    print(f"# concurrent voting on {backend}: gunicorn {args.workers} workers x {args.threads} threads, "
          f"{args.assessors} assessors + 1 topic developer, {args.topics} topics x {args.nuggets} nuggets, "
          f"{args.seconds:g} s per round")
    failed = False
    columns = None
    for number in range(1, args.rounds + 1):
        result = one_round(args, number)
        if columns is None:
            columns = list(result)
            print("\t".join(columns))
        print("\t".join(f"{result[c]:.1f}" if isinstance(result[c], float) else str(result[c]) for c in columns),
              flush=True)
        failed |= bool(result["lost"] or result["duplicated"] or result["phantom"] or result["5xx"])
    print("FAILED: votes lost, duplicated or phantom, or server errors" if failed
          else "OK: no vote lost, duplicated or phantom")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
