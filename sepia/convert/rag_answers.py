"""TREC RAG AG/RAG answer files (JSONL, one topic's answer a line) -> a CCLQA run.

A line is `{"metadata": {"team_id", "run_id", "narrative_id" (2025) or "topic_id" (2024), ...},
"references": [segment IDs], "answer": [{"text", "citations"}], "response_length"?}`. Citations are
indices into `references` (zero-based) or the cited segment IDs themselves (the 2025 guidelines' two
formats). The track's rules checked here: at most 100 references, each citation pointing into them,
at most 400 words (the sum of the sentences' white-space-separated words), one run ID per file, a
topic answered once, topics the campaign has (`topics.tsv`). The whole file is checked first; every
problem is a PATH:LINE:COLUMN message and nothing is converted.

Each answer sentence becomes one ANSWER (one response, ranked in the answer's order) whose DOCIDs
are its cited segments, so the sentence is pooled and judged on its own and its citations link to
the segments of the collection.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from sepia import vocab
from sepia.convert.nuggetizer import LANG, NOT_XML_RE, json_kind
from sepia.formats.jsonlines import json_lines
from sepia.formats.errors import FormatError, Problem
from sepia.formats.model import Answer, CCLQARun, CCLQATopic, Metadata

MAX_REFERENCES = 100
MAX_WORDS = 400
MAX_DOCID = 200  # the DOCID length every SEPIA format allows
DESCRIPTION = "TREC RAG run {}"  # the converted run's DESCRIPTION: it names the file's run_id


@dataclass
class AnswersConversion:
    run: CCLQARun
    original_run_id: str  # the file's run_id
    original_team_id: str  # the file's team_id


def _qid(metadata: dict):
    value = metadata.get("narrative_id", metadata.get("topic_id"))
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


def _citations(citations, references: list[str], i: int, found: list[str]) -> list[str]:
    """The cited segment IDs of sentence `i`, in the order given; a problem for each bad citation."""
    if not isinstance(citations, list):
        found.append(f"answer sentence {i}: citations must be a list, got {json_kind(citations)}")
        return []
    cited = []
    for c in citations:
        if isinstance(c, int) and not isinstance(c, bool):
            if 0 <= c < len(references):
                cited.append(references[c])
            else:
                found.append(f"answer sentence {i}: citation {c} is not an index into the {len(references)} references")
        elif isinstance(c, str):
            if c in references:
                cited.append(c)
            else:
                found.append(f"answer sentence {i}: citation {c!r} is not among the references")
        else:
            found.append(f"answer sentence {i}: a citation must be an index or a segment ID, got {json_kind(c)}")
    return list(dict.fromkeys(cited))


def _line(obj, topic_ids: dict[str, str] | None, known_from: str) -> tuple[list[str], tuple | None]:
    """Problems of one line, and (run ID, team ID, qid, [(text, cited segment IDs)]) when it has none."""
    if not isinstance(obj, dict):
        return [f"expected a JSON object, got {json_kind(obj)}"], None
    found: list[str] = []
    metadata, references, answer = obj.get("metadata"), obj.get("references"), obj.get("answer")
    if not isinstance(metadata, dict):
        found.append("field 'metadata' must be an object")
        metadata = {}
    for key in ("run_id", "team_id"):
        if not isinstance(metadata.get(key), str) or not metadata[key].strip():
            found.append(f"metadata: {key!r} must be a non-empty string")
    qid = _qid(metadata)
    if not isinstance(qid, str) or not qid.strip():
        found.append("metadata: 'narrative_id' (or 2024's 'topic_id') must be a non-empty string")
    elif topic_ids is not None and qid not in topic_ids:
        found.append(f"topic {qid!r} is not among the campaign's topics ({known_from})")
    if not isinstance(references, list) or not all(isinstance(r, str) and r.strip() for r in references):
        found.append("field 'references' must be a list of segment IDs")
        references = []
    elif len(references) > MAX_REFERENCES:
        found.append(f"{len(references)} references; at most {MAX_REFERENCES} are allowed")
    elif any(len(r) > MAX_DOCID or NOT_XML_RE.search(r) or re.search(r"\s", r) for r in references):
        found.append(f"a reference is not a segment ID (white space, a control character or over {MAX_DOCID} characters)")
    if "response_length" in obj and not (isinstance(obj["response_length"], int) and obj["response_length"] >= 0):
        found.append("field 'response_length' must be a whole number")
    sentences = []
    if not isinstance(answer, list):
        found.append("field 'answer' must be a list of {\"text\", \"citations\"} sentences")
        answer = []
    for i, sentence in enumerate(answer):
        if not isinstance(sentence, dict) or not isinstance(sentence.get("text"), str):
            found.append(f"answer sentence {i}: must be an object with a string 'text'")
            continue
        if NOT_XML_RE.search(sentence["text"]):
            found.append(f"answer sentence {i}: text contains a character XML cannot carry")
        sentences.append((sentence["text"], _citations(sentence.get("citations", []), references, i, found)))
    words = sum(len(text.split()) for text, _ in sentences)
    if words > MAX_WORDS:
        found.append(f"the answer has {words} words; at most {MAX_WORDS} are allowed")
    if found:
        return found, None
    return [], (metadata["run_id"], metadata["team_id"], qid, sentences)


def convert_rag_answers(path: str | Path, topic_ids: dict[str, str] | None = None, team: str | None = None,
                        priority: int = 1, data: bytes | None = None, known_from: str = "topics.tsv") -> AnswersConversion:
    """Read and check one run's answer file; raises FormatError listing every problem.

    `topic_ids` (topics.tsv: track ID -> SEPIA topic ID) names the campaign's topics; without it the
    track's IDs are kept; an ID it lacks is refused, saying the map is `known_from`. The run ID is TEAM-EN-EN-NN-T with TEAM `team` (the SEPIA team submitting;
    by default the file's team_id, every character outside [A-Za-z0-9_] made `_`) and NN `priority`.
    `data`, when given, is the file's content (an upload named `path`)."""
    path = Path(path)
    name = str(path)
    problems: list[Problem] = []
    topics: dict[str, list[Answer]] = {}
    seen: dict[str, int] = {}
    first: tuple[int, str, str] | None = None  # line, run ID, team ID
    for number, obj in json_lines(path, problems, data):
        column = getattr(obj, "column", 1)
        found, parsed = _line(obj, topic_ids, known_from)
        if parsed:
            run_id, team_id, qid, sentences = parsed
            topic_id = (topic_ids or {}).get(qid, qid)  # two track IDs of one topic answer it twice
            if first is None:
                first = (number, run_id, team_id)
            elif run_id != first[1]:
                found.append(f"run {run_id!r} differs from {first[1]!r} on line {first[0]}: one run a file")
            if topic_id in seen:
                found.append(f"topic {qid!r} already answered on line {seen[topic_id]}")
            seen.setdefault(topic_id, number)
            topics[topic_id] = [Answer(rank, text, docids) for rank, (text, docids) in enumerate(sentences, start=1)]
        problems += [Problem(name, number, column, message) for message in found]
    if first is None and not problems:
        problems.append(Problem(name, 1, 1, "no answers: expected one JSON object a line"))
    if problems or first is None:
        raise FormatError(problems)
    run_id = f"{team or re.sub(r'[^A-Za-z0-9_]', '_', first[2])}-{LANG}-{LANG}-{priority:02d}-T"
    if not vocab.parse_run_id(run_id):
        raise FormatError([Problem(name, first[0], 1, f"{run_id!r} is not a run ID TEAM-EN-EN-NN-T")])
    mapped = [CCLQATopic(topic_id, answers) for topic_id, answers in topics.items()]
    return AnswersConversion(CCLQARun(Metadata(run_id, DESCRIPTION.format(first[1])), mapped), first[1], first[2])
