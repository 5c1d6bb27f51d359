"""JSON lines: one object a line with `id`, `text`, optional `title`, `date` (and `source`,
e.g. a URL); other keys are ignored. The Japanese Wikinews dump loads as it is, and so do the
MS MARCO v2.1 segment shards of TREC RAG (`docid`, `segment`, `url` stand for `id`, `text`,
`source` when those are absent; `headings`, `start_char` and `end_char` are ignored)."""
from __future__ import annotations

from typing import Iterator

from sepia.corpus.documents import MAX_SOURCE, Problem, RawDocument, check_docid, too_long
from sepia.corpus.sources import Line
from sepia.formats.jsonlines import JSONLineError, new_decoder, parse_line


def _optional_text(obj: dict, key: str) -> str | None:
    """The field's text, None when it is absent; ValueError when it is not text."""
    value = _field(obj, key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ValueError(f'"{key}" must be a string')
    return str(value).strip()


# each field and the MS MARCO v2.1 segment field that stands for it
ALTERNATIVES = {"id": "docid", "text": "segment", "source": "url"}


def _field(obj: dict, key: str):
    return obj.get(key) if key in obj or key not in ALTERNATIVES else obj.get(ALTERNATIVES[key])


def parse_jsonl(lines: Iterator[Line], path: str, max_bytes: int) -> Iterator[RawDocument | Problem]:
    last = 0
    decoder = new_decoder()
    for line in lines:
        if line.number < 0:
            yield Problem(path, last, line.error or "file cannot be read")
            return
        last = line.number
        if line.size > max_bytes:
            yield Problem(path, line.number, too_long(max_bytes))
            continue
        if not line.text.strip():
            continue
        if line.error:
            yield Problem(path, line.number, f"{line.error}; document skipped")
            continue
        try:
            obj = parse_line(line.text, decoder)
        except JSONLineError as exc:
            yield Problem(path, line.number, f"{exc.message} at column {exc.column}; document skipped")
            continue
        if not isinstance(obj, dict):
            yield Problem(path, line.number, "not a JSON object; document skipped")
            continue
        docid = _field(obj, "id")
        if isinstance(docid, bool) or not isinstance(docid, (str, int)):
            yield Problem(path, line.number, 'no "id" (a string or an integer); document skipped')
            continue
        docid = str(docid).strip()
        why = check_docid(docid)
        if why:
            yield Problem(path, line.number, f"{why}; document skipped")
            continue
        text = _field(obj, "text")
        if not isinstance(text, str) or not text.strip():
            yield Problem(path, line.number, f'{docid}: "text" missing or empty; document skipped')
            continue
        try:
            title, date, source = (_optional_text(obj, key) for key in ("title", "date", "source"))
        except ValueError as bad:
            yield Problem(path, line.number, f"{docid}: {bad}; document skipped")
            continue
        source = source if source and len(source) <= MAX_SOURCE else None
        yield RawDocument(docid, title or "", date or None, text, path, line.number, source)
