"""Graded relevance judgments (qrels) as TSV: `topic_id docid level`, level 0 (L0, non-relevant)
up to Lk, written as `2` or `L2`; optionally a fourth column `assessor`, when several assessors
judged the same documents.

Several assessors' levels for one document combine into one, the *upper median*: the highest level
that at least half of them gave (or exceeded). With two levels, L0 and L1, a document is relevant
when at least half of its assessors said so: the rule the human nugget judgments follow.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from sepia import limits, vocab
from sepia.formats.compressed import compressed_problem
from sepia.formats.errors import FormatError, Problem

HEADER = ("topic_id", "docid", "level")
ASSESSOR_HEADER = (*HEADER, "assessor")
# The longest values the store's relevance_judgment columns hold: a file that reads here must import
# on every database.
MAX_LENGTH = {"topic ID": limits.TOPIC_ID, "DOCID": limits.DOCID, "assessor": limits.ASSESSOR}

Qrels = dict[str, dict[str, int]]  # topic -> docid -> level


@dataclass(frozen=True)
class RelevanceRow:
    """One line of a qrels file; `assessor` is None in the three-column form."""
    topic_id: str
    docid: str
    level: int
    assessor: str | None = None


@dataclass
class QrelsFile:
    """A parsed qrels file, line by line (what `sepia import` stores)."""
    rows: list[RelevanceRow]


def parse_qrels_rows(text: str, name: str = "<input>") -> list[RelevanceRow]:
    """Read the TSV line by line, reporting every bad line as PATH:LINE:COLUMN before giving up."""
    lines = text.splitlines()
    if not text.strip():
        raise FormatError([Problem(name, 1, 1, "file is empty; expected the header line " + "\t".join(HEADER))])
    header = _header(lines[0])
    if header not in (HEADER, ASSESSOR_HEADER):
        raise FormatError([Problem(name, 1, 1, "header must be " + " ".join(HEADER) + " (tab-separated), "
                                   "optionally followed by assessor")])
    rows: list[RelevanceRow] = []
    seen: dict[tuple, int] = {}
    problems = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split("\t")]
        if len(fields) != len(header):
            problems.append(Problem(name, number, 1, f"expected {len(header)} tab-separated fields, got {len(fields)}"))
            continue
        topic_id, docid, level_text = fields[:3]
        assessor = fields[3] if len(header) == 4 else None
        level = level_text[1:] if level_text[:1] in ("L", "l") else level_text
        column = len(topic_id) + len(docid) + 3
        key = (topic_id, docid, assessor)
        if vocab.topic_language(topic_id) is None:
            problems.append(Problem(name, number, 1, f"topic ID {topic_id!r} is not well formed"))
        elif too_long := _too_long("topic ID", topic_id):
            problems.append(Problem(name, number, 1, too_long))
        elif not docid:
            problems.append(Problem(name, number, len(topic_id) + 2, "DOCID is empty"))
        elif too_long := _too_long("DOCID", docid):
            problems.append(Problem(name, number, len(topic_id) + 2, too_long))
        elif not (level.isascii() and level.isdigit()) or int(level) > limits.INTEGER:
            problems.append(Problem(name, number, column,
                                    f"level must be 0, 1, 2, ... or L0, L1, ..., got {level_text!r}"))
        elif assessor is not None and not assessor:
            problems.append(Problem(name, number, column + len(level_text) + 1, "assessor is empty"))
        elif assessor is not None and (too_long := _too_long("assessor", assessor)):
            problems.append(Problem(name, number, column + len(level_text) + 1, too_long))
        elif key in seen:
            by = f" by {assessor}" if assessor else ""
            problems.append(Problem(name, number, 1, f"document {docid} is judged twice{by} for topic {topic_id} "
                                                     f"(first on line {seen[key]})"))
        else:
            seen[key] = number
            rows.append(RelevanceRow(topic_id, docid, int(level), assessor))
    if problems:
        raise FormatError(problems)
    return rows


def _too_long(what: str, value: str) -> str | None:
    return limits.too_long(what, value, MAX_LENGTH[what])


def combine(rows: Iterable[RelevanceRow | tuple[str, str, int]]) -> Qrels:
    """One level per topic and document: the upper median of its assessors' levels (see above).
    Topics and documents keep the order of their first row."""
    levels: dict[str, dict[str, list[int]]] = {}
    for topic_id, docid, level, *_ in (_fields(row) for row in rows):
        levels.setdefault(topic_id, {}).setdefault(docid, []).append(level)
    return {topic_id: {docid: combined_level(judged) for docid, judged in docs.items()}
            for topic_id, docs in levels.items()}


def _fields(row) -> tuple:
    return (row.topic_id, row.docid, row.level) if isinstance(row, RelevanceRow) else tuple(row)


def combined_level(levels: list[int]) -> int:
    """The upper median: the highest level that at least half of the assessors gave or exceeded."""
    ordered = sorted(levels)
    return ordered[len(ordered) // 2]


def parse_qrels(text: str, name: str = "<input>") -> Qrels:
    return combine(parse_qrels_rows(text, name))


def _read_text(path: str | Path) -> str:
    """A qrels or TREC run file's text; a byte that is not UTF-8 is reported where it is."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise FormatError([Problem(str(path), 0, 0, f"cannot read file: {exc.strerror or exc}")]) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = data.rfind(b"\n", 0, exc.start) + 1
        raise FormatError([compressed_problem(str(path), data[:8]) or
                           Problem(str(path), data.count(b"\n", 0, exc.start) + 1, exc.start - line_start + 1,
                                   f"invalid UTF-8 byte 0x{data[exc.start]:02x}: the file must be UTF-8")]) from None


def read_qrels_rows(path: str | Path) -> list[RelevanceRow]:
    return parse_qrels_rows(_read_text(path), str(path))


def read_qrels(path: str | Path) -> Qrels:
    return combine(read_qrels_rows(path))


def _header(line: str) -> tuple[str, ...]:
    return tuple(h.strip() for h in line.lstrip("\ufeff").split("\t"))


def is_qrels_header(line: str) -> bool:
    """Whether a file's first line is a qrels header (tells qrels from nugget judgments)."""
    return _header(line) in (HEADER, ASSESSOR_HEADER)


def qrels_to_tsv(qrels: Qrels) -> str:
    """The three-column TSV that `read_qrels` reads back to the same qrels."""
    lines = ["\t".join(HEADER)]
    lines += [f"{topic_id}\t{docid}\t{level}" for topic_id, docs in qrels.items() for docid, level in docs.items()]
    return "\n".join(lines) + "\n"


def rows_to_tsv(rows: Iterable[RelevanceRow]) -> str:
    """The four-column TSV, one line per assessor's judgment."""
    lines = ["\t".join(ASSESSOR_HEADER)]
    lines += [f"{r.topic_id}\t{r.docid}\t{r.level}\t{r.assessor}" for r in rows]
    return "\n".join(lines) + "\n"
