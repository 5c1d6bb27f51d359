#!/usr/bin/env python
"""Benchmark: known-item search with natural Japanese queries on the Japanese Wikinews articles.

    .venv/bin/python tools/bench_known_item.py [--articles 300] [--engines tantivy,whoosh] [--json out.json]

The 3,670 articles of ../shared/data/jawikinews (or $SEPIA_SHARED_DATA) are ingested into a fresh
store and indexed by each engine. For each of --articles articles drawn at random, two queries as a
topic developer types them, each with that article as the one item to find:

- `words`: its two most characteristic content words joined by の (the two nouns of the article
  with the highest tf x idf, idf over the nouns of all articles), e.g. 震源の津波警報;
- `title`: its title followed by について.

Each query runs twice on the same index: as SEPIA read it before (the query language over the text
as typed: an unspaced CJK text is one phrase) and as it reads it now (SearchEngine.search: any of
its content words, sepia.search.natural). Reported per engine, reading and kind: queries with no
hit, recall@10 (the article among the first 10), MRR@10, and the mean time a query takes to be
read and ranked (no snippets, in this process; the new reading's over the old one's), with the aims
beside them: no query without a hit, recall@10 at least 0.9.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("SEPIA_SHARED_DATA", ROOT.parent / "shared" / "data"))
WIKINEWS = DATA / "jawikinews" / "jawikinews_20190909_detok.jsonl"
AIM_RECALL = 0.9
AIM_ZERO_HITS = 0
DEPTH = 10
NOUNS = ("普通名詞", "固有名詞")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def article_nouns(text: str) -> list[str]:
    """The nouns (common and proper, Sudachi's long units, two characters or more) of a text."""
    from sepia.search.japanese import chunks, sudachi_tokenizer

    tokenizer = sudachi_tokenizer()
    return [m.surface() for _base, piece in chunks(text) for m in tokenizer.tokenize(piece)
            if m.part_of_speech()[0] == "名詞" and m.part_of_speech()[1] in NOUNS and len(m.surface()) >= 2
            and not m.surface().isascii()]


def make_queries(articles: list[dict], count: int, seed: int) -> list[tuple[str, str, str]]:
    """(kind, query, docid of the article to find) for `count` articles drawn at random."""
    log(f"finding the nouns of {len(articles)} articles ...")
    nouns = {a["id"]: Counter(article_nouns(a["title"] + "\n" + a["text"])) for a in articles}
    df = Counter(noun for counts in nouns.values() for noun in counts)
    n = len(articles)
    queries = []
    for article in random.Random(seed).sample(articles, count):
        counts = nouns[article["id"]]
        ranked = sorted(counts, key=lambda w: (-counts[w] * math.log(n / df[w]), w))
        if len(ranked) >= 2:
            queries.append(("words", f"{ranked[0]}の{ranked[1]}", article["id"]))
        queries.append(("title", f"{article['title']}について", article["id"]))
    return queries


def first_page(engine, lang: str, q) -> list[str]:
    """The DOCIDs of the first page of a query tree (ranking only: no snippets, for either reading)."""
    from whoosh import query as wq

    if q is wq.NullQuery:
        return []
    return [stored["docid"] for stored, _score in engine._run(engine._reader(lang), q, 0, DEPTH)[1]]


def run_old(engine, lang: str, text: str) -> list[str]:
    """As SEPIA read the text before: the query language over it as typed."""
    from sepia.search.base import parse_query

    return first_page(engine, lang, parse_query(engine._schema(engine._reader(lang)), text))


def run_new(engine, lang: str, text: str) -> list[str]:
    """As SearchEngine.search reads it now (sepia.search.base.understand)."""
    from sepia.search.base import understand

    return first_page(engine, lang, understand(engine._schema(engine._reader(lang)), lang, text)[0])


def measure(engine, queries, run) -> dict:
    figures: dict[str, dict] = {}
    for kind in ("words", "title", "all"):
        chosen = [q for q in queries if kind in ("all", q[0])]
        zero = found = 0
        reciprocal = 0.0
        started = time.perf_counter()
        for _kind, text, docid in chosen:
            ranked = run(engine, "JA", text)
            zero += not ranked
            if docid in ranked:
                found += 1
                reciprocal += 1 / (ranked.index(docid) + 1)
        seconds = time.perf_counter() - started
        figures[kind] = {"queries": len(chosen), "zero_hits": zero, "recall@10": round(found / len(chosen), 4),
                         "mrr@10": round(reciprocal / len(chosen), 4), "ms_per_query": round(1000 * seconds / len(chosen), 2)}
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--articles", type=int, default=300)
    parser.add_argument("--engines", default="tantivy,whoosh")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if not WIKINEWS.exists():
        sys.exit(f"error: {WIKINEWS} not found (set SEPIA_SHARED_DATA)")

    from sepia.search import open_engine
    from sepia.services.documents import ingest
    from sepia.services.indexing import StoredDocuments
    from sepia.store.db import Store

    articles = [json.loads(line) for line in open(WIKINEWS, encoding="utf-8")]
    for article in articles:
        article["id"] = str(article["id"])
    queries = make_queries(articles, args.articles, args.seed)
    report = {"articles": len(articles), "queries": len(queries), "aims": {"zero_hits": AIM_ZERO_HITS,
              "recall@10": AIM_RECALL}, "examples": [q[1] for q in queries[:6]], "engines": {}}
    with tempfile.TemporaryDirectory(prefix="sepia-known-item-") as work:
        store = Store(f"sqlite:///{Path(work) / 'store.db'}")
        assert ingest(store, "JA", [WIKINEWS], progress=False).stored == len(articles)
        for name in args.engines.split(","):
            engine = open_engine(Path(work) / f"index-{name}", name)
            started = time.perf_counter()
            engine.build(StoredDocuments(store), "JA", progress=False)
            log(f"{name}: built in {time.perf_counter() - started:.1f} s")
            old, new = measure(engine, queries, run_old), measure(engine, queries, run_new)
            report["engines"][name] = {"before": old, "now": new}
            print_table(name, old, new)
        store.dispose()
    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")


def print_table(name: str, old: dict, new: dict) -> None:
    print(f"\n{name}: known-item search, {old['all']['queries']} queries "
          f"(aims: {AIM_ZERO_HITS} without a hit, recall@10 >= {AIM_RECALL})")
    print(f"{'kind':<6} {'reading':<7} {'queries':>7} {'no hit':>7} {'recall@10':>9} {'MRR@10':>7} {'ms/query':>9}")
    for kind in ("words", "title", "all"):
        for label, figures in (("before", old[kind]), ("now", new[kind])):
            print(f"{kind:<6} {label:<7} {figures['queries']:>7} {figures['zero_hits']:>7} {figures['recall@10']:>9.3f} "
                  f"{figures['mrr@10']:>7.3f} {figures['ms_per_query']:>9.2f}")
    ratio = new["all"]["ms_per_query"] / max(old["all"]["ms_per_query"], 1e-9)
    met = new["all"]["zero_hits"] <= AIM_ZERO_HITS and new["all"]["recall@10"] >= AIM_RECALL
    print(f"time a query, now / before: {ratio:.2f}; aims {'met' if met else 'NOT met'}")


if __name__ == "__main__":
    main()
