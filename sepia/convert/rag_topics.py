"""TREC RAG topics (JSONL, one `{"id", "title"}` a line) <-> SEPIA's English topic set.

The track's `title` is the whole information need: a question (2024) or a narrative of two or three
sentences (2025). It becomes the topic's English QUESTION, the one text SEPIA shows assessors and
participants; ID mapping as `sepia convert nuggetizer` does it, kept in topics.tsv so that answer
files, assignments and exports can go back to the track's IDs.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from sepia.convert.nuggetizer import (ANSWER_TYPE, LANG, NOT_XML_RE, check_id_parts, json_kind, mapping_tsv,
                                      numbered_warnings, sepia_topic_ids)
from sepia.formats.errors import FormatError, Problem
from sepia.formats.jsonlines import json_lines
from sepia.formats.model import LangText, Topic, TopicSet
from sepia.formats.write import to_xml


@dataclass
class TopicsConversion:
    topics: TopicSet
    topic_ids: dict[str, str]  # track ID -> SEPIA topic ID
    warnings: list[str] = field(default_factory=list)

    def files(self) -> dict[str, bytes]:
        return {"topics.xml": to_xml(self.topics), "topics.tsv": mapping_tsv(("qid", "topic_id"), self.topic_ids.items())}


def convert_rag_topics(path: str | Path, prefix: str = "RAG", year: str | None = None,
                       data: bytes | None = None) -> TopicsConversion:
    """Read and check the whole file (or `data`, named `path`), then build the topic set; raises
    FormatError listing every problem."""
    check_id_parts(prefix, year)
    path = Path(path)
    name = str(path)
    problems: list[Problem] = []
    titles: dict[str, str] = {}
    lines: dict[str, int] = {}
    for number, obj in json_lines(path, problems, data):
        column = getattr(obj, "column", 1)
        if not isinstance(obj, dict):
            problems.append(Problem(name, number, 1, f"expected a JSON object, got {json_kind(obj)}"))
            continue
        qid, title = obj.get("id"), obj.get("title")
        if isinstance(qid, int) and not isinstance(qid, bool):
            qid = str(qid)  # some releases write the IDs as numbers
        found = []
        if not isinstance(qid, str) or not qid.strip() or any(c in qid for c in "\t\r\n"):
            found.append(f"field 'id' must be a non-empty string without tabs or line breaks, got "
                         f"{json.dumps(obj.get('id')) if 'id' in obj else 'nothing'}")
        elif qid in lines:
            found.append(f"topic {qid!r} already given on line {lines[qid]}")
        if not isinstance(title, str) or not title.strip():
            found.append("field 'title' must be a non-empty string")
        for key, value in (("id", qid), ("title", title)):
            bad = NOT_XML_RE.search(value) if isinstance(value, str) else None
            if bad:
                found.append(f"field {key!r} contains a character XML cannot carry (U+{ord(bad[0]):04X})")
        problems += [Problem(name, number, column, message) for message in found]
        if not found and isinstance(qid, str) and isinstance(title, str):  # both are when nothing was found
            titles[qid], lines[qid] = title.strip(), number
    if not titles and not problems:
        problems.append(Problem(name, 1, 1, 'no topics: expected one {"id", "title"} object a line'))
    if problems:
        raise FormatError(problems)
    topic_ids = sepia_topic_ids(list(titles), prefix, year)
    topics = TopicSet([Topic(topic_ids[qid], [LangText(LANG, title)], answer_type=ANSWER_TYPE, status="completed")
                       for qid, title in titles.items()], LANG)
    return TopicsConversion(topics, topic_ids, numbered_warnings(topic_ids, prefix))


def rag_topics_jsonl(topics: TopicSet, qids: dict[str, str] | None = None) -> str:
    """The track's topic file for a topic set: its English question as `title`, and as `id` the
    track's ID from `qids` (SEPIA topic ID -> track ID, topics.tsv read backwards) or else SEPIA's ID."""
    qids = qids or {}
    lines = []
    for topic in topics.topics:
        title = next((q.text for q in topic.questions if q.lang == LANG), None)
        if title is None:
            raise ValueError(f"topic {topic.topic_id} has no English question")
        lines.append(json.dumps({"id": qids.get(topic.topic_id, topic.topic_id), "title": title}, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


def track_topic_ids(topic_ids, prefix: str = "RAG") -> dict[str, str]:
    """Track ID -> SEPIA topic ID for the IDs `convert_rag_topics` made from the track's: the inverse
    of its naming, so no map is needed. `RAG2024-EN-145979` is `2024-145979`; `RAG2025-EN-7` is also
    `7` (2025 numbers its topics), unless another of `topic_ids` has the number 7 too. Numbered
    topics (`RAG-EN-0001`) and any other ID say nothing of the track's ID."""
    pattern = re.compile(rf"{re.escape(prefix)}([A-Za-z0-9]+)-{LANG}-([0-9]+)")
    parts = {topic_id: m.groups() for topic_id in topic_ids if (m := pattern.fullmatch(topic_id))}
    numbers = Counter(number for year, number in parts.values() if year.isdigit())
    mapping = {f"{year}-{number}": topic_id for topic_id, (year, number) in parts.items()}
    mapping |= {number: topic_id for topic_id, (year, number) in parts.items()
                if year.isdigit() and numbers[number] == 1}
    return mapping
