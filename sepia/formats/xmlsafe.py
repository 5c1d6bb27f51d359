"""Safe loading of XML: no DTD, no entities, no network, no file system, bounded size.

A DOCTYPE is the door to every XML attack (entity expansion, external entities, DTD loading), and
no SEPIA format needs one, so it is refused before the parser sees the file.
"""
from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path

from lxml import etree

from sepia import config
from sepia.formats.compressed import compressed_problem
from sepia.formats.errors import FormatError, Problem, capped
from sepia.limits import too_large

_DANGEROUS = re.compile(rb"<!(DOCTYPE|ENTITY)", re.IGNORECASE)
_ENCODING_DECL = re.compile(rb"""^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
        huge_tree=False, remove_comments=False, collect_ids=False,
    )


@dataclass
class LoadedXml:
    """A file's bytes, checked for what is refused before any parsing (size, encoding, DOCTYPE); its
    tree is built when first asked for (`root`): a valid run is read window by window instead
    (sepia.formats.stream), without ever holding the whole tree, which takes some 15 times the file."""
    path: str
    data: bytes
    # Found once per file, so that asking many positions stays linear in the file.
    _starts: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    _nths: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def position(self, element: etree._Element, of: str | None = None) -> tuple[int, int]:
        """Line and column of an element's start tag (lxml keeps only the line; find the column),
        or of a value in it: of an attribute named `of`, or of its text when `of` is "#text"."""
        line = element.sourceline or 1
        starts = self._tag_starts(line, element.tag) if line <= len(self._lines) else []
        nth = self._nth_on_line(element)
        if nth >= len(starts):
            return line, 1
        offset, column = starts[nth]
        if of is not None:
            text = self._lines[line - 1]
            end = text.find(b"<", offset + 1)  # no attribute value holds a "<": the element ends before
            value = (_TEXT_START if of == "#text" else _attribute_start(of)).search(
                text, offset, len(text) if end < 0 else end)
            if value:
                return line, column + len(text[offset:value.end()].decode("utf-8", "replace"))
        return line, column

    @cached_property
    def root(self) -> etree._Element:
        """The whole tree; FormatError with every syntax problem when the file is not well-formed."""
        parser = _parser()
        try:
            return etree.fromstring(self.data, parser)
        except etree.XMLSyntaxError as exc:
            # The parser's own log: the exception's (lxml 6) also holds the errors of every file this
            # thread parsed before, so a second upload was told the first one's problems too.
            problems = [Problem(self.path, e.line or 1, max(e.column, 1), f"not well-formed XML: {e.message}")
                        for e in parser.error_log] or [Problem(self.path, 1, 1, f"not well-formed XML: {exc}")]
            raise FormatError(capped(problems, "syntax problems")) from None

    @cached_property
    def _lines(self) -> list[bytes]:
        return self.data.split(b"\n")

    def _tag_starts(self, line: int, tag: str) -> list[tuple[int, int]]:
        """Byte offset and column of each `<tag` on a line."""
        if (line, tag) not in self._starts:
            text, needle = self._lines[line - 1], f"<{tag}".encode()
            starts, column, previous = [], 1, 0
            found = _find_tag(text, needle, 0)
            while found >= 0:
                column += len(text[previous:found].decode("utf-8", "replace"))
                starts.append((found, column))
                previous, found = found, _find_tag(text, needle, found + 1)
            self._starts[line, tag] = starts
        return self._starts[line, tag]

    def _nth_on_line(self, element: etree._Element) -> int:
        """How many elements of the same name start before this one on its line."""
        if element.tag not in self._nths:
            counts, previous_line, nth = {}, None, 0
            for other in self.root.iter(element.tag):
                nth = nth + 1 if other.sourceline == previous_line else 0
                previous_line = other.sourceline
                if nth:  # held here, these elements keep their proxies, so identity lookups work
                    counts[other] = nth
            self._nths[element.tag] = counts
        return self._nths[element.tag].get(element, 0)

    def problem(self, element: etree._Element, message: str, severity: str = "error",
                of: str | None = None) -> Problem:
        line, column = self.position(element, of)
        return Problem(self.path, line, column, message, severity)


_TEXT_START = re.compile(rb">\s*")


@lru_cache(maxsize=None)
def _attribute_start(name: str) -> re.Pattern:
    return re.compile(rb"\s" + re.escape(name.encode()) + rb"\s*=\s*[\"']")


def _find_tag(text: bytes, tag: bytes, start: int) -> int:
    while True:
        i = text.find(tag, start)
        if i < 0:
            return -1
        after = text[i + len(tag): i + len(tag) + 1]
        if after in (b"", b">", b"/", b" ", b"\t", b"\r"):
            return i
        start = i + 1


def load_xml(path: str | Path, max_bytes: int | None = None) -> LoadedXml:
    """Read and parse a file safely; raise FormatError explaining what is wrong."""
    name = str(path)
    limit = config.max_xml_bytes() if max_bytes is None else max_bytes
    try:
        size = Path(path).stat().st_size
        if size > limit:
            raise FormatError([Problem(name, 1, 1, f"{too_large(limit, size)} (raise it with SEPIA_MAX_XML_BYTES "
                                       "or --max-size)")])
        data = Path(path).read_bytes()
    except OSError as exc:
        raise FormatError([Problem(name, 0, 0, f"cannot read file: {exc.strerror or exc}")]) from None
    return parse_xml(data, name)


def parse_xml(data: bytes, name: str = "<input>") -> LoadedXml:
    if not data or data.isspace():  # = not data.strip(), without copying the file
        raise FormatError([Problem(name, 1, 1, "file is empty")])
    _check_encoding(data, name)
    # memchr for "!" first: far faster than any search for "<!" in a file full of "<".
    danger = _DANGEROUS.search(data) if b"!" in data else None
    if danger:
        line, column = _line_column(data, danger.start())
        raise FormatError([Problem(name, line, column, "DOCTYPE and ENTITY declarations are not allowed "
                                   "(SEPIA files need no DTD; entity expansion and external entities are refused)")])
    return LoadedXml(name, data)


def iterparse(data: bytes, tag=None):
    """lxml's incremental parser over `data`, as safe as the whole-tree one (the DOCTYPE scan above
    has run: `data` comes from a LoadedXml); with `tag`, only the elements so named are handed back."""
    return etree.iterparse(io.BytesIO(data), events=("end",), tag=tag, resolve_entities=False, no_network=True,
                           load_dtd=False, dtd_validation=False, huge_tree=False, remove_comments=False)


def _check_encoding(data: bytes, name: str) -> None:
    declared = _ENCODING_DECL.match(data)
    if declared and declared.group(1).decode().lower().replace("_", "-") not in ("utf-8", "utf8", "us-ascii", "ascii"):
        raise FormatError([Problem(name, 1, 1, f"encoding {declared.group(1).decode()} is not allowed: "
                                   "SEPIA files are UTF-8")])
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise FormatError([Problem(name, 1, 1, "file is UTF-16: SEPIA files are UTF-8")])
    bad = _first_invalid_utf8(data)
    if bad is not None:
        line, column = _line_column(data, bad)
        raise FormatError([compressed_problem(name, data[:8]) or
                           Problem(name, line, column, f"invalid UTF-8 byte 0x{data[bad]:02x}: SEPIA files are UTF-8")])


UTF8_CHUNK = 1 << 20


def _first_invalid_utf8(data: bytes) -> int | None:
    """Where the first byte that breaks UTF-8 is, or None: decoded a megabyte at a time (the whole
    file at once would be a copy of up to four times its size), each piece ending before a byte that
    starts a character, so that an error is found where decoding the whole file finds it."""
    view, start = memoryview(data), 0
    while start < len(data):
        end = min(start + UTF8_CHUNK, len(data))
        while end < len(data) and end - start > 4 and 0x80 <= data[end] < 0xC0:  # a continuation byte
            end -= 1
        try:
            str(view[start:end], "utf-8")
        except UnicodeDecodeError as exc:
            return start + exc.start
        start = end
    return None


def _line_column(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    line_start = data.rfind(b"\n", 0, offset) + 1
    return line, len(data[line_start:offset].decode("utf-8", "replace")) + 1
