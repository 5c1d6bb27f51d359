"""What the readers produce: a document ready to store, or a problem at a file and line."""
from __future__ import annotations

import re
from dataclasses import dataclass

MAX_DOCID = 200  # the store's column size
MAX_SOURCE = 500
# No store keeps these: a lone surrogate has no UTF-8 encoding and PostgreSQL refuses NUL in text.
UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


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


def check_storable(doc: RawDocument) -> str | None:
    """Why a document cannot be stored as it is, or None. Its text is never altered to fit."""
    for name in ("docid", "title", "date", "text", "source"):
        bad = UNSTORABLE.search(getattr(doc, name) or "")
        if bad:
            what = "NUL" if bad[0] == "\x00" else "a lone surrogate"
            return (f"{name} has {what} (U+{ord(bad[0]):04X}) at character {bad.start() + 1}, "
                    "which cannot be stored")
    return None


def too_long(max_bytes: int) -> str:
    return f"document longer than {max_bytes} bytes; skipped"
