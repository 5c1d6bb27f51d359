#!/usr/bin/env python
"""Benchmark: peak memory of importing nugget judgments and of building a pool as a campaign grows
to TREC RAG's size, and the cost of importing a gold standard.

    nice .venv/bin/python tools/bench_import_memory.py                   # 300 topics x 10, 30, 100 runs, SQLite
    nice .venv/bin/python tools/bench_import_memory.py --database-url postgresql+psycopg://postgres@127.0.0.1:5432/test
    nice .venv/bin/python tools/bench_import_memory.py --quick           # 300 topics x 3, 10, 30 runs

Synthetic data, made in a fresh store for each run count (on PostgreSQL, with --database-url, a
schema of its own; the benchmark then runs on SQLite and on PostgreSQL): a gold standard of TOPICS
topics x 20 nuggets, R CCLQA runs of 10 answers per topic, and a judgments file judging each run's
first 2 answers per topic against 5 nuggets (3,000 lines per run at 300 topics). Measured, each in a
fresh process (its peak resident memory, from the kernel):
- `sepia import judgments.tsv` (reading, checking and storing the file);
- `sepia pool build pool --kind cclqa --depth 10` (every run's answers to depth 10).
Printed beside the aim: each peak over the peak at the smallest run count; at ten times the data
it is to be at most 1.5.

The gold standard's import (`sepia.store.import_gold`, CPU seconds) is printed beside the time
to read and check its file (`sepia validate`'s work, in the same process); the aim is at most 2.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))

from webload import fresh_database, server_env  # noqa: E402

from sepia.formats import model  # noqa: E402
from sepia.formats.validate import validate_file  # noqa: E402
from sepia.formats.write import to_xml  # noqa: E402
from sepia.store.exchange.gold import import_gold  # noqa: E402
from sepia.store.exchange.runs import import_run  # noqa: E402
from sepia.store.db import Store  # noqa: E402

NUGGETS = 20
ANSWERS = 10
JUDGED_ANSWERS = 2
JUDGED_NUGGETS = 5
DEPTH = 10
AIM_MEMORY = 1.5  # the peak at ten times the data over the peak at a tenth
AIM_GOLD = 2.0  # the gold standard's import over reading and checking its file


def topic_ids(topics: int) -> list[str]:
    return [f"RAG-EN-{t:04d}" for t in range(1, topics + 1)]


def gold_standard(topics: int) -> model.GoldStandard:
    return model.GoldStandard("EN", [
        model.GoldTopic(topic, "DEFINITION", [model.LangText("EN", f"What about topic {topic}?")],
                        [model.GoldNugget(f"N{n:03d}", f"nugget {n} of topic {topic}", 1.0, votes=[("as1", n % 3 == 0)])
                         for n in range(1, NUGGETS + 1)])
        for topic in topic_ids(topics)])


def run_of(team: int, topics: int) -> model.CCLQARun:
    return model.CCLQARun(model.Metadata(f"T{team:03d}-EN-EN-01-T"), [
        model.CCLQATopic(topic, [model.Answer(rank, f"answer {rank} of team {team} on {topic}", [f"DOC-{team}-{rank}"])
                                 for rank in range(1, ANSWERS + 1)])
        for topic in topic_ids(topics)])


def write_judgments(path: Path, runs: int, topics: int) -> int:
    lines = 0
    with path.open("w", encoding="utf-8") as out:
        out.write("topic_id\trun_id\tanswer_rank\tnugget_id\tmatch\tassessor\n")
        for team in range(runs):
            for topic in topic_ids(topics):
                for rank in range(1, JUDGED_ANSWERS + 1):
                    for n in range(1, JUDGED_NUGGETS + 1):
                        out.write(f"{topic}\tT{team:03d}-EN-EN-01-T\t{rank}\tN{n:03d}\t{(rank + n) % 2}\tas1\n")
                        lines += 1
    return lines


# The command in a fresh interpreter that writes its peak resident memory (VmHWM, kB) to a file at
# exit: the kernel's own count for a child (wait4's ru_maxrss) starts from its parent's, this one's.
MEASURED = """import atexit, os, sys
atexit.register(lambda: open(os.environ["BENCH_PEAK_FILE"], "w").write(
    open("/proc/self/status").read().split("VmHWM:")[1].split()[0]))
from sepia.cli import main
sys.exit(main())"""


def peak_mb(args: list[str], env: dict, home: Path) -> float:
    """Run a sepia command; its peak resident memory (MB)."""
    peak = home / "peak"
    done = subprocess.run([sys.executable, "-c", MEASURED, *args], env={**env, "BENCH_PEAK_FILE": str(peak)},
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode:
        raise RuntimeError(f"sepia {' '.join(args)} failed: {done.stderr[-2000:]}")
    return int(peak.read_text()) / 1024


def gold_costs(home: Path, url: str, topics: int) -> tuple[float, float]:
    """CPU seconds to read and check the gold file, and to import what was read."""
    path = home / "gold.xml"
    path.write_bytes(to_xml(gold_standard(topics)))
    started = time.process_time()
    gold, problems = validate_file(path)
    read = time.process_time() - started
    assert gold is not None, problems
    store = Store(url)
    started = time.process_time()
    with store.transaction() as session:
        import_gold(session, gold)
    imported = time.process_time() - started
    store.dispose()
    return read, imported


def measure(base_url: str | None, runs: int, topics: int, progress) -> dict:
    with tempfile.TemporaryDirectory(prefix="sepia-bench-memory-") as folder:
        home = Path(folder)
        url, drop = fresh_database(base_url, home)
        try:
            read, imported = gold_costs(home, url, topics)
            store = Store(url)
            for team in range(runs):
                with store.transaction() as session:
                    import_run(session, run_of(team, topics))
                progress(f"{team + 1}/{runs} runs stored")
            store.dispose()
            judgments = home / "judgments.tsv"
            lines = write_judgments(judgments, runs, topics)
            env = server_env(home, url)
            judged = peak_mb(["import", str(judgments)], env, home)
            pooled = peak_mb(["pool", "build", "pool", "--kind", "cclqa", "--depth", str(DEPTH)], env, home)
        finally:
            drop()
    return {"runs": runs, "lines": lines, "responses": runs * topics * ANSWERS, "judgments_mb": judged,
            "pool_mb": pooled, "gold_read": read, "gold_import": imported}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", default="10,30,100", help="run counts, comma-separated, smallest first")
    parser.add_argument("--topics", type=int, default=300)
    parser.add_argument("--quick", action="store_true", help="3, 10 and 30 runs")
    parser.add_argument("--database-url", help="also on this PostgreSQL (a fresh schema per run count)")
    args = parser.parse_args()
    counts = [3, 10, 30] if args.quick else [int(n) for n in args.runs.split(",")]
    databases = [("SQLite", None)] + ([("PostgreSQL", args.database_url)] if args.database_url else [])

    def progress(line: str) -> None:
        print(f"\r  {line}   ", end="", file=sys.stderr, flush=True)

    results = {}
    for name, url in databases:
        for runs in counts:
            print(f"{name}, {runs} runs:", file=sys.stderr)
            results[name, runs] = measure(url, runs, args.topics, progress)
            print(file=sys.stderr)
    print(f"# {args.topics} topics x {NUGGETS} nuggets, runs of {ANSWERS} answers per topic, {JUDGED_ANSWERS} "
          f"answers x {JUDGED_NUGGETS} nuggets judged per run and topic, pool depth {DEPTH}; "
          f"{os.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'database':11} {'runs':>5} {'responses':>10} {'judgments':>10} {'import MB':>10} {'x':>6} "
          f"{'pool MB':>8} {'x':>6}  aim: x <= {AIM_MEMORY:g} at 10 times the data")
    failed = False
    for (name, runs), r in results.items():
        first = results[name, counts[0]]
        x_judged, x_pool = r["judgments_mb"] / first["judgments_mb"], r["pool_mb"] / first["pool_mb"]
        tenfold = runs >= 10 * counts[0]
        verdict = ("  met" if max(x_judged, x_pool) <= AIM_MEMORY else "  NOT MET") if tenfold else ""
        failed |= verdict == "  NOT MET"
        print(f"{name:11} {runs:5d} {r['responses']:10,d} {r['lines']:10,d} {r['judgments_mb']:10.1f} "
              f"{x_judged:6.2f} {r['pool_mb']:8.1f} {x_pool:6.2f}{verdict}")
    print(f"{'database':11} {'gold nuggets':>12} {'read+check s':>13} {'import s':>9} {'ratio':>6}  "
          f"aim: ratio <= {AIM_GOLD:g}")
    for (name, runs), r in results.items():
        if runs == counts[0]:
            ratio = r["gold_import"] / r["gold_read"]
            print(f"{name:11} {args.topics * NUGGETS:12,d} {r['gold_read']:13.2f} {r['gold_import']:9.2f} "
                  f"{ratio:6.2f}  {'met' if ratio <= AIM_GOLD else 'NOT MET'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
