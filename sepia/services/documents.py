"""The store's collections: documents found by DOCID (display, and the DOCID check of files and
uploads, `sepia.formats.docids`), counted per language, and loaded from collection files."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Iterable

from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

from sepia import config
from sepia.corpus.documents import Problem, RawDocument
from sepia.corpus.ingest import IngestReport, sources_of, storable_batches
from sepia.text.progress import maybe_progress
from sepia.formats.docids import MissingDocuments
from sepia.store.models import Document

CHUNK = 500  # keeps each IN (...) list well under every database's parameter limit


def missing_docids(session: Session, docids: Iterable[str]) -> set[str]:
    """The DOCIDs among `docids` that no stored document has."""
    wanted = list(dict.fromkeys(docids))
    found: set[str] = set()
    for i in range(0, len(wanted), CHUNK):
        chunk = wanted[i:i + CHUNK]
        found.update(session.scalars(select(Document.docid).where(Document.docid.in_(chunk))))
    return set(wanted) - found


def get_document(session: Session, docid: str) -> Document | None:
    return session.scalar(select(Document).where(Document.docid == docid))


def collection_languages(session: Session) -> set[str]:
    """The languages of the stored collections."""
    return set(session.scalars(select(Document.lang).distinct()))


def a_title(session: Session, lang: str) -> str | None:
    """The title of one document of the collection (any that has one), to search it for."""
    return session.scalar(select(Document.title).where(Document.lang == lang, Document.title != "").limit(1))


def document_counts(session: Session) -> dict[str, int]:
    """Number of stored documents per collection language."""
    rows = session.execute(select(Document.lang, func.count()).group_by(Document.lang))
    return {lang: count for lang, count in rows}


def missing_in(session: Session) -> MissingDocuments:
    """The DOCID check's lookup in `session`'s store: nothing is missing from a collection it lacks."""
    def missing(lang: str | None, docids: list[str]) -> set[str]:
        counts = document_counts(session)
        if (lang and not counts.get(lang)) or not counts:
            return set()
        return missing_docids(session, docids)  # one query per few hundred DOCIDs

    return missing


def ingest(store, lang: str, paths: Iterable[str | Path], encoding: str | None = None,
           progress: bool = True, max_document_bytes: int | None = None) -> IngestReport:
    """Store the documents of `paths` as collection `lang` in one transaction. Malformed
    documents, documents longer than `max_document_bytes` (default config.max_document_bytes()),
    documents with characters no store keeps, and DOCIDs already stored or repeated are skipped
    and reported; a missing file, an unknown encoding or an unknown format raises IngestError
    before anything is written."""
    lang = lang.upper()
    max_bytes = max_document_bytes or config.max_document_bytes()
    started = time.perf_counter()
    sources = sources_of(lang, paths, encoding)
    report = IngestReport(lang, files=len(sources))
    with maybe_progress(progress, f"loading {lang}", sum(s.path.stat().st_size for s in sources), "bytes") as advance, \
            store.transaction() as session:
        for batch in storable_batches(sources, max_bytes, report, advance):
            _store_batch(session, lang, batch, report)
    report.seconds = time.perf_counter() - started
    return report


def _store_batch(session, lang: str, batch: list[RawDocument], report: IngestReport) -> None:
    existing = set(session.scalars(select(Document.docid).where(Document.docid.in_([d.docid for d in batch]))))
    rows = []
    for doc in batch:
        if doc.docid in existing:
            report.add_problem(Problem(doc.path, doc.line, f"DOCID {doc.docid} is already stored; document refused"))
            continue
        rows.append({"docid": doc.docid, "lang": lang, "title": doc.title, "date": doc.date,
                     "text": doc.text, "source": doc.source or doc.where[-500:]})
    if rows:
        session.execute(insert(Document), rows)
        report.stored += len(rows)
