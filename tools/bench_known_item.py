#!/usr/bin/env python
"""Benchmark: known-item search with natural Japanese and English queries and questions.

    .venv/bin/python tools/bench_known_item.py [--articles 300] [--engines tantivy,whoosh] [--json out.json]

Japanese: the 3,670 articles of ../shared/data/jawikinews (or $SEPIA_SHARED_DATA) are ingested into
a fresh store and indexed by each engine. For each of --articles articles drawn at random, three
queries as a topic developer types them, each with that article as the one item to find:

- `words`: its two most characteristic content words joined by の (the two nouns of the article
  with the highest tf x idf, idf over the nouns of all articles), e.g. 震源の津波警報;
- `title`: its title followed by について;
- `question`: its title asked as a question, followed by とはどういうことか (quotation marks and all).

English: the 865 distinct answers of the TREC 2024 RAG nugget assignments (../shared/data/trec-rag24)
are the collection, one document each. Queries:

- `topic`: each of the 21 topic questions as NIST wrote them (why has olive oil increased in
  price), the items to find being the answers to it (one of them among the first 10 is a find);
- `sentence`: for --articles answers drawn at random whose first sentence no other answer shares,
  that sentence asked as a question ("why " + sentence + "?"), the answer being the one item to find.

Each query runs twice on the same index: as SEPIA read it before (the query language over the text
as typed: an unspaced CJK text is one phrase) and as it reads it now (SearchEngine.search: any of
its content words, sepia.search.natural). Reported per engine, reading and kind: queries with no
hit, recall@10 (the article among the first 10), MRR@10, and the mean time a query takes to be
read and ranked (no snippets, in this process; the new reading's over the old one's), with the aims
beside them for each language's questions and all its queries: no query without a hit, recall@10 at
least 0.9.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("SEPIA_SHARED_DATA", ROOT.parent / "shared" / "data"))
WIKINEWS = DATA / "jawikinews" / "jawikinews_20190909_detok.jsonl"
RAG = DATA / "trec-rag24" / "rag24_nugget_assignment.20241108.jl"
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


def make_queries(articles: list[dict], count: int, seed: int) -> list[tuple[str, str, frozenset[str]]]:
    """(kind, query, {docid of the article to find}) for `count` articles drawn at random."""
    log(f"finding the nouns of {len(articles)} articles ...")
    nouns = {a["id"]: Counter(article_nouns(a["title"] + "\n" + a["text"])) for a in articles}
    df = Counter(noun for counts in nouns.values() for noun in counts)
    n = len(articles)
    queries = []
    for article in random.Random(seed).sample(articles, count):
        counts = nouns[article["id"]]
        ranked = sorted(counts, key=lambda w: (-counts[w] * math.log(n / df[w]), w))
        target = frozenset({article["id"]})
        if len(ranked) >= 2:
            queries.append(("words", f"{ranked[0]}の{ranked[1]}", target))
        queries.append(("title", f"{article['title']}について", target))
        queries.append(("question", f"{article['title']}とはどういうことか", target))
    return queries


def rag_collection() -> tuple[list[dict], list[tuple[str, str, frozenset[str]]], dict[str, str]]:
    """The distinct TREC RAG 2024 answers as documents, the `topic` queries (each topic question,
    its answers the items to find) and each answer's first sentence (docid -> sentence) where no
    other answer shares it."""
    answers: dict[str, dict] = {}
    for line in open(RAG, encoding="utf-8"):
        record = json.loads(line)
        text = " ".join(record["answer_text"].split())
        if text and text not in answers:
            answers[text] = {"id": f"RAG24-{len(answers) + 1:04d}", "text": text, "qid": record["qid"],
                             "query": record["query"]}
    documents = list(answers.values())
    by_topic: dict[tuple[str, str], set[str]] = {}
    for doc in documents:
        by_topic.setdefault((doc["qid"], doc["query"]), set()).add(doc["id"])
    topics = [("topic", query, frozenset(ids)) for (_qid, query), ids in sorted(by_topic.items())]
    firsts = {doc["id"]: re.split(r"(?<=[.!?])\s", doc["text"], maxsplit=1)[0].rstrip(".!?") for doc in documents}
    shared = Counter(firsts.values())
    return documents, topics, {docid: first for docid, first in firsts.items() if shared[first] == 1}


def make_english_queries(count: int, seed: int) -> tuple[list[dict], list[tuple[str, str, frozenset[str]]]]:
    documents, queries, firsts = rag_collection()
    for docid in random.Random(seed).sample(sorted(firsts), min(count, len(firsts))):
        first = firsts[docid]
        queries.append(("sentence", f"why {first[:1].lower()}{first[1:]}?", frozenset({docid})))
    return documents, queries


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


KINDS = {"JA": ("words", "title", "question", "all"), "EN": ("topic", "sentence", "all")}
QUESTIONS = {"JA": ("question",), "EN": ("topic", "sentence")}  # the kinds that are questions


def measure(engine, lang: str, queries, run) -> dict:
    figures: dict[str, dict] = {}
    for kind in KINDS[lang]:
        chosen = [q for q in queries if kind in ("all", q[0])]
        zero = found = 0
        reciprocal = 0.0
        started = time.perf_counter()
        for _kind, text, targets in chosen:
            ranked = run(engine, lang, text)
            zero += not ranked
            rank = next((i for i, docid in enumerate(ranked, 1) if docid in targets), None)
            if rank:
                found += 1
                reciprocal += 1 / rank
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
    for path in (WIKINEWS, RAG):
        if not path.exists():
            sys.exit(f"error: {path} not found (set SEPIA_SHARED_DATA)")

    from sepia.search import open_engine
    from sepia.services.documents import ingest
    from sepia.services.indexing import StoredDocuments
    from sepia.store.db import Store

    articles = [json.loads(line) for line in open(WIKINEWS, encoding="utf-8")]
    for article in articles:
        article["id"] = str(article["id"])
    answers, english = make_english_queries(args.articles, args.seed)
    queries = {"JA": make_queries(articles, args.articles, args.seed), "EN": english}
    report: dict = {"documents": {"JA": len(articles), "EN": len(answers)},
                    "queries": {lang: len(q) for lang, q in queries.items()},
                    "aims": {"zero_hits": AIM_ZERO_HITS, "recall@10": AIM_RECALL},
                    "examples": {lang: [q[1] for q in chosen[:3]] + [chosen[-1][1]] for lang, chosen in queries.items()},
                    "engines": {}}
    with tempfile.TemporaryDirectory(prefix="sepia-known-item-") as work:
        store = Store(f"sqlite:///{Path(work) / 'store.db'}")
        answers_file = Path(work) / "rag24-answers.jsonl"
        answers_file.write_text("".join(json.dumps({"id": a["id"], "text": a["text"]}) + "\n" for a in answers),
                                encoding="utf-8")
        assert ingest(store, "JA", [WIKINEWS], progress=False).stored == len(articles)
        assert ingest(store, "EN", [answers_file], progress=False).stored == len(answers)
        for name in args.engines.split(","):
            engine = open_engine(Path(work) / f"index-{name}", name)
            report["engines"][name] = {}
            for lang in ("JA", "EN"):
                started = time.perf_counter()
                engine.build(StoredDocuments(store), lang, progress=False)
                log(f"{name} {lang}: built in {time.perf_counter() - started:.1f} s")
                old, new = measure(engine, lang, queries[lang], run_old), measure(engine, lang, queries[lang], run_new)
                report["engines"][name][lang] = {"before": old, "now": new}
                print_table(name, lang, old, new)
        store.dispose()
    if args.json:
        args.json.write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")


def met(figures: dict) -> bool:
    return figures["zero_hits"] <= AIM_ZERO_HITS and figures["recall@10"] >= AIM_RECALL


def print_table(name: str, lang: str, old: dict, new: dict) -> None:
    print(f"\n{name} {lang}: known-item search, {old['all']['queries']} queries "
          f"(aims: {AIM_ZERO_HITS} without a hit, recall@10 >= {AIM_RECALL})")
    print(f"{'kind':<8} {'reading':<7} {'queries':>7} {'no hit':>7} {'recall@10':>9} {'MRR@10':>7} {'ms/query':>9}  aims")
    for kind in KINDS[lang]:
        for label, figures in (("before", old[kind]), ("now", new[kind])):
            print(f"{kind:<8} {label:<7} {figures['queries']:>7} {figures['zero_hits']:>7} {figures['recall@10']:>9.3f} "
                  f"{figures['mrr@10']:>7.3f} {figures['ms_per_query']:>9.2f}  {'met' if met(figures) else 'NOT met'}")
    ratio = new["all"]["ms_per_query"] / max(old["all"]["ms_per_query"], 1e-9)
    questions = all(met(new[kind]) for kind in QUESTIONS[lang])
    print(f"time a query, now / before: {ratio:.2f}; aims for the questions {'met' if questions else 'NOT met'}, "
          f"for all queries {'met' if met(new['all']) else 'NOT met'}")


if __name__ == "__main__":
    main()
