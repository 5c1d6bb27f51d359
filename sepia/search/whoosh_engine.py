"""The Whoosh implementation of the SearchEngine protocol: pure Python, embedded, the default."""
from __future__ import annotations

import threading
from pathlib import Path
from typing import Iterable

from whoosh import index as windex
from whoosh import scoring
from whoosh.collectors import TopCollector

from sepia.search.base import BaseEngine, check_language
from sepia.search.engine import BuildReport, DocumentSource, IndexStats
from sepia.search.highlight import token_spans
from sepia.search.indexer import (LOCK_WAIT, WRITER_MB, build_whoosh_index, create_index, index_path, open_index,
                                  whoosh_index_stats)


class _Stored(dict):
    """A document's stored fields with its number in the index, as Whoosh's hits carry it."""

    def __init__(self, fields: dict, docnum: int):
        super().__init__(fields)
        self.docnum = docnum


class WhooshEngine(BaseEngine):
    """Searches the per-language indexes under `index_dir` (<index_dir>/<lang>). Safe to share
    between threads: each thread keeps its own searchers, refreshed when an index has changed."""

    name = "whoosh"

    def __init__(self, index_dir: Path | str | None = None):
        super().__init__(index_dir)
        self._local = threading.local()

    # ------------------------------------------------------------------ reading

    def index_path(self, lang: str) -> Path:
        return index_path(lang, self.index_dir)

    def has_index(self, lang: str) -> bool:
        path = self.index_path(lang)
        return path.is_dir() and windex.exists_in(str(path))

    def _reader(self, lang: str):
        searchers = self._local.__dict__.setdefault("searchers", {})
        old = searchers.get(lang)
        if old is not None and old.up_to_date():
            return old
        # A new reader, not Whoosh's refresh(): that one reuses the old segment readers, which
        # keep the deletions they were opened with, so a replaced or deleted document would stay.
        ix = open_index(lang, self.index_dir)
        if ix is None:
            raise self.no_index(lang)
        self.check_analysis(lang)
        searchers[lang] = ix.searcher(weighting=scoring.BM25F())
        if old is not None:
            old.close()
        return searchers[lang]

    def _schema(self, searcher):
        return searcher.schema

    def _lexicon(self, searcher):
        return searcher.reader()

    def _run(self, searcher, q, offset: int, limit: int):
        # Without block skipping the one scoring pass also counts every match, which is faster
        # than skipping and then counting in a second pass (measured: about half the time). Nor
        # may the matcher be replaced by one that drops what cannot reach the top N (Whoosh's
        # `replace`, on even without optimize): the total would count only what it kept.
        collector = TopCollector(limit=offset + limit, usequality=False, replace=0)
        searcher.search_with_collector(q, collector)
        results = collector.results()
        rows = [(results[i], results.score(i)) for i in range(offset, min(offset + limit, results.scored_length()))]
        return len(results), rows

    def _indexed_spans(self, searcher, field: str, wanted, documents: list) -> dict | None:
        # Indexes built before their fields kept character offsets are searched as they are.
        if not searcher.schema[field].format.supports("characters"):
            return None
        reader = searcher.reader()
        docnums = {document.docnum: document["docid"] for document in documents}  # hits and _stored carry it
        tokens: dict[str, list] = {docid: [] for docid in docnums.values()}
        words = wanted.terms.union(*wanted.phrases)
        for word in words:
            if docnums and (field, word) in reader:
                postings = reader.postings(field, word)
                for docnum in sorted(docnums):
                    if postings.is_active() and postings.id() < docnum:
                        postings.skip_to(docnum)
                    if not postings.is_active():
                        break
                    if postings.id() == docnum:
                        tokens[docnums[docnum]].extend(
                            (word, pos, start, end) for pos, start, end in postings.value_as("characters"))
        return {docid: token_spans(found, wanted) for docid, found in tokens.items()}

    def _stored(self, searcher, docid: str):
        docnum = searcher.document_number(docid=docid)
        return None if docnum is None else _Stored(searcher.stored_fields(docnum), docnum=docnum)

    # ------------------------------------------------------------------ writing

    def build(self, documents: DocumentSource, lang: str, rebuild: bool = False, procs: int | None = None,
              progress: bool = True) -> BuildReport:
        return build_whoosh_index(documents, check_language(lang), self.index_dir, rebuild=rebuild, procs=procs,
                                  progress=progress)

    def add(self, lang: str, docs: Iterable[dict]) -> int:
        lang = check_language(lang)
        if self.has_index(lang):
            self.check_analysis(lang)
        ix = open_index(lang, self.index_dir) or create_index(self.index_path(lang), lang)
        writer = ix.writer(limitmb=WRITER_MB, timeout=LOCK_WAIT)
        added = 0
        try:
            for doc in docs:
                writer.update_document(**doc)
                added += 1
            writer.commit()
        except BaseException:
            writer.cancel()
            raise
        return added

    def delete(self, lang: str, docids: Iterable[str]) -> int:
        ix = open_index(check_language(lang), self.index_dir)
        if ix is None:
            return 0
        writer = ix.writer(timeout=LOCK_WAIT)
        deleted = 0
        try:
            for docid in docids:
                deleted += writer.delete_by_term("docid", docid)
            writer.commit()
        except BaseException:
            writer.cancel()
            raise
        return deleted

    def stats(self, lang: str, documents: DocumentSource | None = None) -> IndexStats | None:
        return whoosh_index_stats(check_language(lang), self.index_dir, documents)
