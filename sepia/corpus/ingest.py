"""Loading collection files into the store's Document table: all files of one call in one
transaction, documents streamed in batches (memory stays bounded whatever the collection size),
every skipped document reported with its file and line."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from sqlalchemy import insert, select

from sepia import config
from sepia.corpus.documents import Problem, RawDocument, check_storable
from sepia.corpus.jsonl import parse_jsonl
from sepia.corpus.sgml import parse_sgml
from sepia.corpus.progress import maybe_progress
from sepia.corpus.sources import DETECT, SourceError, codec_name, detect_encoding, read_lines, sample
from sepia.store.models import Document
from sepia.vocab import LANGUAGES

BATCH = 500
BATCH_CHARS = 32 * 1024 * 1024  # a batch of long documents is written before it reaches BATCH
MAX_KEPT_PROBLEMS = 10_000   # beyond this only the count grows
JSONL_SUFFIXES = (".jsonl", ".jl", ".ndjson", ".json")


class IngestError(Exception):
    """Nothing was stored: a path, language, encoding or format problem found before writing."""


@dataclass
class IngestReport:
    lang: str
    files: int = 0
    stored: int = 0
    skipped: int = 0
    problems: list[Problem] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.skipped == 0 and not self.problems

    def add_problem(self, problem: Problem, skipped: bool = True) -> None:
        self.skipped += skipped
        if len(self.problems) < MAX_KEPT_PROBLEMS:
            self.problems.append(problem)


@dataclass(frozen=True)
class SourceFile:
    path: Path
    format: str      # "sgml" or "jsonl"
    encoding: str


def expand_paths(paths: Iterable[str | Path]) -> list[Path]:
    """Files as given, and the files under directories (sorted, hidden ones left out)."""
    files = []
    for p in map(Path, paths):
        if p.is_dir():
            files.extend(sorted(f for f in p.rglob("*") if f.is_file()
                                and not any(part.startswith(".") for part in f.relative_to(p).parts)))
        elif p.is_file():
            files.append(p)
        else:
            raise IngestError(f"{p}: no such file or directory")
    if not files:
        raise IngestError("no files to ingest")
    return files


def inspect(path: Path, lang: str, encoding: str | None) -> SourceFile:
    """Format and encoding of a file, decided before anything is stored."""
    try:
        data = sample(path)
        if encoding:
            enc = codec_name(encoding)
        else:
            enc = detect_encoding(data, lang)
            if enc is None:
                raise IngestError(f"{path}: cannot detect the encoding (tried "
                                  f"{', '.join(DETECT.get(lang, DETECT['EN']))}); "
                                  "give one with --encoding")
    except SourceError as exc:
        raise IngestError(str(exc)) from exc
    name = path.name.lower().removesuffix(".gz")
    if name.endswith(JSONL_SUFFIXES):
        return SourceFile(path, "jsonl", enc)
    head = data.decode(enc, "replace").lstrip("\ufeff \t\r\n")
    if head.startswith("{"):
        return SourceFile(path, "jsonl", enc)
    if head.startswith("<"):
        return SourceFile(path, "sgml", enc)
    raise IngestError(f"{path}: neither SGML (<DOC>...) nor JSON lines")


def read_documents(source: SourceFile, max_bytes: int, on_bytes=None) -> Iterator[RawDocument | Problem]:
    lines = read_lines(source.path, source.encoding, max_bytes, on_bytes)
    parse = parse_jsonl if source.format == "jsonl" else parse_sgml
    return parse(lines, str(source.path), max_bytes)


def ingest(store, lang: str, paths: Iterable[str | Path], encoding: str | None = None,
           progress: bool = True, max_document_bytes: int | None = None) -> IngestReport:
    """Store the documents of `paths` as collection `lang` in one transaction. Malformed
    documents, documents longer than `max_document_bytes` (default config.max_document_bytes()),
    documents with characters no store keeps, and DOCIDs already stored or repeated are skipped
    and reported; a missing file, an unknown encoding or an unknown format raises IngestError
    before anything is written."""
    lang = lang.upper()
    max_bytes = max_document_bytes or config.max_document_bytes()
    if lang not in LANGUAGES:
        raise IngestError(f"unknown language {lang!r}; expected one of {', '.join(LANGUAGES)}")
    started = time.perf_counter()
    sources = [inspect(p, lang, encoding) for p in expand_paths(paths)]
    report = IngestReport(lang, files=len(sources))
    seen: set[str] = set()
    with maybe_progress(progress, f"loading {lang}", sum(s.path.stat().st_size for s in sources), "bytes") as advance, \
            store.transaction() as session:
        batch: list[RawDocument] = []
        chars = 0
        for source in sources:
            for item in read_documents(source, max_bytes, advance):
                if isinstance(item, Problem):
                    report.add_problem(item, skipped=not item.message.endswith("ignored"))
                    continue
                why = check_storable(item)
                if why:
                    report.add_problem(Problem(item.path, item.line, f"{why}; document skipped"))
                    continue
                if item.docid in seen:
                    report.add_problem(Problem(item.path, item.line,
                                               f"duplicate DOCID {item.docid} in this input; document refused"))
                    continue
                seen.add(item.docid)
                batch.append(item)
                chars += len(item.text)
                if len(batch) >= BATCH or chars >= BATCH_CHARS:
                    _store_batch(session, lang, batch, report)
                    batch, chars = [], 0
        if batch:
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
