"""The search interface callers use (the web tool's search pane, `sepia index`, `sepia search`):
building, adding, deleting, statistics, search and document views. Two engines implement it,
Whoosh (the default, pure Python) and tantivy (Rust, for large collections); which one serves a
data directory is remembered in its index directory (ENGINE_FILE) and chosen with
`sepia index build --engine`. Callers do not change with the engine."""
from __future__ import annotations

import importlib
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import AbstractSet, Iterable, Iterator, Protocol

# The engines, by the name `sepia index build --engine` takes: "module:class" of each, imported
# only when used (tantivy's Rust library is not loaded to serve Whoosh). Every caller reads this table.
ENGINES = {
    "whoosh": "sepia.search.whoosh_engine:WhooshEngine",
    "tantivy": "sepia.search.tantivy_engine:TantivyEngine",
}
DEFAULT_ENGINE = "whoosh"
ENGINE_FILE = "ENGINE"  # in the index directory: the name of the engine that serves it


class SearchError(ValueError):
    """A query that cannot be run: unknown language, no index yet, unparsable query."""


class IndexBusy(Exception):
    """Another process is writing the index."""


@dataclass(frozen=True)
class BuildReport:
    lang: str
    added: int
    total: int
    seconds: float
    rebuilt: bool
    notes: list[str] = field(default_factory=list)  # what was found of earlier builds


@dataclass(frozen=True)
class IndexStats:
    lang: str
    documents: int
    segments: int
    terms: int                            # distinct terms of the body field
    tokens: int                           # title and body tokens of all documents
    bytes: int
    stored_documents: int | None = None   # in the document source, when one was given

    @property
    def pending(self) -> int | None:
        return None if self.stored_documents is None else self.stored_documents - self.documents


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
    searched: str = ""   # what was run instead of `query`: CJK text without operators, any of its words
    why: str = ""        # with no hit: why, in one line
    any_terms: str = ""  # with no hit: the any-term query of the query's words, when it finds some

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


class DocumentSource(Protocol):
    """The documents an index is built from (the store's: sepia.services.indexing.StoredDocuments)."""

    def count(self, lang: str) -> int:
        """How many documents of the language there are."""

    def stream(self, lang: str, skip: AbstractSet[str] = frozenset()) -> tuple[int, Iterator[dict]]:
        """(count, stream) of the language's documents not in `skip`: dicts with docid, title, date, body."""


class SearchEngine(Protocol):
    @property
    def name(self) -> str:
        """Its key in ENGINES."""

    index_dir: Path

    # ---------------------------------------------------------------- reading

    def languages(self) -> list[str]:
        """Languages that have an index."""

    def search(self, lang: str, query: str, page: int = 1, page_size: int = 10) -> SearchPage:
        """Run a query in SEPIA's query language (docs/search.md); BM25 ranking; raises SearchError."""

    def generate_query(self, lang: str, key_terms: list[str]) -> str:
        """A query string for `search` from a topic's key terms ('' when none is usable)."""

    def document(self, lang: str, docid: str, query: str | None = None) -> DocumentView | None:
        """The full stored document, with the hits of `query` marked; None if unknown."""

    # ---------------------------------------------------------------- writing

    def build(self, documents: DocumentSource, lang: str, rebuild: bool = False, procs: int | None = None,
              progress: bool = True) -> BuildReport:
        """Bring the language's index up to date with `documents` (only those not yet indexed), or
        with `rebuild` write a fresh one beside it and swap it in when complete. `procs` processes
        analyse documents (default: every core). Raises IndexBusy."""

    def add(self, lang: str, docs: Iterable[dict]) -> int:
        """Index documents (dicts with docid, title, date, body), replacing any indexed
        document of the same DOCID, in one commit; returns how many were given."""

    def delete(self, lang: str, docids: Iterable[str]) -> int:
        """Remove documents from the index in one commit; returns how many were indexed."""

    def stats(self, lang: str, documents: DocumentSource | None = None) -> IndexStats | None:
        """Size of the language's index (None when it has none); with `documents`, what is pending."""

    def drop(self, lang: str) -> bool:
        """Remove the language's index; False when it had none."""


def default_procs() -> int:
    """Analysis processes when none are asked for: every core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def _index_dir(index_dir: Path | str | None) -> Path:
    from sepia import config

    return Path(index_dir) if index_dir else config.index_dir()


def configured_engine(index_dir: Path | str | None = None) -> str:
    """The engine remembered for this index directory (DEFAULT_ENGINE when none was chosen)."""
    try:
        name = (_index_dir(index_dir) / ENGINE_FILE).read_text(encoding="utf-8").strip()
    except OSError:
        return DEFAULT_ENGINE
    if name not in ENGINES:
        raise SearchError(f"unknown search engine {name!r} in {_index_dir(index_dir) / ENGINE_FILE}; "
                          f"expected one of {', '.join(ENGINES)}")
    return name


def remember_engine(index_dir: Path | str | None, name: str) -> None:
    """Make `name` the engine of this index directory (written atomically)."""
    if name not in ENGINES:
        raise ValueError(f"unknown search engine {name!r}; expected one of {', '.join(ENGINES)}")
    path = _index_dir(index_dir)
    path.mkdir(parents=True, exist_ok=True)
    tmp = path / f".{ENGINE_FILE}.{os.getpid()}"
    tmp.write_text(name + "\n", encoding="utf-8")
    tmp.replace(path / ENGINE_FILE)


def engine_class(name: str):
    """The class of the engine called `name` in ENGINES."""
    if name not in ENGINES:
        raise SearchError(f"unknown search engine {name!r}; expected one of {', '.join(ENGINES)}")
    module, _, attribute = ENGINES[name].partition(":")
    return getattr(importlib.import_module(module), attribute)


def open_engine(index_dir: Path | str | None = None, engine: str | None = None) -> SearchEngine:
    """The engine over the indexes in `index_dir` (default: config.index_dir()). With `engine`,
    that engine; without, the one configured for the directory, followed when it changes (a
    running web tool moves to the new engine at its next query after `sepia index build --engine`)."""
    if engine is not None:
        return engine_class(engine)(index_dir)
    return ConfiguredEngine(index_dir)


class ConfiguredEngine:
    """Whichever engine the index directory's ENGINE_FILE names, checked at every call (one
    stat); each engine is opened once."""

    def __init__(self, index_dir: Path | str | None = None):
        self.index_dir = _index_dir(index_dir)
        self._engines: dict[str, SearchEngine] = {}
        self._seen: tuple | None = None
        self._name = DEFAULT_ENGINE

    @property
    def name(self) -> str:
        try:
            st = (self.index_dir / ENGINE_FILE).stat()
            seen = (st.st_ino, st.st_mtime_ns, st.st_size)
        except OSError:
            seen = None
        if seen != self._seen:
            self._name, self._seen = configured_engine(self.index_dir), seen
        return self._name

    @property
    def current(self) -> SearchEngine:
        name = self.name
        engine = self._engines.get(name)
        if engine is None:
            engine = self._engines.setdefault(name, engine_class(name)(self.index_dir))
        return engine

    def __getattr__(self, attr):
        if attr.startswith("_"):
            raise AttributeError(attr)
        return getattr(self.current, attr)
