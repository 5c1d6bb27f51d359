#!/usr/bin/env python
"""Benchmark: ingest, index build and search latency of both engines on a collection of real text.

    .venv/bin/python tools/bench_search.py --lang JA --docs 100000
    .venv/bin/python tools/bench_search.py --lang CS --docs 100000 --engines tantivy --queries 300

JA documents are the Japanese Wikinews articles (../shared/data/jawikinews) re-labelled until
--docs is reached; CS/CT documents are 5-25 sentences drawn from the UD Chinese GSDSimp/GSD
treebanks. Everything goes through SEPIA's own paths (JSONL -> ingest -> store ->
SearchEngine.build -> SearchEngine.search). The baseline, measured in this same process, is the
analyzer alone over the same documents read from the store, on the same number of processes as the
builds (sepia.search.parallel.analyse_only), timed before and after each build (the mean is used).
With --rounds N the builds and the baseline alternate N times and each ratio is the median of the
rounds' ratios (a build over the baseline passes just before and after it), the figure to trust on
a shared machine; the aim (BUILD_AIM) is printed beside it.
Reported per engine: build wall and CPU time (all processes) and their ratios to the baseline,
documents and characters per second, peak memory of the process tree during the build (PSS, which
counts shared pages once, and the largest single process's RSS), index size, and search latency
p50/p95 of a page of 10 hits with snippets over realistic queries (word pairs, phrases, generated
OR queries), with the load average before and after; for tantivy, the CPU p95 beside tantivy-py's
own search of the same queries on the same index, interleaved (the aim, SEARCH_AIM, printed beside).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("SEPIA_SHARED_DATA", ROOT.parent / "shared" / "data"))
WIKINEWS = DATA / "jawikinews" / "jawikinews_20190909_detok.jsonl"
UD = {"CS": ["UD_Chinese-GSDSimp__zh_gsdsimp-ud-dev.conllu", "UD_Chinese-GSDSimp__zh_gsdsimp-ud-test.conllu"],
      "CT": ["UD_Chinese-GSD__zh_gsd-ud-dev.conllu", "UD_Chinese-GSD__zh_gsd-ud-test.conllu"]}
CONTENT_POS = {"NOUN", "PROPN", "VERB"}
BUILD_AIM = 1.1  # a tantivy build's time at most this many times the analyzer-only baseline's
SEARCH_AIM = 5.0  # a tantivy query with 10 snippets, CPU p95, at most this many times tantivy-py's own


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
        if kind == 0:  # explicit AND: CJK text without operators is now any of its words
            queries.append(" AND ".join(rng.sample(words, 2)))
        elif kind == 1:
            i = rng.randrange(len(words) - 1)
            queries.append(f'"{words[i]}{words[i + 1]}"' if lang != "EN" else f'"{words[i]} {words[i + 1]}"')
        else:
            queries.append(engine.generate_query(lang, rng.sample(words, min(len(words), rng.randint(3, 5)))))
    return queries


# ---------------------------------------------------------------- measurements

def cpu_split() -> tuple[float, float]:
    """User + system CPU of this process, and of its finished children (the analysis workers)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def cpu_seconds() -> float:
    return sum(cpu_split())


def _tree(pid: int) -> list[int]:
    """pid and its descendants (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):  # ended meanwhile
            continue
        children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        found.append(p)
        todo.extend(children.get(p, ()))
    return found


def _memory_kb(pid: int) -> tuple[int, int]:
    """(PSS, RSS) of one process in KiB."""
    pss = rss = 0
    try:
        for line in open(f"/proc/{pid}/smaps_rollup"):
            if line.startswith("Pss:"):
                pss = int(line.split()[1])
            elif line.startswith("Rss:"):
                rss = int(line.split()[1])
    except OSError:
        pass
    return pss, rss


class PeakMemory:
    """Samples the memory of this process and its descendants while a phase runs: the peak of the
    tree's summed PSS (shared pages counted once) and of the largest single RSS, in MB. Its own
    CPU (cpu_s: reading /proc, mostly the kernel's walk of the processes' pages) is this process's
    but not the phase's: callers subtract it. At 4 samples a second it took 9% of a core during a
    100,000-document build, as much as a third of what was then counted as the building process's."""

    def __init__(self, interval: float = 1.0):
        self.interval, self.tree_mb, self.process_mb, self.cpu_s = interval, 0.0, 0.0, 0.0
        self._stop = threading.Event()

    def _sample(self):
        while not self._stop.is_set():
            mems = [_memory_kb(p) for p in _tree(os.getpid())]
            self.tree_mb = max(self.tree_mb, sum(m[0] for m in mems) / 1024)
            self.process_mb = max(self.process_mb, max(m[1] for m in mems) / 1024)
            self._stop.wait(self.interval)
        self.cpu_s = time.thread_time()  # this thread's, user and system

    def __enter__(self):
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def analyzer_only(store, lang: str, procs: int) -> tuple[float, float, int]:
    """Wall and CPU seconds (all processes) to read the documents from the store and run the
    analyzer over title and body on `procs` processes, as a build does; and the number of tokens."""
    from sepia.search.parallel import analyse_only
    from sepia.services.indexing import StoredDocuments

    cpu = cpu_seconds()
    started = time.perf_counter()
    expected, docs = StoredDocuments(store).stream(lang)
    tokens = analyse_only(lang, docs, procs, expected)
    return time.perf_counter() - started, cpu_seconds() - cpu, tokens


def percentile(values: list[float], p: float) -> float:
    values = sorted(values)
    k = (len(values) - 1) * p
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, timeout=5).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lang", default="JA", choices=["JA", "CS", "CT"])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--engines", default="tantivy,whoosh", help="comma-separated, built in this order")
    parser.add_argument("--procs", type=int, default=os.cpu_count())
    parser.add_argument("--rounds", type=int, default=1,
                        help="build each engine N times, alternating with the baseline; with N > 1 the ratios "
                             "are the medians of the rounds' (each build over the baseline passes either side)")
    parser.add_argument("--workdir", type=Path, help="default: a fresh temporary directory")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--search-only", action="store_true",
                        help="only the query part, on the indexes an earlier run left in --workdir")
    args = parser.parse_args()
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]

    work = args.workdir or Path(tempfile.mkdtemp(prefix="sepia-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    os.environ["SEPIA_HOME"] = str(work / "home")
    from sepia.search import open_engine
    from sepia.services.documents import ingest
    from sepia.services.indexing import StoredDocuments
    from sepia.store.db import Store

    figures: dict = {"lang": args.lang, "docs": args.docs, "procs": args.procs, "cpus": os.cpu_count(),
                     "uptime_before": uptime()}
    if args.search_only:
        for name in engines:
            figures[name] = measure_search(open_engine(work / "index", name), args.lang, args.queries)
        figures["uptime_after"] = uptime()
        report_figures(figures, args.json)
        return
    collection = work / f"{args.lang.lower()}.jsonl"
    log(f"writing {args.docs} documents to {collection}")
    chars = write_collection(args.lang, args.docs, collection)
    figures["chars"] = chars

    store = Store(f"sqlite:///{work / 'bench.db'}")
    started = time.perf_counter()
    report = ingest(store, args.lang, [collection], progress=False)
    figures["ingest_s"] = round(time.perf_counter() - started, 1)
    assert report.stored == args.docs, report.problems[:5]
    log(f"ingest: {report.stored} docs in {figures['ingest_s']:.1f} s")

    walls, cpus = [], []

    def baseline():
        with PeakMemory() as peak:
            wall, cpu, tokens = analyzer_only(store, args.lang, args.procs)
        cpu -= peak.cpu_s
        figures.setdefault("analyzer_memory_sampling_cpu_s", []).append(round(peak.cpu_s, 1))
        walls.append(wall)
        cpus.append(cpu)
        figures["tokens"] = tokens
        figures["analyzer_peak_tree_mb"] = max(figures.get("analyzer_peak_tree_mb", 0), round(peak.tree_mb))
        log(f"analyzer only, {args.procs} processes: {wall:.1f} s ({cpu:.1f} s CPU), {tokens} tokens; "
            f"load {os.getloadavg()[0]:.2f}")

    builds: dict[str, list[dict]] = {name: [] for name in engines}
    baseline()
    for round_ in range(args.rounds):
        for name in engines:
            if args.rounds > 1:
                log(f"round {round_ + 1} of {args.rounds}: {name}")
            builds[name].append(measure_build(open_engine(work / "index", name), StoredDocuments(store), args, chars))
            # this build's own baseline: the passes just before and after it
            baseline()
            builds[name][-1]["baseline_s"] = statistics.mean(walls[-2:])
            builds[name][-1]["baseline_cpu_s"] = statistics.mean(cpus[-2:])
    analysis, analysis_cpu = statistics.mean(walls), statistics.mean(cpus)
    figures.update({"analyzer_only_s": [round(w, 1) for w in walls],
                    "analyzer_only_cpu_s": [round(c, 1) for c in cpus],
                    "analyzer_chars_per_s": round(chars / analysis), "rounds": args.rounds})
    for name in engines:
        figures[name] = summarise_builds(builds[name], analysis, analysis_cpu)
        if args.rounds > 1:
            f = figures[name]
            log(f"{name} build ÷ baseline, median of {args.rounds} rounds: wall {f['build_to_analyzer_ratio']:.3f} "
                f"({min(f['round_ratios']):.3f}–{max(f['round_ratios']):.3f}), CPU "
                f"{f['build_to_analyzer_cpu_ratio']:.3f} ({min(f['round_cpu_ratios']):.3f}–"
                f"{max(f['round_cpu_ratios']):.3f}); aim ≤ {BUILD_AIM}")
    for name in engines:
        figures[name].update(measure_search(open_engine(work / "index", name), args.lang, args.queries))
    figures["uptime_after"] = uptime()
    report_figures(figures, args.json)


def measure_build(engine, documents, args, chars: int) -> dict:
    """One fresh build of the index: wall and CPU time (split into this, the building process, and
    its analysis workers), peak memory, index size."""
    cpu = cpu_split()
    started = time.perf_counter()
    with PeakMemory() as peak:
        build = engine.build(documents, args.lang, rebuild=True, procs=args.procs, progress=False)
    build_s = time.perf_counter() - started
    builder_cpu, workers_cpu = (after - before for after, before in zip(cpu_split(), cpu))
    builder_cpu -= peak.cpu_s
    build_cpu = builder_cpu + workers_cpu
    path = engine.index_path(args.lang)
    log(f"{engine.name} build: {build_s:.1f} s ({build_cpu:.1f} s CPU: {builder_cpu:.1f} building process, "
        f"{workers_cpu:.1f} workers), peak {peak.tree_mb:.0f} MB; load {os.getloadavg()[0]:.2f}")
    return {
        "build_s": build_s, "build_cpu_s": build_cpu, "indexed": build.total,
        # this process (reading the store, tantivy's writer; Whoosh's writer and merges) / the workers
        "build_cpu_builder_s": builder_cpu, "build_cpu_workers_s": workers_cpu,
        "build_docs_per_s": round(args.docs / build_s, 1), "build_chars_per_s": round(chars / build_s),
        "peak_tree_pss_mb": round(peak.tree_mb), "peak_process_rss_mb": round(peak.process_mb),
        "memory_sampling_cpu_s": round(peak.cpu_s, 1),  # not counted in the CPU figures
        "index_mb": round(sum(f.stat().st_size for f in path.iterdir() if f.is_file()) / 1e6, 1),
        "load_after_build": round(os.getloadavg()[0], 2),
    }


def summarise_builds(builds: list[dict], analysis: float, analysis_cpu: float) -> dict:
    """An engine's build figures. One round: that build, its ratios to the mean of all baseline
    passes. Several: each round's build over the mean of the baseline passes just before and after
    it, and the medians of those per-round ratios (and of the times); peak memory is the largest."""
    if len(builds) == 1:
        f = dict(builds[0])
        f["build_to_analyzer_ratio"] = round(f["build_s"] / analysis, 3)
        # load-independent: CPU of the whole build (all processes) over CPU of analysis alone
        f["build_to_analyzer_cpu_ratio"] = round(f["build_cpu_s"] / analysis_cpu, 3)
    else:
        f = {key: statistics.median(b[key] for b in builds) for key in
             ("build_s", "build_cpu_s", "build_cpu_builder_s", "build_cpu_workers_s", "build_docs_per_s",
              "build_chars_per_s", "index_mb")}
        f.update({"indexed": builds[-1]["indexed"], "load_after_build": [b["load_after_build"] for b in builds],
                  "peak_tree_pss_mb": max(b["peak_tree_pss_mb"] for b in builds),
                  "peak_process_rss_mb": max(b["peak_process_rss_mb"] for b in builds),
                  "round_build_s": [round(b["build_s"], 1) for b in builds],
                  "round_build_cpu_s": [round(b["build_cpu_s"], 1) for b in builds],
                  "round_ratios": [round(b["build_s"] / b["baseline_s"], 3) for b in builds],
                  "round_cpu_ratios": [round(b["build_cpu_s"] / b["baseline_cpu_s"], 3) for b in builds]})
        f["build_to_analyzer_ratio"] = statistics.median(f["round_ratios"])
        f["build_to_analyzer_cpu_ratio"] = statistics.median(f["round_cpu_ratios"])
    for key in ("build_s", "build_cpu_s", "build_cpu_builder_s", "build_cpu_workers_s"):
        f[key] = round(f[key], 1)
    for key in ("baseline_s", "baseline_cpu_s"):
        f.pop(key, None)
    f["build_aim"] = BUILD_AIM
    return f


def measure_search(engine, lang: str, count: int) -> dict:
    """Latency of engine.search (a page of 10 with snippets): wall clock, and CPU time of this
    process, which a busy machine does not inflate."""
    queries = make_queries(lang, count, engine)
    started = time.perf_counter()
    engine.search(lang, queries[0])
    first_ms = (time.perf_counter() - started) * 1000
    latencies, cpu_latencies, totals, raw_cpu = [], [], [], []
    raw = raw_tantivy(engine, lang) if engine.name == "tantivy" else None
    load = os.getloadavg()[0]
    for q in queries:
        if raw:  # the reference, interleaved with SEPIA's query on the same index
            raw_cpu.append(raw(q))
        cpu, started = time.process_time(), time.perf_counter()
        page = engine.search(lang, q)
        latencies.append((time.perf_counter() - started) * 1000)
        cpu_latencies.append((time.process_time() - cpu) * 1000)
        totals.append(page.total)
    log(f"{engine.name} search: p50 {percentile(latencies, 0.5):.1f} ms, p95 {percentile(latencies, 0.95):.1f} ms")
    reference = {}
    if raw:
        ratio = percentile(cpu_latencies, 0.95) / percentile(raw_cpu, 0.95)
        reference = {"tantivy_py_cpu_p95_ms": round(percentile(raw_cpu, 0.95), 3),
                     "search_to_tantivy_py_cpu_p95_ratio": round(ratio, 2), "search_ratio_aim": SEARCH_AIM}
        log(f"tantivy search with snippets ÷ tantivy-py's own search, CPU p95: {ratio:.1f}; aim ≤ {SEARCH_AIM}")
    return {**reference,
        "first_query_ms": round(first_ms, 1), "queries": len(queries),
        "search_p50_ms": round(percentile(latencies, 0.5), 1), "search_p95_ms": round(percentile(latencies, 0.95), 1),
        "search_max_ms": round(max(latencies), 1), "search_mean_ms": round(statistics.mean(latencies), 1),
        "search_cpu_p50_ms": round(percentile(cpu_latencies, 0.5), 1),
        "search_cpu_p95_ms": round(percentile(cpu_latencies, 0.95), 1),
        "queries_with_hits": sum(1 for t in totals if t), "median_hits": statistics.median(totals),
        "load_before_search": round(load, 2), "load_after_search": round(os.getloadavg()[0], 2),
        "examples": queries[:3] + queries[-3:],
    }


def raw_tantivy(engine, lang: str):
    """A function timing tantivy-py's own search for a query on the engine's index (CPU ms): the
    same tantivy query, its top 10 and the count, without stored fields or snippets (the query
    is parsed and translated outside the timing)."""
    from sepia.search.base import understand
    from sepia.search.tantivy_query import to_tantivy

    reader = engine._reader(lang)
    schema = engine._schema(reader)

    def timed(text: str) -> float:
        query = to_tantivy(understand(schema, lang, text)[0], reader.index.schema, engine._lexicon(reader))
        cpu = time.process_time()
        if query is not None:
            reader.searcher.search(query, 10, count=True)
        return (time.process_time() - cpu) * 1000

    return timed


def report_figures(figures: dict, path: Path | None) -> None:
    text = json.dumps(figures, ensure_ascii=False, indent=1)
    print(text)
    if path:
        path.write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
