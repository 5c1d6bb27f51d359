#!/usr/bin/env python
"""Benchmark: ingest, index build and search latency on a synthetic collection of real text.

    .venv/bin/python tools/bench_search.py --lang JA --docs 100000
    .venv/bin/python tools/bench_search.py --lang CS --docs 100000 --queries 300

JA documents are the Japanese Wikinews articles (../shared/data/jawikinews) re-labelled until
--docs is reached; CS/CT documents are 5-25 sentences drawn from the UD Chinese GSDSimp/GSD
treebanks. Everything goes through SEPIA's own paths (JSONL -> ingest -> store -> build_index ->
open_engine().search). Reported: documents and characters per second, peak memory of the main
process and of the largest worker, the ratio of build time to analyzer-only tokenisation of the
same documents in the same process (measured before and after the build; the mean is used), and
search latency p50/p95 over realistic queries (word pairs, phrases, generated OR queries).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("SEPIA_SHARED_DATA", ROOT.parent / "shared" / "data"))
WIKINEWS = DATA / "jawikinews" / "jawikinews_20190909_detok.jsonl"
UD = {"CS": ["UD_Chinese-GSDSimp__zh_gsdsimp-ud-dev.conllu", "UD_Chinese-GSDSimp__zh_gsdsimp-ud-test.conllu"],
      "CT": ["UD_Chinese-GSD__zh_gsd-ud-dev.conllu", "UD_Chinese-GSD__zh_gsd-ud-test.conllu"]}
CONTENT_POS = {"NOUN", "PROPN", "VERB"}


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- collections and queries

def ud_sentences(lang: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """(text, [(form, upos)]) of every treebank sentence."""
    sentences = []
    for name in UD[lang]:
        text, words = None, []
        for line in open(DATA / "ud-chinese" / name, encoding="utf-8"):
            line = line.rstrip("\n")
            if line.startswith("# text = "):
                text = line[9:].strip()
            elif line and not line.startswith("#"):
                cols = line.split("\t")
                if cols[0].isdigit():
                    words.append((cols[1], cols[3]))
            elif not line and text:
                sentences.append((text, words))
                text, words = None, []
    return sentences


def write_collection(lang: str, n: int, path: Path, seed: int = 7) -> int:
    """Write n JSONL documents; returns their total characters."""
    rng = random.Random(seed)
    chars = 0
    with open(path, "w", encoding="utf-8") as out:
        if lang == "JA":
            articles = [json.loads(line) for line in open(WIKINEWS, encoding="utf-8")]
            for i in range(n):
                a = articles[i % len(articles)]
                doc = {"id": f"JAWN-{i // len(articles):03d}-{a['id']}", "title": a["title"], "text": a["text"]}
                chars += len(doc["text"]) + len(doc["title"])
                out.write(json.dumps(doc, ensure_ascii=False) + "\n")
        else:
            sentences = [s for s, _ in ud_sentences(lang)]
            for i in range(n):
                k = rng.randint(5, 25)
                start = rng.randrange(len(sentences))
                body = "".join(sentences[(start + j) % len(sentences)] for j in range(k))
                doc = {"id": f"UD{lang}-{i:07d}", "title": sentences[start][:30], "text": body}
                chars += len(body) + len(doc["title"])
                out.write(json.dumps(doc, ensure_ascii=False) + "\n")
    return chars


def make_queries(lang: str, count: int, engine, seed: int = 11) -> list[str]:
    """A third word pairs (AND), a third quoted phrases, a third generated OR queries of 3-5 key terms."""
    rng = random.Random(seed)
    if lang == "JA":
        from sepia.search.japanese import sudachi_tokenizer

        tok = sudachi_tokenizer()
        articles = [json.loads(line) for line in open(WIKINEWS, encoding="utf-8")]
        pool = []
        for a in rng.sample(articles, min(len(articles), 400)):
            words = [m.surface() for m in tok.tokenize(a["title"]) if m.part_of_speech()[0] in ("名詞", "動詞")
                     and len(m.surface()) > 1]
            if len(words) >= 2:
                pool.append(words)
    else:
        pool = []
        for _text, words in ud_sentences(lang):
            content = [w for w, pos in words if pos in CONTENT_POS and len(w) > 1]
            if len(content) >= 3:
                pool.append(content)
    queries = []
    while len(queries) < count:
        words = rng.choice(pool)
        kind = len(queries) % 3
        if kind == 0:
            queries.append(" ".join(rng.sample(words, 2)))
        elif kind == 1:
            i = rng.randrange(len(words) - 1)
            queries.append(f'"{words[i]}{words[i + 1]}"' if lang != "EN" else f'"{words[i]} {words[i + 1]}"')
        else:
            queries.append(engine.generate_query(lang, rng.sample(words, min(len(words), rng.randint(3, 5)))))
    return queries


# ---------------------------------------------------------------- measurements

def cpu_seconds() -> float:
    """User + system CPU of this process and of its finished children (the index workers)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def peak_mb() -> tuple[float, float]:
    """(this process, largest child) peak resident memory in MB (Linux reports KiB)."""
    return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)


def analyzer_only(store, lang: str) -> tuple[float, float, int]:
    """Wall and CPU seconds to read the documents from the store and run the analyzer over title
    and body as indexing does (positions), in this process; and the number of tokens."""
    from sepia.search.analyzers import analyzer_for
    from sepia.search.indexer import store_documents

    analyzer = analyzer_for(lang)
    cpu = cpu_seconds()
    started = time.perf_counter()
    tokens = 0
    _count, docs = store_documents(store, lang)
    for doc in docs:
        for name in ("title", "body"):
            for _ in analyzer(doc[name], positions=True, mode="index"):
                tokens += 1
    return time.perf_counter() - started, cpu_seconds() - cpu, tokens


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    k = (len(values) - 1) * p
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lang", default="JA", choices=["JA", "CS", "CT"])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--procs", type=int, default=2)
    parser.add_argument("--workdir", type=Path, help="default: a fresh temporary directory")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--search-only", action="store_true",
                        help="only the query part, on the index an earlier run left in --workdir")
    parser.add_argument("--repeat-analysis", action="store_true",
                        help="time the analyzer-only pass again after the build and use the mean")
    args = parser.parse_args()

    work = args.workdir or Path(tempfile.mkdtemp(prefix="sepia-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ["SEPIA_HOME"] = str(work / "home")
    from sepia.corpus.ingest import ingest
    from sepia.search.indexer import build_index
    from sepia.store.db import Store

    figures: dict = {"lang": args.lang, "docs": args.docs, "procs": args.procs, "cpus": os.cpu_count(),
                     "load_before": os.getloadavg()[0]}
    if args.search_only:
        figures.update(measure_search(args.lang, work / "index", args.queries))
        report_figures(figures, args.json)
        return
    collection = work / f"{args.lang.lower()}.jsonl"
    log(f"writing {args.docs} documents to {collection}")
    chars = write_collection(args.lang, args.docs, collection)
    figures["chars"] = chars

    store = Store(f"sqlite:///{work / 'bench.db'}")
    started = time.perf_counter()
    report = ingest(store, args.lang, [collection], progress=False)
    figures["ingest_s"] = time.perf_counter() - started
    figures["ingest_docs_per_s"] = report.stored / figures["ingest_s"]
    assert report.stored == args.docs, report.problems[:5]
    log(f"ingest: {report.stored} docs in {figures['ingest_s']:.1f} s")

    walls, cpus = [], []
    wall, cpu, tokens = analyzer_only(store, args.lang)
    walls.append(wall)
    cpus.append(cpu)
    log(f"analyzer only: {wall:.1f} s ({cpu:.1f} s CPU), {tokens} tokens")
    cpu = cpu_seconds()
    started = time.perf_counter()
    build = build_index(store, args.lang, work / "index", rebuild=True, procs=args.procs, progress=False)
    build_s = time.perf_counter() - started
    build_cpu = cpu_seconds() - cpu
    log(f"build: {build_s:.1f} s ({build_cpu:.1f} s CPU)")
    if args.repeat_analysis:
        wall, cpu, _ = analyzer_only(store, args.lang)
        walls.append(wall)
        cpus.append(cpu)
        log(f"analyzer only (again): {wall:.1f} s ({cpu:.1f} s CPU)")
    analysis, analysis_cpu = statistics.mean(walls), statistics.mean(cpus)
    main_mb, worker_mb = peak_mb()
    figures.update({
        "tokens": tokens, "analyzer_only_s": [round(w, 1) for w in walls],
        "analyzer_only_cpu_s": [round(c, 1) for c in cpus], "build_s": round(build_s, 1),
        "build_cpu_s": round(build_cpu, 1),
        "build_docs_per_s": round(args.docs / build_s, 1), "build_chars_per_s": round(chars / build_s),
        "analyzer_chars_per_s": round(chars / analysis), "build_to_analyzer_ratio": round(build_s / analysis, 3),
        # load-independent: CPU of the whole build (all processes) over CPU of analysis alone
        "build_to_analyzer_cpu_ratio": round(build_cpu / analysis_cpu, 3),
        "peak_mb_main": round(main_mb), "peak_mb_worker": round(worker_mb), "indexed": build.total,
        "index_mb": round(sum(f.stat().st_size for f in (work / "index" / args.lang.lower()).iterdir()) / 1e6, 1),
    })

    figures.update(measure_search(args.lang, work / "index", args.queries))
    report_figures(figures, args.json)


def measure_search(lang: str, index_dir: Path, count: int) -> dict:
    """Latency of open_engine().search (a page of 10 with snippets): wall clock, and CPU time of
    this process, which a busy machine does not inflate."""
    from sepia.search import open_engine

    engine = open_engine(index_dir)
    queries = make_queries(lang, count, engine)
    started = time.perf_counter()
    engine.search(lang, queries[0])
    first_ms = (time.perf_counter() - started) * 1000
    latencies, cpu_latencies, totals = [], [], []
    for q in queries:
        cpu, started = time.process_time(), time.perf_counter()
        page = engine.search(lang, q)
        latencies.append((time.perf_counter() - started) * 1000)
        cpu_latencies.append((time.process_time() - cpu) * 1000)
        totals.append(page.total)
    return {
        "first_query_ms": round(first_ms, 1), "queries": len(queries),
        "search_p50_ms": round(percentile(latencies, 0.5), 1), "search_p95_ms": round(percentile(latencies, 0.95), 1),
        "search_max_ms": round(max(latencies), 1), "search_mean_ms": round(statistics.mean(latencies), 1),
        "search_cpu_p50_ms": round(percentile(cpu_latencies, 0.5), 1),
        "search_cpu_p95_ms": round(percentile(cpu_latencies, 0.95), 1),
        "queries_with_hits": sum(1 for t in totals if t), "median_hits": statistics.median(totals),
        "load_after": os.getloadavg()[0], "examples": queries[:3] + queries[-3:],
    }


def report_figures(figures: dict, path: Path | None) -> None:
    text = json.dumps(figures, ensure_ascii=False, indent=1)
    print(text)
    if path:
        path.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
