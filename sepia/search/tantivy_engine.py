"""The tantivy implementation of the SearchEngine protocol, for large collections.

tantivy (Rust, PyPI `tantivy`) indexes text that SEPIA's own analyzers have already split:
every document arrives as pre-tokenized title and body (term, position), so phrases, CJK
compounds and normalised forms are exactly those of the Whoosh engine. Queries are parsed by the
same Whoosh parser and translated (sepia.search.tantivy_query); snippets and highlighting are
SEPIA's (sepia.search.base), on the stored text, their marks read from the tokens' offsets stored
at build time (sepia.search.offsets). One index per language in
<index_dir>/tantivy/<lang>.
"""
from __future__ import annotations

import os
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import tantivy
from tantivy import Occur, Query

from sepia.text.progress import maybe_progress
from sepia.search.base import BaseEngine, cached_schema, check_language
from sepia.search.engine import BuildReport, DocumentSource, IndexBusy, IndexStats, SearchError, default_procs
from sepia.search.analyzers import record_analysis
from sepia.search.indexer import (BUILDER_FILE, dead_builder, note_dead_builder, outdated_analysis,
                                  write_documents)
from sepia.search.offsets import unpack_spans
from sepia.search.parallel import Fields, analysed_documents, analysed_fields, analysis_of, document_texts
from sepia.search.tantivy_query import Lexicon, to_tantivy

SUBDIR = "tantivy"
TERMS_TOKENIZER = "sepia_terms"  # splits SEPIA's analysed terms at white space (parallel.term_sequence)
WRITER_HEAP = 256_000_000   # bytes of the writer's indexing buffer (all its threads)
WRITER_THREADS = 1          # indexing pre-tokenized text is cheap; the cores go to analysis
# title_text and body_text are only stored: their tokenizer (the schema names tantivy's "default")
# is replaced by one that yields no token, so the text is added as plain text and nothing indexed.
# (Plain text costs tantivy about a fifth less than pre-tokenized text without tokens, which it
# copies as JSON; indexes written either way read back the same.)
STORED_ONLY_TOKENIZER = "default"
OFFSETS_FIELD = "body_spans"  # the body's tokens with their offsets (sepia.search.offsets), stored only;
# ("body_offsets", its first form, is not read: hits in indexes that have only it are analysed)


def tantivy_schema() -> tantivy.Schema:
    """docid and date (exact, stored); title and body (SEPIA's analysed terms, positions, not
    stored); their text as stored (title_text, body_text: nothing indexed, see
    STORED_ONLY_TOKENIZER); ntokens (title + body tokens, for statistics); body_spans (the
body's analysed tokens with their offsets, stored only: marks without analysis). Documents are made
    by `tantivy_document`."""
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("docid", stored=True, fast=True, tokenizer_name="raw", index_option="basic")
    builder.add_text_field("date", stored=True, tokenizer_name="raw", index_option="basic")
    builder.add_text_field("title", tokenizer_name=TERMS_TOKENIZER, index_option="position")
    builder.add_text_field("body", tokenizer_name=TERMS_TOKENIZER, index_option="position")
    builder.add_text_field("title_text", stored=True, tokenizer_name=STORED_ONLY_TOKENIZER, index_option="basic")
    builder.add_text_field("body_text", stored=True, tokenizer_name=STORED_ONLY_TOKENIZER, index_option="basic")
    builder.add_unsigned_field("ntokens", fast=True)
    builder.add_bytes_field(OFFSETS_FIELD, stored=True)
    return builder.build()


def _prepared(index: tantivy.Index) -> tantivy.Index:
    index.register_tokenizer(TERMS_TOKENIZER, tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build())
    # the whole text as one token, removed (longer than 0 bytes): no token, no field length
    index.register_tokenizer(STORED_ONLY_TOKENIZER, tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.raw())
                             .filter(tantivy.Filter.remove_long(0)).build())
    return index


def open_index(path: Path) -> tantivy.Index:
    return _prepared(tantivy.Index.open(str(path)))


def create_index(path: Path, lang: str) -> tantivy.Index:
    path.mkdir(parents=True, exist_ok=True)
    record_analysis(path, lang)
    return _prepared(tantivy.Index(tantivy_schema(), path=str(path), reuse=False))


def _positioned(units: list[tuple[str, int, int, int]]) -> tantivy.PreTokenizedString:
    """Index terms with explicit positions (offsets are code points; tantivy keeps no offsets of
    pre-tokenized text: body_spans keeps them for marks)."""
    return tantivy.PreTokenizedString("", [tantivy.Token(term, pos, start, end) for term, pos, start, end in units])


def tantivy_document(doc: dict, fields: Fields) -> tantivy.Document:
    """One document (docid, title, date, body) with its analysed fields
    (sepia.search.parallel.analysed_fields) as a document of `tantivy_schema`. Made here, where
    the document is, from the workers' terms: the text does not travel back from them."""
    title_terms, body_terms, ntokens, offsets = fields
    document = tantivy.Document()
    document.add_text("docid", doc["docid"])
    for name, terms in (("title", title_terms), ("body", body_terms)):
        if isinstance(terms, str):  # split by the field's white-space tokenizer
            document.add_text(name, terms)
        else:
            document.add_pre_tokenized_text(name, _positioned(terms))
    title, body = document_texts(doc)
    document.add_text("title_text", title)  # stored only (STORED_ONLY_TOKENIZER)
    document.add_text("body_text", body)
    document.add_unsigned("ntokens", ntokens)
    if offsets is not None:  # an index made without body_spans ignores the field
        document.add_bytes(OFFSETS_FIELD, offsets)
    if doc.get("date"):
        document.add_text("date", doc["date"])
    return document


class _Committing:
    """tantivy's writer under the names indexer.write_documents calls."""

    def __init__(self, writer: tantivy.IndexWriter):
        self.writer = writer

    def commit(self):
        self.writer.commit()
        self.writer.wait_merging_threads()

    def cancel(self):
        self.writer.rollback()


@dataclass
class _Reader:
    lang: str
    index: tantivy.Index
    searcher: tantivy.Searcher


class _Stored(dict):
    """A document's stored fields, with its body's token offsets (None if the index has none)."""

    def __init__(self, fields: dict, offsets: bytes | None):
        super().__init__(fields)
        self.offsets = offsets


def _count(result: tantivy.SearchResult) -> int:
    """How many documents matched a search run with count=True."""
    # tantivy's stub lacks SearchResult.count, which the extension has (None when count=False).
    return result.count  # type: ignore[attr-defined]


def _stored_fields(doc: tantivy.Document) -> _Stored:
    return _Stored({"docid": doc.get_first("docid"), "title": doc.get_first("title_text") or "",
                    "date": doc.get_first("date") or "", "body": doc.get_first("body_text") or ""},
                   doc.get_first(OFFSETS_FIELD))


class TantivyEngine(BaseEngine):
    """Searches and writes the tantivy indexes under `index_dir`/tantivy. Safe to share between
    threads; an index is reopened when its meta.json changed (a commit, or a rebuild swapped in),
    so a new commit is seen at the next query."""

    name = "tantivy"

    def __init__(self, index_dir: Path | str | None = None):
        super().__init__(index_dir)
        self._lock = threading.Lock()
        self._open: dict[str, tuple[tuple, tantivy.Index]] = {}

    # ------------------------------------------------------------------ reading

    def index_path(self, lang: str) -> Path:
        return self.index_dir / SUBDIR / check_language(lang).lower()

    def has_index(self, lang: str) -> bool:
        return (self.index_path(lang) / "meta.json").is_file()

    def _index(self, lang: str) -> tantivy.Index:
        path = self.index_path(lang)
        try:
            st = (path / "meta.json").stat()
        except OSError:
            raise self.no_index(lang) from None
        signature = (st.st_ino, st.st_mtime_ns, st.st_size)
        with self._lock:
            cached = self._open.get(lang)
            if cached is None or cached[0] != signature:
                self.check_analysis(lang)
                try:
                    index = open_index(path)
                except ValueError as exc:
                    raise SearchError(f"cannot open the {lang} index in {path}: {exc}") from exc
                index.config_reader(reload_policy="manual")
                cached = self._open[lang] = (signature, index)
        return cached[1]

    def _reader(self, lang: str) -> _Reader:
        index = self._index(lang)
        return _Reader(lang, index, index.searcher())

    def _schema(self, reader: _Reader):
        return cached_schema(reader.lang)

    def _lexicon(self, reader: _Reader) -> Lexicon:
        return Lexicon(reader.searcher, cached_schema(reader.lang))

    def _run(self, reader: _Reader, q, offset: int, limit: int):
        query = to_tantivy(q, reader.index.schema, self._lexicon(reader))
        if query is None:
            return 0, []
        searcher = reader.searcher
        result = searcher.search(query, limit, count=True, offset=offset)
        return _count(result), [(_stored_fields(searcher.doc(address)), score) for score, address in result.hits]

    def _body_matches(self, reader: _Reader, wanted, docids: list[str]) -> set[str]:
        schema = reader.index.schema
        parts = [Query.term_query(schema, "body", t) for t in wanted.terms]
        parts += [Query.phrase_query(schema, "body", list(p)) if len(p) > 1 else Query.term_query(schema, "body", p[0])
                  for p in wanted.phrases]
        if not parts:
            return set()
        query = Query.boolean_query([(Occur.Must, Query.term_set_query(schema, "docid", docids)),
                                     (Occur.Must, Query.boolean_query([(Occur.Should, p) for p in parts]))])
        searcher = reader.searcher
        hits = searcher.search(query, len(docids), count=False).hits
        # Every document has a docid; the stub types get_first as Optional.
        return {docid for _score, address in hits if (docid := searcher.doc(address).get_first("docid")) is not None}

    def _indexed_spans(self, reader: _Reader, field: str, wanted, documents: list) -> dict | None:
        # Titles are short and analysed; documents of an index without body_spans (or
        # whose terms could not be packed) have none, and the page is analysed as before.
        if field != "body" or any(document.offsets is None for document in documents):
            return None
        return {document["docid"]: unpack_spans(document.offsets, wanted) for document in documents}

    def _stored(self, reader: _Reader, docid: str) -> dict | None:
        searcher = reader.searcher
        hits = searcher.search(Query.term_query(reader.index.schema, "docid", docid), 1).hits
        return _stored_fields(searcher.doc(hits[0][1])) if hits else None

    # ------------------------------------------------------------------ writing

    def _writer(self, index: tantivy.Index, path: Path, lang: str) -> tantivy.IndexWriter:
        try:
            writer = index.writer(heap_size=WRITER_HEAP, num_threads=WRITER_THREADS)
        except ValueError as exc:
            if "Lock" not in str(exc):
                raise
            dead_builder(path, lang)  # IndexBusy naming a live build's PID
            raise IndexBusy(f"the {lang} index is locked by another writer ({path})") from None
        return writer

    def build(self, documents: DocumentSource, lang: str, rebuild: bool = False, procs: int | None = None,
              progress: bool = True) -> BuildReport:
        lang = check_language(lang)
        started = time.perf_counter()
        path = self.index_path(lang)
        notes: list[str] = []
        fresh = rebuild or not self.has_index(lang) or outdated_analysis(path, lang, notes)
        target = path.with_name(path.name + ".new") if fresh else path
        note_dead_builder(target, lang, notes)
        if fresh:
            shutil.rmtree(target, ignore_errors=True)
            index = create_index(target, lang)
        else:
            index = open_index(target)
        skip = set() if fresh else self._indexed_docids(index)
        expected, docs = documents.stream(lang, skip)
        added = 0
        if expected > 0:
            with analysed_documents(lang, docs, procs or default_procs(), expected) as analysed:
                writer = self._writer(index, target, lang)
                (target / BUILDER_FILE).write_text(f"{os.getpid()}\n")
                try:
                    with maybe_progress(progress, f"indexing {lang}", expected, "docs") as advance:
                        added = self._write(writer, (tantivy_document(*pair) for pair in analysed), advance)
                finally:
                    (target / BUILDER_FILE).unlink()
        index.reload()
        total = index.searcher().num_docs
        if fresh:
            self._swap(target, path)
        return BuildReport(lang, added, total, time.perf_counter() - started, rebuilt=fresh, notes=notes)

    @staticmethod
    def _write(writer: tantivy.IndexWriter, documents: Iterable[tantivy.Document], advance=None, deletes=()) -> int:
        """Delete `deletes`, add every document, commit, wait for merges; all or nothing."""
        for docid in deletes:
            writer.delete_documents_by_term("docid", docid)
        return write_documents(_Committing(writer), documents, advance, add=writer.add_document)

    @staticmethod
    def _swap(new: Path, path: Path) -> None:
        """Put the index at `new` in the place of the one at `path` (a query in between finds none)."""
        old = path.with_name(path.name + ".old")
        shutil.rmtree(old, ignore_errors=True)
        if path.exists():
            path.rename(old)
        new.rename(path)
        shutil.rmtree(old, ignore_errors=True)

    def _open_or_create(self, lang: str) -> tantivy.Index:
        path = self.index_path(lang)
        if not self.has_index(lang):
            return create_index(path, lang)
        self.check_analysis(lang)
        return open_index(path)

    def add(self, lang: str, docs: Iterable[dict]) -> int:
        lang = check_language(lang)
        docs = list(docs)
        index = self._open_or_create(lang)
        analysis = analysis_of(lang)
        writer = self._writer(index, self.index_path(lang), lang)
        documents = (tantivy_document(d, analysed_fields(analysis, *document_texts(d))) for d in docs)
        return self._write(writer, documents, deletes=[d["docid"] for d in docs])

    def delete(self, lang: str, docids: Iterable[str]) -> int:
        lang = check_language(lang)
        if not self.has_index(lang):
            return 0
        index = open_index(self.index_path(lang))
        searcher = index.searcher()
        docids = list(docids)
        indexed = sum(_count(searcher.search(Query.term_query(index.schema, "docid", d), 1, count=True))
                      for d in docids)
        self._write(self._writer(index, self.index_path(lang), lang), (), deletes=docids)
        return indexed

    @staticmethod
    def _indexed_docids(index: tantivy.Index) -> set[str]:
        """DOCIDs of the live documents. The docid lexicon is exact unless deleted documents'
        terms linger (it then has more terms than there are documents): those are checked."""
        searcher = index.searcher()
        found = {term for term, _n in searcher.terms_with_prefix("docid", "")}
        if len(found) > searcher.num_docs:
            schema = index.schema
            found = {d for d in found if _count(searcher.search(Query.term_query(schema, "docid", d), 1, count=True))}
        return found

    def stats(self, lang: str, documents: DocumentSource | None = None) -> IndexStats | None:
        lang = check_language(lang)
        if not self.has_index(lang):
            return None
        path = self.index_path(lang)
        index = open_index(path)
        searcher = index.searcher()
        tokens = searcher.aggregate(Query.all_query(), {"t": {"sum": {"field": "ntokens"}}})["t"]["value"] or 0
        terms = len(searcher.terms_with_prefix("body", ""))
        size = sum(f.stat().st_size for f in path.iterdir() if f.is_file())
        stored = None if documents is None else documents.count(lang)
        return IndexStats(lang, searcher.num_docs, searcher.num_segments, terms, int(tokens), size, stored)
