"""Reading collection files for the store's Document table (sepia.services.documents.ingest writes
them): each file's format and encoding decided before anything is stored, documents streamed in
batches (memory stays bounded whatever the collection size), every skipped document reported with
its file and line."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from sepia.corpus.documents import Problem, RawDocument, check_storable
from sepia.corpus.jsonl import parse_jsonl
from sepia.corpus.sgml import parse_sgml
from sepia.corpus.sources import DETECT, SourceError, codec_name, detect_encoding, read_lines, sample
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
        enc: str | None
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


def sources_of(lang: str, paths: Iterable[str | Path], encoding: str | None = None) -> list[SourceFile]:
    """Every file of `paths` with its format and encoding; IngestError for an unknown language, a
    missing file, an unknown encoding or an unknown format, before anything is stored."""
    if lang not in LANGUAGES:
        raise IngestError(f"unknown language {lang!r}; expected one of {', '.join(LANGUAGES)}")
    return [inspect(p, lang, encoding) for p in expand_paths(paths)]


def storable_batches(sources: list[SourceFile], max_bytes: int, report: IngestReport,
                     on_bytes=None) -> Iterator[list[RawDocument]]:
    """The documents of `sources` to store, in batches of BATCH documents or BATCH_CHARS characters.
    Malformed documents, documents over `max_bytes`, documents with characters no store keeps and
    DOCIDs repeated in the input go to `report` instead."""
    seen: set[str] = set()
    batch: list[RawDocument] = []
    chars = 0
    for source in sources:
        for item in read_documents(source, max_bytes, on_bytes):
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
                yield batch
                batch, chars = [], 0
    if batch:
        yield batch
