"""Benchmark: what `--numbers strict` costs. BINARIZED and softmatch F3 of every TREC RAG 2024 run
(45 runs, 21 topics; converted in a temporary directory), lenient and strict interleaved in one
process, CPU seconds (time.process_time), the median of `--repeat` rounds' strict / lenient ratios:

    .venv/bin/python tools/bench_numbers_strict.py [--repeat 5] [PATH.jl]
"""
from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from sepia.convert.nuggetizer import convert_nuggetizer, write_conversion
from sepia.formats.read import read_file
from sepia.scoring.evaluate import Evaluator, Settings

RAG24 = Path(__file__).resolve().parents[2] / "shared" / "data" / "trec-rag24" / "rag24_nugget_assignment.20241108.jl"


def cpu(gold, runs, matcher: str, numbers: str) -> float:
    start = time.process_time()
    Evaluator(gold, Settings(matcher, numbers=numbers)).rank(runs)  # a fresh evaluator: no cache carried over
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("path", nargs="?", type=Path, default=RAG24)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        out = write_conversion(convert_nuggetizer(args.path, partial=0.5), Path(tmp) / "rag24")
        gold = read_file(out / "gold.xml", "gold")
        runs = [read_file(p, "cclqa") for p in sorted((out / "runs").glob("*.xml"))]
    for matcher in ("binarized", "softmatch"):
        rounds = [(cpu(gold, runs, matcher, "lenient"), cpu(gold, runs, matcher, "strict")) for _ in range(args.repeat)]
        lenient = statistics.median(r[0] for r in rounds)
        strict = statistics.median(r[1] for r in rounds)
        ratio = statistics.median(r[1] / r[0] for r in rounds)
        print(f"{matcher}: lenient {lenient:.3f} s, strict {strict:.3f} s CPU for {len(runs)} runs; "
              f"strict / lenient {ratio:.2f} (median of {args.repeat} rounds)")


if __name__ == "__main__":
    main()
