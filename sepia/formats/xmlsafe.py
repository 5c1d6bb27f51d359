"""Safe loading of XML: no DTD, no entities, no network, no file system, bounded size.

A DOCTYPE is the door to every XML attack (entity expansion, external entities, DTD loading), and
no SEPIA format needs one, so it is refused before the parser sees the file.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from sepia import config
from sepia.formats.errors import FormatError, Problem

_DANGEROUS = re.compile(rb"<!(DOCTYPE|ENTITY)", re.IGNORECASE)
_ENCODING_DECL = re.compile(rb"""^\s*<\?xml[^>]*encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
        huge_tree=False, remove_comments=False, collect_ids=False,
    )


@dataclass
class LoadedXml:
    path: str
    data: bytes
    root: etree._Element

    def position(self, element: etree._Element) -> tuple[int, int]:
        """Line and column of an element's start tag (lxml keeps only the line; find the column)."""
        line = element.sourceline or 1
        lines = self._lines()
        if line > len(lines):
            return line, 1
        text = lines[line - 1]
        tag = f"<{element.tag}".encode()
        # Several elements of the same name may share a line: count which one this is.
        nth = 0
        for other in self.root.iter(element.tag):
            if other is element:
                break
            if other.sourceline == line:
                nth += 1
        start = -1
        for _ in range(nth + 1):
            start = _find_tag(text, tag, start + 1)
            if start < 0:
                return line, 1
        return line, len(text[:start].decode("utf-8", "replace")) + 1

    def _lines(self) -> list[bytes]:
        if not hasattr(self, "_line_cache"):
            self._line_cache = self.data.split(b"\n")
        return self._line_cache

    def problem(self, element: etree._Element, message: str, severity: str = "error") -> Problem:
        line, column = self.position(element)
        return Problem(self.path, line, column, message, severity)


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
            raise FormatError([Problem(name, 1, 1, f"file is {size:,} bytes, over the limit of {limit:,}"
                                       " (raise it with SEPIA_MAX_XML_BYTES or --max-size)")])
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
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as exc:
        problems = [Problem(name, e.line or 1, max(e.column, 1), f"not well-formed XML: {e.message}")
                    for e in exc.error_log] or [Problem(name, 1, 1, f"not well-formed XML: {exc}")]
        raise FormatError(problems[:50]) from None
    return LoadedXml(name, data, root)


def _check_encoding(data: bytes, name: str) -> None:
    declared = _ENCODING_DECL.match(data)
    if declared and declared.group(1).decode().lower().replace("_", "-") not in ("utf-8", "utf8", "us-ascii", "ascii"):
        raise FormatError([Problem(name, 1, 1, f"encoding {declared.group(1).decode()} is not allowed: "
                                   "SEPIA files are UTF-8")])
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise FormatError([Problem(name, 1, 1, "file is UTF-16: SEPIA files are UTF-8")])
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _line_column(data, exc.start)
        raise FormatError([Problem(name, line, column, f"invalid UTF-8 byte 0x{data[exc.start]:02x}: "
                                   "SEPIA files are UTF-8")]) from None


def _line_column(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    line_start = data.rfind(b"\n", 0, offset) + 1
    return line, len(data[line_start:offset].decode("utf-8", "replace")) + 1
