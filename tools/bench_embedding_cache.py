#!/usr/bin/env python
"""Benchmark: the persistent embedding cache (sepia/text/embedding_cache.py). The sample corpora's
nuggets (as E5 queries) and the sentences of their runs' responses (as passages), the texts the
embedding matcher needs, embedded by a fresh `Embeddings` three times in a new SEPIA_HOME: cold (an
empty cache), warm (every vector read back from the cache) and with the cache off. Each run is a new
process's first use (the engine loaded, nothing in memory); the vectors of the three are checked to be
the same bytes.

    .venv/bin/python tools/bench_embedding_cache.py
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sepia.formats.read import read_file  # noqa: E402
from sepia.matchers.learned.evidence import sentences  # noqa: E402
from sepia.text.embeddings import Embeddings  # noqa: E402


def texts() -> tuple[list[str], list[str]]:
    """(nuggets, sentences), each distinct, over corpora/cs, ct and ja."""
    nuggets: list[str] = []
    passages: list[str] = []
    for corpus in ("cs", "ct", "ja"):
        folder = ROOT / "corpora" / corpus
        nuggets += [n.text for t in read_file(folder / "gold.xml", "gold").topics for n in t.nuggets]
        for path in sorted((folder / "runs").glob("*.xml")):
            run = read_file(path, "cclqa")
            passages += [s for t in run.topics for a in t.answers for s in sentences(a.text) or [a.text]]
    return list(dict.fromkeys(nuggets)), list(dict.fromkeys(passages))


def timed(nuggets: list[str], passages: list[str], cache: bool) -> tuple[float, float, bytes]:
    """(wall seconds, CPU seconds, the vectors' bytes) of a fresh Embeddings embedding both."""
    wall, cpu = time.perf_counter(), time.process_time()
    embeddings = Embeddings(cache=cache)
    vectors = embeddings.vectors(nuggets, "query").tobytes() + embeddings.vectors(passages, "passage").tobytes()
    return time.perf_counter() - wall, time.process_time() - cpu, vectors


def main() -> None:
    nuggets, passages = texts()
    with tempfile.TemporaryDirectory() as home:
        os.environ["SEPIA_HOME"] = home
        os.environ.pop("SEPIA_EMBEDDINGS_CACHE", None)
        print(f"{len(nuggets)} nuggets, {len(passages)} sentences")
        runs = {"cold": timed(nuggets, passages, True), "warm": timed(nuggets, passages, True),
                "off": timed(nuggets, passages, False)}
        size = sum(f.stat().st_size for f in (Path(home) / "embeddings").glob("*.sqlite"))
    for name, (wall, cpu, _) in runs.items():
        print(f"{name:5} {wall:7.3f} s wall {cpu:7.3f} s CPU")
    print(f"cache file {size / 1e6:.2f} MB; vectors identical: {len({v for _, _, v in runs.values()}) == 1}")


if __name__ == "__main__":
    main()
