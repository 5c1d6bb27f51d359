"""What the readers produce: a document ready to store, or a problem at a file and line."""
from __future__ import annotations

from dataclasses import dataclass

MAX_DOCID = 200  # the store's column size
MAX_SOURCE = 500


@dataclass(frozen=True)
class Problem:
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


@dataclass(frozen=True)
class RawDocument:
    docid: str
    title: str
    date: str | None
    text: str
    path: str
    line: int
    source: str | None = None

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def check_docid(docid: str) -> str | None:
    """Why a document ID is unacceptable, or None."""
    if not docid:
        return "empty document ID"
    if len(docid) > MAX_DOCID:
        return f"document ID longer than {MAX_DOCID} characters"
    if any(ch.isspace() for ch in docid):
        return f"document ID {docid!r} contains white space"
    return None
