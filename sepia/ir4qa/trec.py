"""TREC's exchange files beside SEPIA's: qrels `qid iter docid rel` and runs `qid Q0 docid rank score tag`
(white-space separated), told apart from SEPIA's qrels TSV and IR4QA XML by their content; and
trec_eval's `-q` output (`measure qid value`, `runid all TAG` first).

A TREC run's documents are ranked as trec_eval ranks them: by score, highest first, ties broken by
DOCID in reverse string order; the rank column is not used. One file may hold several runs (one per
tag); a file is read whole, as trec_eval reads one, and its runs are scored one after the other.
"""
from __future__ import annotations

from itertools import groupby
from pathlib import Path
from typing import Iterable, NamedTuple

import numpy as np

from sepia.formats.errors import FormatError, Problem
from sepia.ir4qa.qrels import Qrels, _read_text, is_qrels_header, read_qrels


def _fields(text: str) -> list[tuple[int, list[str]]]:
    return [(n, line.split()) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]


def _first_fields(text: str) -> list[str]:
    return next((f for _, f in _fields(text[:4096])), [])


def looks_like_trec_qrels(text: str) -> bool:
    first = _first_fields(text)
    return len(first) == 4 and not is_qrels_header("\t".join(first)) and first[3].lstrip("-").isdigit()


def looks_like_trec_run(text: str) -> bool:
    return len(_first_fields(text)) == 6 and not text.lstrip().startswith("<")


def parse_trec_qrels(text: str, name: str = "<input>") -> Qrels:
    """`qid iter docid rel` lines; rel 0 is judged non-relevant, 1, 2, ... the levels."""
    qrels: Qrels = {}
    problems = []
    for number, fields in _fields(text):
        if len(fields) != 4:
            problems.append(Problem(name, number, 1, f"expected 4 fields (qid iter docid rel), got {len(fields)}"))
            continue
        qid, _, docid, rel = fields
        if not (rel.isascii() and rel.isdigit()):
            problems.append(Problem(name, number, 1, f"relevance must be 0, 1, 2, ..., got {rel!r}"))
        elif docid in qrels.get(qid, {}):
            problems.append(Problem(name, number, 1, f"document {docid} is judged twice for topic {qid}"))
        else:
            qrels.setdefault(qid, {})[docid] = int(rel)
    if problems:
        raise FormatError(problems)
    return qrels


class TrecRun(NamedTuple):
    """One run of a TREC run file: its tag and each topic's DOCIDs in trec_eval's order."""
    run_id: str
    rankings: dict[str, list[str]]


def parse_trec_runs(text: str, name: str = "<input>") -> list[TrecRun]:
    """One run per tag, in the order of the file. The columns come from one split of the whole text
    (once every line is known to have six fields) and each score is read once; only a file with a
    bad line is read again, line by line, to say where."""
    fields = text.split()
    if not _six_fields_a_line(text, len(fields)):
        raise FormatError(_run_problems(text, name))
    qids, docids, score_texts, tags = fields[0::6], fields[2::6], fields[4::6], fields[5::6]
    del fields
    try:
        scores = np.fromiter(map(float, score_texts), dtype=float, count=len(score_texts))
    except ValueError:
        raise FormatError(_run_problems(text, name)) from None
    runs = [TrecRun(tag, {qid: _ranked(docids, scores, parts) for qid, parts in topics.items()})
            for tag, topics in _spans(tags, qids).items()]
    if any(len(set(ranking)) != len(ranking) for run in runs for ranking in run.rankings.values()):
        raise FormatError(_run_problems(text, name))
    return runs


# what str.split() and str.splitlines() take for white space in ASCII text, besides " " and "\n"
_OTHER_ASCII_WHITESPACE = "\t\r\x0b\x0c\x1c\x1d\x1e\x1f"


def _six_fields_a_line(text: str, fields: int) -> bool:
    """Whether every line that is not blank has six fields. In the usual layout (ASCII, fields
    separated by one space, lines ended by one newline, no other white space) numpy finds the
    separators and every sixth must end a line; otherwise each line is split."""
    if text.isascii() and not text[:1].isspace() and not any(c in text for c in _OTHER_ASCII_WHITESPACE):
        data = np.frombuffer((text if text.endswith("\n") else text + "\n").encode("ascii"), dtype=np.uint8)
        newline = data == 10
        separators = np.flatnonzero(newline | (data == 32))
        if fields == len(separators):  # one separator after each field: no two of them touch
            return len(separators) == 6 * np.count_nonzero(newline) and bool(newline[separators[5::6]].all())
    return set(map(len, map(str.split, text.splitlines()))) <= {0, 6}


def _spans(tags: list[str], qids: list[str]) -> dict[str, dict[str, list[range]]]:
    """Tag -> topic -> the index ranges of its lines (a topic's lines may come in several pieces)."""
    one_tag = tags.count(tags[0]) == len(tags) if tags else True
    spans: dict[str, dict[str, list[range]]] = {}
    start = 0
    for key, lines in groupby(qids if one_tag else zip(tags, qids)):
        tag, qid = (tags[0], key) if one_tag else key
        stop = start + len(list(lines))
        spans.setdefault(tag, {}).setdefault(qid, []).append(range(start, stop))
        start = stop
    return spans


def _ranked(docids: list[str], scores: np.ndarray, parts: list[range]) -> list[str]:
    """One topic's DOCIDs in trec_eval's order (see `trec_eval_order`), sorted by numpy: by score
    (unless the file has them in order already), then each run of equal scores by DOCID."""
    if len(parts) == 1:
        topic_docids, topic_scores = docids[parts[0].start:parts[0].stop], scores[parts[0].start:parts[0].stop]
    else:
        topic_docids = [d for part in parts for d in docids[part.start:part.stop]]
        topic_scores = np.concatenate([scores[part.start:part.stop] for part in parts])
    if np.all(topic_scores[1:] <= topic_scores[:-1]):
        ranked, ordered = topic_docids, topic_scores
    elif np.isnan(topic_scores).any():  # NaN has no place in numpy's order: sort as the definition does
        return [d for d, _ in trec_eval_order(dict(zip(topic_docids, topic_scores.tolist())))]
    else:
        order = np.argsort(-topic_scores, kind="stable")
        ranked, ordered = list(map(topic_docids.__getitem__, order.tolist())), topic_scores[order]
    tied = np.flatnonzero(ordered[1:] == ordered[:-1])  # i: ranks i and i + 1 have equal scores
    if tied.size:
        breaks = np.flatnonzero(np.diff(tied) != 1)
        for first, last in zip(np.r_[tied[0], tied[breaks + 1]].tolist(), np.r_[tied[breaks], tied[-1]].tolist()):
            ranked[first:last + 2] = sorted(ranked[first:last + 2], reverse=True)
    return ranked


def _run_problems(text: str, name: str) -> list[Problem]:
    """Every bad line of a TREC run, as PATH:LINE:COLUMN."""
    seen: dict[tuple[str, str], set[str]] = {}
    problems = []
    for number, fields in _fields(text):
        if len(fields) != 6:
            problems.append(Problem(name, number, 1, f"expected 6 fields (qid Q0 docid rank score tag), "
                                                     f"got {len(fields)}"))
            continue
        qid, _, docid, _, score, tag = fields
        try:
            float(score)
        except ValueError:
            problems.append(Problem(name, number, 1, f"score must be a number, got {score!r}"))
            continue
        docs = seen.setdefault((tag, qid), set())
        if docid in docs:
            problems.append(Problem(name, number, 1, f"document {docid} is retrieved twice for topic {qid}"))
        docs.add(docid)
    return problems


def trec_eval_order(scores: dict[str, float]) -> list[tuple[str, float]]:
    """Highest score first; equal scores in reverse DOCID order, as trec_eval sorts them."""
    return sorted(scores.items(), key=lambda item: (item[1], item[0]), reverse=True)


def read_any_qrels(path: str | Path) -> Qrels:
    """SEPIA's qrels TSV (with its header) or TREC qrels, told apart by the first line."""
    text = _read_text(path)
    return parse_trec_qrels(text, str(path)) if looks_like_trec_qrels(text) else read_qrels(path)


def is_trec_run_file(path: str | Path) -> bool:
    """Whether a run file is a TREC run (else it is SEPIA XML), from its first line."""
    with open(path, "rb") as handle:
        head = handle.read(4096)
    return looks_like_trec_run(head.decode("utf-8", errors="replace"))


def read_trec_runs(path: str | Path) -> list[TrecRun]:
    return parse_trec_runs(_read_text(path), str(path))


def qrels_to_trec(qrels: Qrels) -> str:
    """`qid 0 docid rel` lines, the qrels trec_eval reads."""
    return "".join(f"{qid} 0 {docid} {level}\n" for qid, docs in qrels.items() for docid, level in docs.items())


def trec_eval_lines(run_id: str, measures: Iterable[str], topics: dict, means: dict[str, float]) -> list[str]:
    """trec_eval -q's layout: `runid all TAG`, then `measure<TAB>qid<TAB>value` per topic, then the
    means (`all`, `-` when no topic was scored) and `num_q all N`, the number of topics they are over."""
    measures = list(measures)
    lines = [f"{'runid':<22}\tall\t{run_id}"]
    for topic_id, scores in topics.items():
        lines += [f"{m:<22}\t{topic_id}\t{scores.values[m]:.4f}" for m in measures]
    lines += [f"{m:<22}\tall\t{means[m]:.4f}" if topics else f"{m:<22}\tall\t-" for m in measures]
    return lines + [f"{'num_q':<22}\tall\t{len(topics)}"]
