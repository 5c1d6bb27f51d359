#!/usr/bin/env python
"""Benchmark: the organisers' Assessors page's figures (sepia.store.quality.report) on a synthetic
campaign, beside what the disputes page computes today for the same pool (pool_agreement.agreement), both
measured in this process on the same store.

    .venv/bin/python tools/bench_assessors.py [--topics 40] [--runs 10] [--depth 20] [--rounds 3]

The campaign: T topics of 10 nuggets voted by 3 assessors, R runs answering every topic with D
responses, one pool of every response shared out to 3 assessors with half of each topic's items
judged twice, every item judged (about a tenth of the marks differ from the first assessor's), and
every tenth shared item adjudicated. Prints the judgments, the units, the median wall and CPU time of
each over --rounds and the CPU ratio (aim: the report within 5x of the agreement it extends, and
under 2 s of CPU).
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import insert, select  # noqa: E402

from sepia.formats import model  # noqa: E402
from sepia.scoring.adjudication import ADJUDICATED  # noqa: E402
from sepia.store import pool_agreement, quality  # noqa: E402
from sepia.store.exchange.runs import import_run  # noqa: E402
from sepia.store.db import Store  # noqa: E402
from sepia.store.models import (Assignment, Nugget, NuggetJudgment, Pool, PoolEntry, Topic, User, Vote,  # noqa: E402
                                 utcnow)
from sepia.store.pools import assign_pool, build_pool  # noqa: E402

AIM_RATIO, AIM_SECONDS = 5.0, 2.0
ASSESSORS = ["a1", "a2", "a3"]


def seed(store: Store, topics: int, runs: int, depth: int) -> int:
    rng = random.Random(0)
    ids = [f"BENCH-CS-{t:04d}" for t in range(topics)]
    with store.transaction() as session:
        for topic_id in ids:
            session.add(Topic(id=topic_id, lang="CS", answer_type=rng.choice(["PERSON", "DEFINITION", "EVENT"]),
                              status="completed", nuggets=[Nugget(label=f"N{n:03d}", text=f"信息{n}", position=n)
                                                           for n in range(10)]))
        for r in range(runs):
            import_run(session, model.CCLQARun(model.Metadata(f"T{r:02d}-CS-CS-01-T"), [
                model.CCLQATopic(t, [model.Answer(k + 1, f"{t} {r} {k} 回答") for k in range(depth)]) for t in ids]))
        session.flush()
        nuggets = {}
        for nugget_id, topic_id in session.execute(select(Nugget.id, Nugget.topic_id)):
            nuggets.setdefault(topic_id, []).append(nugget_id)
        session.execute(insert(Vote), [{"nugget_id": n, "assessor": a, "vital": rng.random() < 0.5, "created_at": utcnow()}
                                       for ns in nuggets.values() for n in ns for a in ASSESSORS])
        pool = build_pool(session, "bench", "cclqa", depth)
        session.add_all(User(username=a, password_hash="x", role="assessor") for a in ASSESSORS)
        assign_pool(session, "bench", ASSESSORS, overlap=0.5)
        rows, first = [], {}
        for a in session.scalars(select(Assignment).join(PoolEntry).order_by(Assignment.id)):
            a.judged_at = utcnow()
            marks = first.setdefault(a.entry_id, [rng.random() < 0.2 for _ in range(10)])
            mine = [m != (rng.random() < 0.1) for m in marks]
            rows += [{"response_id": a.entry.response_id, "nugget_id": n, "assessor": a.assessor,
                      "match": float(m), "created_at": utcnow()} for n, m in zip(nuggets[a.entry.topic_id], mine)]
            if len(first) % 10 == 0 and a.entry_id in first and sum(x.entry_id == a.entry_id for x in a.entry.assignments) > 1:
                rows += [{"response_id": a.entry.response_id, "nugget_id": n, "assessor": ADJUDICATED,
                          "match": float(m), "created_at": utcnow()} for n, m in zip(nuggets[a.entry.topic_id], marks)]
        unique = {(r["response_id"], r["nugget_id"], r["assessor"]): r for r in rows}
        session.execute(insert(NuggetJudgment), list(unique.values()))
        return pool.id


def timed(call, rounds: int) -> tuple[float, float, object]:
    """Median wall and CPU seconds of a call (the CPU time is what a shared machine does not inflate)."""
    wall, cpu, result = [], [], None
    for _ in range(rounds):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = call()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--topics", type=int, default=40)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--depth", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = Store(f"sqlite:///{Path(folder) / 'bench.db'}")
        pool_id = seed(store, args.topics, args.runs, args.depth)
        with store.transaction() as session:
            pool = session.get(Pool, pool_id)
            judgments = session.query(NuggetJudgment).count()
            quality.report(session, 0.8)  # imports and caches warmed before either is timed
            base_wall, base_cpu, _ = timed(lambda: pool_agreement.agreement(session, pool), args.rounds)
            wall, cpu, report = timed(lambda: quality.report(session, 0.8), args.rounds)
        store.dispose()
    units = sum(r["items"] for r in report["quality"])
    print(f"# {args.topics} topics x {args.runs} runs x {args.depth} responses, 3 assessors; SQLite; "
          f"median of {args.rounds}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"judgments {judgments}  assessor-units {units}")
    print(f"disputes-page agreement {base_wall:.3f} s wall {base_cpu:.3f} s CPU;  assessors report {wall:.3f} s wall "
          f"{cpu:.3f} s CPU;  CPU ratio {cpu / base_cpu:.2f} (aim <= {AIM_RATIO:g}; CPU < {AIM_SECONDS:g} s)")


if __name__ == "__main__":
    main()
