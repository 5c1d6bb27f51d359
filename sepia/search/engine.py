"""The search interface callers use (the web tool's search pane, the CLI). A second engine, for
instance a Lucene-based server, implements the same protocol; callers do not change."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Protocol


class SearchError(ValueError):
    """A query that cannot be run: unknown language, no index yet, unparsable query."""


@dataclass(frozen=True)
class Span:
    """Characters [start, end) of the stored document text (Python string indices, i.e. Unicode
    code points; a browser counting UTF-16 units must convert astral characters)."""
    start: int
    end: int


@dataclass(frozen=True)
class SearchHit:
    rank: int            # 1-based over the whole result list, not the page
    docid: str
    title: str
    date: str | None
    score: float
    snippet_html: str    # escaped text, hits in <mark data-start=.. data-end=..> (body offsets)


@dataclass(frozen=True)
class SearchPage:
    lang: str
    query: str           # as given
    parsed: str          # as the engine understood it
    page: int
    page_size: int
    total: int           # matching documents in all
    hits: list[SearchHit] = field(default_factory=list)

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.page_size))

    def to_dict(self) -> dict:
        return {**asdict(self), "pages": self.pages}


@dataclass(frozen=True)
class DocumentView:
    lang: str
    docid: str
    title: str
    date: str | None
    text: str                                                  # exactly as stored
    spans: list[Span] = field(default_factory=list)            # query hits in `text`
    title_spans: list[Span] = field(default_factory=list)      # query hits in `title`
    html: str = ""        # `text` escaped, hits in <mark data-start data-end>; use with pre-wrap

    def to_dict(self) -> dict:
        return asdict(self)


class SearchEngine(Protocol):
    def languages(self) -> list[str]:
        """Languages that have an index."""

    def search(self, lang: str, query: str, page: int = 1, page_size: int = 10) -> SearchPage:
        """Run a query in the engine's query language; BM25F ranking; raises SearchError."""

    def generate_query(self, lang: str, key_terms: list[str]) -> str:
        """A query string for `search` from a topic's key terms ('' when none is usable)."""

    def document(self, lang: str, docid: str, query: str | None = None) -> DocumentView | None:
        """The full stored document, with the hits of `query` marked; None if unknown."""


def open_engine(index_dir: Path | str | None = None) -> SearchEngine:
    """The Whoosh engine over the indexes in `index_dir` (default: config.index_dir())."""
    from sepia.search.whoosh_engine import WhooshEngine

    return WhooshEngine(index_dir)
