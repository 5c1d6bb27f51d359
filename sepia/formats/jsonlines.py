"""JSON lines read within stated limits, the one reader of every JSON-lines file SEPIA takes in (TREC
RAG answer and topic files, nuggetizer assignments, corpus documents) and of JSON request bodies.

Python's decoder recurses once per nesting level and refuses integers over 4,300 digits with a
ValueError, so a hostile line of 100,000 nested lists, or one integer of 100,000 digits, would end
in a traceback. A line is first scanned (without recursion) for its nesting depth and its integers'
digits; objects are checked for their number of keys and for a key given twice (the decoder would
keep the last silently). Each limit broken is a `JSONLineError` with the line's column."""
from __future__ import annotations

import json
import json.decoder
import json.scanner
import re
from pathlib import Path
from typing import Iterator

from sepia.formats.compressed import compressed_problem
from sepia.formats.errors import FormatError, Problem

MAX_LINE_BYTES = 1 << 20  # a TREC RAG answer of 100 references and 400 words is under 64 KiB
MAX_DEPTH = 64  # objects and lists inside one another; TREC RAG's files nest 3 deep
MAX_INTEGER_DIGITS = 100  # citations, lengths and topic numbers have a few
MAX_KEYS = 1000  # keys of one object

# What the depth scan sees: a string (skipped whole, unterminated to the end of the line), a bracket,
# or a number whose integer part is long (only those matter: floats have no digit limit).
_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[{]|[\]}]|-?[0-9]{%d,}(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?'
                    % (MAX_INTEGER_DIGITS + 1))
_LONG_DIGITS = re.compile(r"[0-9]{%d}" % (MAX_INTEGER_DIGITS + 1))


class JSONLineError(ValueError):
    """A line that is not JSON (`syntax`), or breaks a limit; `column` is 1-based."""

    def __init__(self, column: int, message: str, syntax: bool = False):
        super().__init__(message)
        self.column = column
        self.message = message
        self.syntax = syntax


class Positioned(dict):
    """A JSON object that remembers the column of its opening brace."""
    column = 1


def _check_shape(line: str) -> None:
    """Raise JSONLineError for nesting deeper than MAX_DEPTH or an integer over MAX_INTEGER_DIGITS
    digits, before the recursive decoder sees the line. Lines with few brackets and no long digit
    run (every real one) are passed by two counts and one search."""
    if line.count("[") + line.count("{") <= MAX_DEPTH and not _LONG_DIGITS.search(line):
        return
    depth = 0
    for token in _TOKEN.finditer(line):
        first = token.group()[0]
        if first in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise JSONLineError(token.start() + 1, f"nested more than {MAX_DEPTH} levels deep")
        elif first in "]}":
            depth -= 1
        elif first != '"' and not any(c in token.group() for c in ".eE"):
            digits = len(token.group().lstrip("-"))
            raise JSONLineError(token.start() + 1,
                                f"an integer of {digits:,} digits; at most {MAX_INTEGER_DIGITS} are allowed")


def _parse_object(s_and_end, *args, **kwargs):
    start = s_and_end[1]  # the index just after '{' is the brace's 1-based column
    pairs, end = json.decoder.JSONObject(s_and_end, *args, **kwargs)  # type: ignore[attr-defined]  # not in typeshed
    if len(pairs) > MAX_KEYS:
        raise JSONLineError(start, f"an object of {len(pairs):,} keys; at most {MAX_KEYS:,} are allowed")
    obj = Positioned(pairs)
    if len(obj) < len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise JSONLineError(start, f"key {json.dumps(key, ensure_ascii=False)} appears twice in one object")
            seen.add(key)
    obj.column = start
    return obj, end


def new_decoder() -> json.JSONDecoder:
    """A decoder whose objects know their column and are checked for keys (pairs are kept as a list
    until _parse_object has looked at them)."""
    decoder = json.JSONDecoder(object_pairs_hook=list)
    # CPython's decoder has these attributes and the pure-Python scanner reads them; typeshed omits them.
    decoder.parse_object = _parse_object  # type: ignore[attr-defined]
    decoder.scan_once = json.scanner.py_make_scanner(decoder)  # type: ignore[attr-defined]
    return decoder


def parse_line(line: str, decoder: json.JSONDecoder | None = None):
    """The value of one line of JSON; JSONLineError when it is not JSON or breaks a limit. A decoder
    (from `new_decoder`) may be reused for the lines of one file, never shared between threads."""
    _check_shape(line)
    try:
        return (decoder or new_decoder()).decode(line)
    except json.JSONDecodeError as exc:
        raise JSONLineError(exc.colno, f"not valid JSON: {exc.msg}", syntax=True) from None


def json_lines(path: str | Path, problems: list[Problem], data: bytes | None = None) -> Iterator[tuple[int, object]]:
    """Yield (line number, value) for each non-blank line of a JSON-lines file (or of `data`, named
    `path`); a line that is too long, not UTF-8, not JSON or over a limit becomes a problem instead.
    An unreadable file, a compressed one, or one whose first line is not JSON at all (an XML file, a
    TSV: not JSON lines) raises FormatError with one problem, not one a line."""
    name = str(path)
    try:
        data = Path(path).read_bytes() if data is None else data
    except OSError as exc:
        raise FormatError([Problem(name, 0, 0, f"cannot read file: {exc.strerror or exc}")]) from None
    decoder = new_decoder()
    first = True  # no line read yet
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if len(raw) > MAX_LINE_BYTES:
            problems.append(Problem(name, number, 1, f"line of {len(raw):,} bytes; at most {MAX_LINE_BYTES:,} are allowed"))
            continue
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            if compressed := compressed_problem(name, data[:8]):
                raise FormatError([compressed]) from None
            problems.append(Problem(name, number, exc.start + 1, "invalid UTF-8"))
            continue
        if number == 1:
            line = line.lstrip("\ufeff")
        if not line.strip():
            continue
        try:
            value = parse_line(line, decoder)
        except JSONLineError as exc:
            if first and exc.syntax:
                raise FormatError([_not_json_lines(name, number, exc, line)]) from None
            problems.append(Problem(name, number, exc.column, exc.message))
            first = False
            continue
        first = False
        yield number, value


def _not_json_lines(name: str, number: int, exc: JSONLineError, line: str) -> Problem:
    """One problem for a file whose first line is not JSON: it is not JSON lines at all (an XML file,
    a TSV), so its every line is not listed."""
    looks = "; it looks like XML" if line.lstrip().startswith("<") else ""
    return Problem(name, number, exc.column, "not a JSON lines file (one JSON object a line): its first line is not "
                                             f"valid JSON ({exc.message.removeprefix('not valid JSON: ')}){looks}")
