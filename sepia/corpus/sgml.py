"""TREC/NTCIR-style SGML newswire, read as a stream of lines:

    <DOC>
    <DOCNO>XIN_CMN_20020101.0001</DOCNO>
    <HEADLINE>...</HEADLINE>  (or TITLE)     <DATE>...</DATE>  (or DATE_TIME)
    <TEXT> ... <P>...</P> ... </TEXT>
    </DOC>

Several elements may share a line and a document may span any number of lines. Markup inside
TEXT and HEADLINE (<P>, ...) is removed and character references are decoded; what remains is the
document's stored text. A broken document is reported at its <DOC> line and skipped.
"""
from __future__ import annotations

import re
from html import unescape
from typing import Iterator

from sepia.corpus.documents import Problem, RawDocument, check_docid, too_long
from sepia.corpus.sources import Line

DOC_OPEN = re.compile(r"<DOC(?:\s[^>]*)?>", re.I)
DOC_CLOSE = re.compile(r"</DOC\s*>", re.I)
TAG = re.compile(r"</?[A-Za-z!][^<>]*>")
SPACES = re.compile(r"[ \t\r\f\v]+")


def _element(names: str, content: str) -> list[str] | None:
    """Contents of every <NAME>..</NAME> for any of `names`; None when one is left open."""
    pattern = re.compile(rf"<({names})(?:\s[^>]*)?>(.*?)(</\1\s*>|$)", re.I | re.S)
    found = []
    for m in pattern.finditer(content):
        if not m.group(3):
            return None
        found.append(m.group(2))
    return found


def _clean(markup: str) -> str:
    text = unescape(TAG.sub("", markup))
    lines = [SPACES.sub(" ", line).strip() for line in text.splitlines()]
    return "\n".join(line for line in lines if line)


def build_document(content: str, path: str, line: int) -> RawDocument | Problem:
    docnos = _element("DOCNO", content)
    if not docnos:
        return Problem(path, line, "<DOC> without <DOCNO>..</DOCNO>; document skipped")
    docid = unescape(TAG.sub("", docnos[0])).strip()
    why = check_docid(docid)
    if why:
        return Problem(path, line, f"{why}; document skipped")
    texts = _element("TEXT", content)
    if texts is None:
        return Problem(path, line, f"{docid}: <TEXT> not closed; document skipped")
    if not texts:
        return Problem(path, line, f"{docid}: no <TEXT>; document skipped")
    titles = _element("HEADLINE|TITLE|HL", content) or []
    dates = _element("DATE|DATE_TIME", content) or []
    title = " ".join(_clean(t).replace("\n", " ") for t in titles).strip()
    date = _clean(dates[0]).replace("\n", " ") if dates else None
    return RawDocument(docid, title, date or None, "\n".join(_clean(t) for t in texts).strip(), path, line)


def parse_sgml(lines: Iterator[Line], path: str, max_bytes: int) -> Iterator[RawDocument | Problem]:
    """Documents, or problems; a document whose lines exceed `max_bytes` is reported, not kept."""
    parts: list[str] = []
    size = 0                       # bytes of the lines the open document spans
    start: int | None = None       # line of the open <DOC>, None outside a document
    damaged: str | None = None     # first decoding problem inside the open document
    outside_reported = False
    last = 0
    for line in lines:
        if line.number < 0:        # the file broke off (truncated gzip, I/O error)
            yield Problem(path, last, line.error or "file cannot be read")
            return
        last = line.number
        if line.size > max_bytes:  # never read, so the document it belongs to is lost
            yield Problem(path, line.number if start is None else start, too_long(max_bytes))
            start, outside_reported = None, True  # what follows of that document is not stray text
            continue
        if start is not None:
            size += line.size
        text, pos = line.text, 0
        while True:
            if start is None:
                m = DOC_OPEN.search(text, pos)
                stray = text[pos:m.start() if m else len(text)]
                if TAG.sub("", stray).strip() and not outside_reported:  # wrapper tags are fine
                    yield Problem(path, line.number, "text outside <DOC>..</DOC> ignored")
                    outside_reported = True
                if not m:
                    break
                start, parts, size, damaged, pos = line.number, [], line.size, None, m.end()
            if line.error and not damaged:
                damaged = f"line {line.number}: {line.error}"
            close = DOC_CLOSE.search(text, pos)
            reopen = DOC_OPEN.search(text, pos)
            if reopen and (not close or reopen.start() < close.start()):
                yield Problem(path, start, f"<DOC> not closed before the next <DOC> at line {line.number}; "
                                           "document skipped")
                start, pos = None, reopen.start()
                continue
            chunk = text[pos:close.start()] if close else text[pos:]
            if size <= max_bytes:
                parts.append(chunk)
            if not close:
                break
            if size > max_bytes:
                yield Problem(path, start, too_long(max_bytes))
            elif damaged:
                yield Problem(path, start, f"{damaged}; document skipped")
            else:
                yield build_document("".join(parts), path, start)
            start, pos, outside_reported = None, close.end(), False
    if start is not None:
        yield Problem(path, start, "<DOC> not closed at the end of the file; document skipped")
