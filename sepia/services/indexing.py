"""Search indexes built from the campaign store's documents: the store's Document table as the
engines' document source, and the shorthands for building and sizing an index with the engine
configured for its directory (sepia.search.engine)."""
from __future__ import annotations

from typing import AbstractSet, Iterator

from sqlalchemy import func, select

from sepia.search.engine import BuildReport, IndexStats, open_engine
from sepia.store.models import Document


class StoredDocuments:
    """The store's documents as a sepia.search.engine.DocumentSource, read in batches."""

    def __init__(self, store):
        self.store = store

    def count(self, lang: str) -> int:
        with self.store.transaction() as session:
            return session.scalar(select(func.count()).select_from(Document).where(Document.lang == lang.upper())) or 0

    def stream(self, lang: str, skip: AbstractSet[str] = frozenset()) -> tuple[int, Iterator[dict]]:
        count = self.count(lang)

        def stream():
            with self.store.sessions() as session:
                rows = session.execute(
                    select(Document.docid, Document.title, Document.date, Document.text)
                    .where(Document.lang == lang).order_by(Document.id)
                    .execution_options(yield_per=1000))
                for docid, title, date, text in rows:
                    if docid not in skip:
                        yield {"docid": docid, "title": title or "", "date": date or "", "body": text}

        return max(0, count - len(skip)), stream()


def build_index(store, lang: str, index_dir=None, rebuild: bool = False, procs: int | None = None,
                progress: bool = True) -> BuildReport:
    """Bring the language's index up to date with the store, with the index directory's engine
    (see SearchEngine.build)."""
    return open_engine(index_dir).build(StoredDocuments(store), lang, rebuild=rebuild, procs=procs, progress=progress)


def index_stats(lang: str, index_dir=None, store=None) -> IndexStats | None:
    """The index directory's engine's statistics of one language (see SearchEngine.stats)."""
    return open_engine(index_dir).stats(lang, None if store is None else StoredDocuments(store))
