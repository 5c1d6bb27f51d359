"""Whoosh indexes, one per language under config.index_dir()/<lang>: build from the store's
Document table, add new documents incrementally, report statistics."""
from __future__ import annotations

import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from whoosh import index as windex

from sepia import config
from sepia.corpus.progress import maybe_progress
from sepia.search.analyzers import schema_for
from sepia.vocab import LANGUAGES

# Below this many new documents, starting worker processes costs more than it saves.
PARALLEL_MIN_DOCS = 2000
WRITER_MB = 256  # per worker's posting buffer


@dataclass(frozen=True)
class BuildReport:
    lang: str
    added: int
    total: int
    seconds: float
    rebuilt: bool


@dataclass(frozen=True)
class IndexStats:
    lang: str
    documents: int
    segments: int
    terms: int
    tokens: int
    bytes: int
    stored_documents: int | None = None   # in the store, when one was given

    @property
    def pending(self) -> int | None:
        return None if self.stored_documents is None else self.stored_documents - self.documents


def index_path(lang: str, index_dir: Path | str | None = None) -> Path:
    lang = lang.upper()
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; expected one of {', '.join(LANGUAGES)}")
    return Path(index_dir or config.index_dir()) / lang.lower()


def open_index(lang: str, index_dir=None):
    """The language's index, or None when it was never built."""
    path = index_path(lang, index_dir)
    if path.is_dir() and windex.exists_in(str(path)):
        return windex.open_dir(str(path))
    return None


def create_index(path: Path, lang: str):
    path.mkdir(parents=True, exist_ok=True)
    return windex.create_in(str(path), schema_for(lang))


def indexed_docids(ix) -> set[str]:
    with ix.reader() as reader:
        return {value.decode("utf-8") for value in reader.lexicon("docid")}


def write_documents(ix, docs: Iterable[dict], expected: int, procs: int = 2, on_added=None) -> int:
    """Add `docs` (dicts with docid, title, date, body) in one commit; with procs > 1 and
    enough documents, Whoosh's multiprocessing writer analyses them on several cores."""
    parallel = procs > 1 and expected >= PARALLEL_MIN_DOCS
    if parallel:
        writer = ix.writer(procs=procs, multisegment=True, limitmb=WRITER_MB, batchsize=200)
    else:
        writer = ix.writer(limitmb=WRITER_MB)
    added = 0
    try:
        for doc in docs:
            writer.add_document(**doc)
            added += 1
            if on_added:
                on_added(1)
        writer.commit()
    except BaseException:
        writer.cancel()
        raise
    return added


def store_documents(store, lang: str, skip: set[str] = frozenset()) -> tuple[int, Iterator[dict]]:
    """(count, stream) of the store's documents of one language not in `skip`, read in batches."""
    from sqlalchemy import func, select

    from sepia.store.models import Document

    with store.transaction() as session:
        count = session.scalar(select(func.count()).select_from(Document).where(Document.lang == lang))

    def stream():
        with store.sessions() as session:
            rows = session.execute(
                select(Document.docid, Document.title, Document.date, Document.text)
                .where(Document.lang == lang).order_by(Document.id)
                .execution_options(yield_per=1000))
            for docid, title, date, text in rows:
                if docid not in skip:
                    yield {"docid": docid, "title": title or "", "date": date or "", "body": text}

    return max(0, (count or 0) - len(skip)), stream()


def build_index(store, lang: str, index_dir=None, rebuild: bool = False, procs: int = 2,
                progress: bool = True) -> BuildReport:
    """Bring the language's index up to date with the store: add the documents it lacks, or with
    `rebuild` write a fresh index beside the old one and swap it in when complete."""
    lang = lang.upper()
    path = index_path(lang, index_dir)
    started = time.perf_counter()
    ix = None if rebuild else open_index(lang, index_dir)
    fresh = ix is None
    target = path.with_name(path.name + ".new") if fresh else path
    if fresh:
        shutil.rmtree(target, ignore_errors=True)
        ix = create_index(target, lang)
    skip = set() if fresh else indexed_docids(ix)
    expected, docs = store_documents(store, lang, skip)
    with maybe_progress(progress, f"indexing {lang}", expected, "docs") as advance:
        added = write_documents(ix, docs, expected, procs, advance) if expected > 0 else 0
    total = ix.doc_count()
    ix.close()
    if fresh:
        shutil.rmtree(path, ignore_errors=True)
        target.rename(path)
    return BuildReport(lang, added, total, time.perf_counter() - started, rebuilt=fresh)


def index_stats(lang: str, index_dir=None, store=None) -> IndexStats | None:
    ix = open_index(lang, index_dir)
    if ix is None:
        return None
    path = index_path(lang, index_dir)
    with ix.reader() as reader:
        terms = sum(1 for _ in reader.lexicon("body"))
        tokens = int(reader.field_length("body") + reader.field_length("title"))
        documents = reader.doc_count()
    segments = len(ix._segments())  # Whoosh has no public accessor for this
    ix.close()
    size = sum(f.stat().st_size for f in path.iterdir() if f.is_file())
    stored = None
    if store is not None:
        from sqlalchemy import func, select

        from sepia.store.models import Document

        with store.transaction() as session:
            stored = session.scalar(select(func.count()).select_from(Document).where(Document.lang == lang.upper()))
    return IndexStats(lang.upper(), documents, segments, terms, tokens, size, stored)
