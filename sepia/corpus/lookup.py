"""Finding stored documents by DOCID (display, and `sepia validate`'s unknown-document warning)."""
from __future__ import annotations

from typing import Iterable

from sqlalchemy import func, select
from sqlalchemy.orm import Session

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


def document_counts(session: Session) -> dict[str, int]:
    """Number of stored documents per collection language."""
    rows = session.execute(select(Document.lang, func.count()).group_by(Document.lang))
    return {lang: count for lang, count in rows}
