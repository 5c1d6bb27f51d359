"""TREC RAG R-task runs (TREC run format, `topic Q0 segment_id rank score run_tag` a line) -> an IR4QA run.

The track's rules checked here, every problem a PATH:LINE:COLUMN message and nothing converted: six
white-space-separated fields with `Q0`, ranks 1, 2, ... per topic in file order, scores that never
increase down a topic's list, a segment once per topic, one run tag a file, topics the campaign has
(`topics.tsv`). The track reads at most 100 segments a topic: the rest are dropped, with a warning.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from sepia import vocab
from sepia.convert.nuggetizer import LANG
from sepia.corpus.documents import check_docid
from sepia.formats.errors import FormatError, Problem
from sepia.formats.model import IR4QARun, IR4QATopic, Metadata, RetrievedDoc

MAX_SEGMENTS = 100


@dataclass
class RetrievalConversion:
    run: IR4QARun
    original_run_id: str
    warnings: list[str] = field(default_factory=list)


def convert_rag_retrieval(path: str | Path, topic_ids: dict[str, str], team: str, priority: int = 1
                          ) -> RetrievalConversion:
    """Read and check one R run; raises FormatError listing every problem. The run ID is
    TEAM-EN-EN-NN-T (`team`, `priority`)."""
    name = str(path)
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise FormatError([Problem(name, 0, 0, f"cannot read file: {exc}")]) from None
    problems: list[Problem] = []
    ranked: dict[str, list[RetrievedDoc]] = {}
    last: dict[str, tuple[int, float]] = {}  # topic -> (line, score) of its previous segment
    seen: set[tuple[str, str]] = set()
    tag = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        fields = line.split()
        found = []
        if len(fields) != 6:
            problems.append(Problem(name, number, 1, f"expected 6 fields (topic Q0 segment rank score run), "
                                                     f"got {len(fields)}"))
            continue
        qid, q0, docid, rank, score, run_tag = fields
        tag = tag or run_tag
        if q0 != "Q0":
            found.append(f"second field must be Q0, got {q0!r}")
        if qid not in topic_ids:
            found.append(f"topic {qid!r} is not among the campaign's topics (topics.tsv)")
        if why := check_docid(docid):
            found.append(why)
        elif (qid, docid) in seen:
            found.append(f"segment {docid} already ranked for topic {qid!r}")
        expected = len(ranked.get(qid, [])) + 1
        if not re.fullmatch(r"[0-9]+", rank) or int(rank) != expected:
            found.append(f"rank must be {expected} (ranks 1, 2, ... in file order per topic), got {rank!r}")
        try:
            value = float(score)
            if not math.isfinite(value):
                raise ValueError
        except ValueError:
            found.append(f"score must be a finite number, got {score!r}")
            value = None
        if value is not None and qid in last and value > last[qid][1]:
            found.append(f"score {score} is higher than the one on line {last[qid][0]}: scores must not increase")
        if run_tag != tag:
            found.append(f"run {run_tag!r} differs from {tag!r}: one run a file")
        problems += [Problem(name, number, 1, message) for message in found]
        if not found and value is not None:  # a score that is not a number is a problem found
            seen.add((qid, docid))
            last[qid] = (number, value)
            ranked.setdefault(qid, []).append(RetrievedDoc(int(rank), docid, value))
    if tag is None and not problems:
        problems.append(Problem(name, 1, 1, "no lines: expected topic Q0 segment rank score run"))
    run_id = f"{team}-{LANG}-{LANG}-{priority:02d}-T"
    if not problems and not vocab.parse_run_id(run_id):
        problems.append(Problem(name, 1, 1, f"{run_id!r} is not a run ID TEAM-EN-EN-NN-T"))
    if problems or tag is None:
        raise FormatError(problems)
    warnings = [f"topic {qid}: {len(docs)} segments, only the first {MAX_SEGMENTS} are kept"
                for qid, docs in ranked.items() if len(docs) > MAX_SEGMENTS]
    topics = [IR4QATopic(topic_ids[qid], docs[:MAX_SEGMENTS]) for qid, docs in ranked.items()]
    return RetrievalConversion(IR4QARun(Metadata(run_id, f"TREC RAG run {tag}"), topics), tag, warnings)
