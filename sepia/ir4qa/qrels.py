"""Graded relevance judgments (qrels) as TSV: `topic_id docid level`, level 0 (L0, non-relevant)
up to Lk, written as `2` or `L2`."""
from __future__ import annotations

from pathlib import Path

from sepia import vocab
from sepia.formats.errors import FormatError, Problem

HEADER = ("topic_id", "docid", "level")

Qrels = dict[str, dict[str, int]]  # topic -> docid -> level


def parse_qrels(text: str, name: str = "<input>") -> Qrels:
    """Read the TSV, reporting every bad line as PATH:LINE:COLUMN before giving up."""
    lines = text.splitlines()
    if not text.strip():
        raise FormatError([Problem(name, 1, 1, "file is empty; expected the header line " + "\t".join(HEADER))])
    if tuple(h.strip() for h in lines[0].lstrip("\ufeff").split("\t")) != HEADER:
        raise FormatError([Problem(name, 1, 1, "header must be " + " ".join(HEADER) + " (tab-separated)")])
    qrels: Qrels = {}
    problems = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split("\t")]
        if len(fields) != 3:
            problems.append(Problem(name, number, 1, f"expected 3 tab-separated fields, got {len(fields)}"))
            continue
        topic_id, docid, level_text = fields
        level = level_text[1:] if level_text[:1] in ("L", "l") else level_text
        column = len(topic_id) + len(docid) + 3
        if vocab.topic_language(topic_id) is None:
            problems.append(Problem(name, number, 1, f"topic ID {topic_id!r} is not well formed"))
        elif not docid:
            problems.append(Problem(name, number, len(topic_id) + 2, "DOCID is empty"))
        elif not level.isdigit():
            problems.append(Problem(name, number, column, f"level must be 0, 1, 2, ... or L0, L1, ..., got {level_text!r}"))
        elif docid in qrels.get(topic_id, {}):
            problems.append(Problem(name, number, 1, f"document {docid} is judged twice for topic {topic_id}"))
        else:
            qrels.setdefault(topic_id, {})[docid] = int(level)
    if problems:
        raise FormatError(problems)
    return qrels


def read_qrels(path: str | Path) -> Qrels:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise FormatError([Problem(str(path), 1, 1, "invalid UTF-8: qrels files are UTF-8")]) from None
    except OSError as exc:
        raise FormatError([Problem(str(path), 0, 0, f"cannot read file: {exc.strerror or exc}")]) from None
    return parse_qrels(text, str(path))
