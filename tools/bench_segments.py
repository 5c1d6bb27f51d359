#!/usr/bin/env python
"""Benchmark: a TREC RAG segment collection (the MS MARCO v2.1 segment shape, gzipped shards) added
with SEPIA's ingest, indexed and searched; figures for a 1-million-segment collection projected.

    .venv/bin/python tools/bench_segments.py --segments 100000

The segments are generated: each a document's `#`-numbered chunk of 60-160 words drawn from the
English answers of the TREC RAG 2024 file (../shared/data/trec-rag24; a fixed synthetic vocabulary
without it), in shards of 10,000. The baseline, measured in this same process, is reading the shards
alone (gunzip and JSON parsing of every line): ingest and build are stated as ratios to it. Memory is
the peak resident set of this process and of its children (the index build's workers). The
projection to 1 million segments scales the times and sizes linearly (ingest and build stream the
collection; neither holds it in memory, so their peak memory is not scaled).
"""
from __future__ import annotations

import argparse
import gzip
import json
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
RAG24 = ROOT.parent / "shared" / "data" / "trec-rag24" / "rag24_nugget_assignment.20241108.jl"
SHARD = 10_000


def vocabulary() -> list[str]:
    if RAG24.exists():
        words = [w for line in RAG24.open(encoding="utf-8") for w in json.loads(line)["answer_text"].split()]
        if words:
            return words
    return [f"word{i}" for i in range(20_000)]


def write_shards(folder: Path, segments: int, seed: int = 0) -> list[Path]:
    rng = random.Random(seed)
    words = vocabulary()
    paths = []
    for start in range(0, segments, SHARD):
        path = folder / f"msmarco_v2.1_doc_segmented_{start // SHARD:02d}.json.gz"
        with gzip.open(path, "wt", encoding="utf-8", compresslevel=1) as f:
            for i in range(start, min(start + SHARD, segments)):
                doc, part = i // 8, i % 8
                text = " ".join(rng.choices(words, k=rng.randint(60, 160)))
                f.write(json.dumps({"docid": f"msmarco_v2.1_doc_{doc % 60:02d}_{doc}#{part}_{i}",
                                    "url": f"https://example.org/{doc}", "title": " ".join(rng.choices(words, k=6)),
                                    "headings": "", "segment": text, "start_char": 0, "end_char": len(text)}) + "\n")
        paths.append(path)
    return paths


def read_only(paths: list[Path]) -> tuple[float, int]:
    """The baseline: every line gunzipped and parsed; (seconds, characters of segment text)."""
    started, chars = time.perf_counter(), 0
    for path in paths:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            for line in f:
                chars += len(json.loads(line)["segment"])
    return time.perf_counter() - started, chars


def peak_mb() -> tuple[float, float]:
    """(this process's, its largest child's) peak resident set in MB."""
    return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)


def size_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--segments", type=int, default=100_000)
    parser.add_argument("--engine", default="tantivy")
    parser.add_argument("--procs", type=int, default=1)
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()

    from sepia.search import open_engine
    from sepia.search.engine import remember_engine
    from sepia.services.documents import ingest
    from sepia.services.indexing import build_index
    from sepia.store.db import Store

    with tempfile.TemporaryDirectory(prefix="sepia-segments-") as work:
        work = Path(work)
        (work / "shards").mkdir()
        paths = write_shards(work / "shards", args.segments)
        baseline, chars = read_only(paths)
        store = Store(f"sqlite:///{work / 'store.db'}")
        started = time.perf_counter()
        report = ingest(store, "EN", paths, progress=False)
        ingest_s = time.perf_counter() - started
        assert report.ok and report.stored == args.segments, report.problems[:3]
        memory_ingest = peak_mb()[0]
        remember_engine(work / "index", args.engine)
        started = time.perf_counter()
        build_index(store, "EN", work / "index", procs=args.procs, progress=False)
        build_s = time.perf_counter() - started
        engine = open_engine(work / "index")
        rng = random.Random(1)
        words = [w.strip(".,;:()\"'").lower() for w in vocabulary()]
        words = [w for w in words if len(w) > 4 and w.isalpha()]
        latencies = []
        for _ in range(args.queries):
            query = " ".join(rng.sample(words, 2))
            t = time.perf_counter()
            engine.search("EN", query)
            latencies.append((time.perf_counter() - t) * 1000)
        baseline_again, _ = read_only(paths)
        base = (baseline + baseline_again) / 2
        self_mb, child_mb = peak_mb()
        store_mb = sum(p.stat().st_size for p in work.glob("store.db*")) / 2**20
        index_mb, shards_mb = size_mb(work / "index"), size_mb(work / "shards")
        store.dispose()
    scale = 1_000_000 / args.segments
    p50, p95 = statistics.median(latencies), statistics.quantiles(latencies, n=20)[18]
    print(f"{args.segments:,} segments ({chars / args.segments:.0f} characters each), {len(paths)} shards "
          f"of {shards_mb:.1f} MB gzipped; engine {args.engine}, {args.procs} build process(es)")
    print(f"baseline (gunzip + JSON parse of every line): {base:.1f} s")
    print(f"ingest into the store: {ingest_s:.1f} s = {ingest_s / base:.2f} x baseline, "
          f"{args.segments / ingest_s:,.0f} segments/s; store {store_mb:.0f} MB")
    print(f"index build: {build_s:.1f} s = {build_s / base:.2f} x baseline, {args.segments / build_s:,.0f} segments/s; "
          f"index {index_mb:.0f} MB")
    print(f"peak memory: {memory_ingest:.0f} MB after ingest, {self_mb:.0f} MB this process at the end, "
          f"{child_mb:.0f} MB the largest child")
    print(f"search, 2 random words, a page of 10 with snippets: p50 {p50:.1f} ms, p95 {p95:.1f} ms")
    print(f"projected to 1,000,000 segments: ingest {ingest_s * scale / 60:.0f} min, build {build_s * scale / 60:.0f} min, "
          f"store {store_mb * scale / 1024:.1f} GB, index {index_mb * scale / 1024:.1f} GB, "
          f"peak memory about the same ({max(self_mb, child_mb):.0f} MB: both stream)")


if __name__ == "__main__":
    main()
