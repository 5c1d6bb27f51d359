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
    """One run per tag, in the order of the file. The columns come from the separators numpy finds
    (in the usual layout) or from one split of the whole text, once every line is known to have six
    fields, and each score is read once; only a file with a bad line is read again, line by line,
    to say where."""
    columns = _columns(text)
    if columns is None:
        raise FormatError(_run_problems(text, name))
    stretches, docids, score_texts = columns
    try:
        scores = np.fromiter(map(float, score_texts), dtype=float, count=len(score_texts))
    except ValueError:
        raise FormatError(_run_problems(text, name)) from None
    del score_texts
    runs = [TrecRun(tag, {qid: _ranked(docids, scores, parts) for qid, parts in topics.items()})
            for tag, topics in _spans(stretches).items()]
    if any(len(set(ranking)) != len(ranking) for run in runs for ranking in run.rankings.values()):
        raise FormatError(_run_problems(text, name))
    return runs


Stretch = tuple[str, str, int, int]  # tag, qid, first line, line after the last: lines of one tag and topic


def _columns(text: str) -> tuple[list[Stretch], list[str], list[str]] | None:
    """The stretches of lines of one tag and topic, the DOCIDs and the score texts of a run whose
    lines that are not blank have six fields each; None when one has not."""
    usual = _usual_layout(text)
    if usual is not None:
        return usual or None
    if not set(map(len, map(str.split, text.splitlines()))) <= {0, 6}:
        return None
    fields = text.split()
    qids, tags = fields[0::6], fields[5::6]
    stretches, start = [], 0
    for (tag, qid), lines in groupby(zip(tags, qids)):
        stop = start + sum(1 for _ in lines)
        stretches.append((tag, qid, start, stop))
        start = stop
    return stretches, fields[2::6], fields[4::6]


# what str.split() and str.splitlines() take for white space in ASCII text, besides " " and "\n"
_OTHER_ASCII_WHITESPACE = "\t\r\x0b\x0c\x1c\x1d\x1e\x1f"
# Lines whose tags or qids are compared at a time, and the longest such field compared by numpy.
_LINE_BLOCK = 65_536
_WIDEST_KEY = 64


def _usual_layout(text: str):
    """`_columns` of a run in the usual layout (ASCII, fields separated by one space, lines ended by
    one newline, no other white space), read off the separators numpy finds, with a string made
    only for each DOCID, score and stretch; () when its lines do not all have six fields; None when
    the layout is not the usual one (then the text is split)."""
    if not text.isascii() or text[:1].isspace() or any(c in text for c in _OTHER_ASCII_WHITESPACE):
        return None
    data = np.frombuffer((text if text.endswith("\n") else text + "\n").encode("ascii"), dtype=np.uint8)
    newline = data == 10
    separators = np.flatnonzero(newline | (data == 32))
    if separators[0] == 0 or (np.diff(separators) < 2).any():  # an empty field or a blank line
        return None
    lines = int(np.count_nonzero(newline))
    if len(separators) != 6 * lines or not newline[separators[5::6]].all():
        return ()
    starts = np.concatenate([[0], separators[:-1] + 1])
    qid_starts, tag_starts = starts[0::6], starts[5::6]
    qid_ends, tag_ends = separators[0::6], separators[5::6]
    qid_changed, tag_changed = _changed(data, qid_starts, qid_ends), _changed(data, tag_starts, tag_ends)
    if qid_changed is None or tag_changed is None:
        return None
    bounds: list[int] = [0, *(np.flatnonzero(qid_changed | tag_changed) + 1).tolist(), lines]
    stretches = [(text[tag_starts[a]:tag_ends[a]], text[qid_starts[a]:qid_ends[a]], a, b)
                 for a, b in zip(bounds[:-1], bounds[1:])]
    # the DOCID and score columns with the space after each, cut out by numpy and split at C speed
    edges = np.zeros(len(data) + 1, np.int8)
    for column in (2, 4):
        edges[starts[column::6]] += 1
        edges[separators[column::6] + 1] -= 1
    kept = np.cumsum(edges[:-1], dtype=np.int8).view(bool)
    both = data[kept].tobytes().decode("ascii").split()
    return stretches, both[0::2], both[1::2]


def _changed(data: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray | None:
    """Whether each line's field (bytes starts:ends) differs from the line before's: (lines - 1,);
    None when a field is wider than numpy compares here."""
    lengths = ends - starts
    width = int(lengths.max(initial=0))
    if width > _WIDEST_KEY:
        return None
    columns = np.arange(width)
    different = lengths[1:] != lengths[:-1]
    last = None
    for first in range(0, len(starts), _LINE_BLOCK):
        at = starts[first:first + _LINE_BLOCK, None] + columns
        block = np.where(columns < lengths[first:first + _LINE_BLOCK, None], data[np.minimum(at, len(data) - 1)], 0)
        rows = block if last is None else np.concatenate([last, block])
        offset = first - (0 if last is None else 1)
        different[max(offset, 0):offset + len(rows) - 1] |= (rows[1:] != rows[:-1]).any(1)
        last = block[-1:]
    return different


def _spans(stretches: list[Stretch]) -> dict[str, dict[str, list[range]]]:
    """Tag -> topic -> the index ranges of its lines (a topic's lines may come in several pieces)."""
    spans: dict[str, dict[str, list[range]]] = {}
    for tag, qid, start, stop in stretches:
        spans.setdefault(tag, {}).setdefault(qid, []).append(range(start, stop))
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
