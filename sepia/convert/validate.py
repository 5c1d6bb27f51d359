"""Every file `sepia validate` checks: SEPIA's own formats as sepia.formats.validate checks them, and
TREC RAG's JSON-lines files, an AG/RAG answer file (`metadata`, `references`, `answer` a line) or a
topic file (`id`, `title` a line), told apart by their first line and checked by the converters that
read them, so validate gives the PATH:LINE messages that `sepia convert` and an upload give."""
from __future__ import annotations

from pathlib import Path

from sepia import config
from sepia.formats.docids import MissingDocuments
from sepia.formats.errors import FormatError, Problem
from sepia.formats.validate import is_judgments, validate_file
from sepia.limits import too_large

RAG_ANSWERS = "rag-answers"
RAG_TOPICS = "rag-topics"
JSONL_FORMATS = (RAG_ANSWERS, RAG_TOPICS)
HEAD_BYTES = 1 << 16  # enough for an answer line of 100 references and 400 words
BLANK = b"\xef\xbb\xbf \t\r\n"  # a BOM and white space before the first line


def starts_with_object(data: bytes) -> bool:
    """JSON lines start with an object; every XML file starts with `<`."""
    return data.lstrip(BLANK)[:1] == b"{"


def validate_any_file(path: str | Path, format_name: str | None = None, max_bytes: int | None = None,
                      gold=None, gold_name: str = "",
                      missing: MissingDocuments | None = None) -> tuple[object | None, list[Problem]]:
    """A TREC RAG JSON-lines file's conversion, else the file's object as `validate_file` gives it
    (None when invalid), and every problem."""
    jsonl = None if is_judgments(path, format_name) else jsonl_format(path, format_name)
    if jsonl:
        return validate_jsonl(path, jsonl, max_bytes)
    return validate_file(path, format_name, max_bytes, gold, gold_name, missing)


def jsonl_format(path: str | Path, format_name: str | None) -> str | None:
    """RAG_ANSWERS or RAG_TOPICS when told, or when the file starts with a JSON object (its first line
    naming an answer's fields or a topic's); else None (an XML format, or a file that cannot be read:
    the XML reader says why)."""
    if format_name is not None:
        return format_name if format_name in JSONL_FORMATS else None
    try:
        with open(path, "rb") as f:
            head = f.read(HEAD_BYTES)
    except OSError:
        return None
    if not starts_with_object(head):
        return None
    first = head.lstrip(BLANK).split(b"\n", 1)[0]
    if any(f'"{key}"'.encode() in first for key in ("metadata", "references", "answer")):
        return RAG_ANSWERS
    return RAG_TOPICS if any(f'"{key}"'.encode() in first for key in ("id", "title")) else RAG_ANSWERS


def validate_jsonl(path: str | Path, format_name: str, max_bytes: int | None = None) -> tuple[object | None, list[Problem]]:
    """The file's conversion (None when invalid) and every problem, as PATH:LINE:COLUMN."""
    from sepia.convert.rag_answers import convert_rag_answers
    from sepia.convert.rag_topics import convert_rag_topics

    name = str(path)
    limit = config.max_xml_bytes() if max_bytes is None else max_bytes
    try:
        size = Path(path).stat().st_size
        if size > limit:
            return None, [Problem(name, 1, 1, f"{too_large(limit, size)} (--max-size)")]
        data = Path(path).read_bytes()
        convert = convert_rag_answers if format_name == RAG_ANSWERS else convert_rag_topics
        return convert(path, data=data), []
    except OSError as exc:
        return None, [Problem(name, 0, 0, f"cannot read file: {exc.strerror or exc}")]
    except FormatError as exc:
        return None, exc.problems
