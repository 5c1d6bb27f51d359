"""TREC's exchange files beside SEPIA's: qrels `qid iter docid rel` and runs `qid Q0 docid rank score tag`
(white-space separated), told apart from SEPIA's qrels TSV and IR4QA XML by their content; and
trec_eval's `-q` output (`measure qid value`, `runid all TAG` first).

A TREC run's documents are ranked as trec_eval ranks them: by score, highest first, ties broken by
DOCID in reverse string order; the rank column is read but not used. One file may hold several runs
(one per tag).
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable

from sepia.formats.errors import FormatError, Problem
from sepia.formats.model import IR4QARun, IR4QATopic, Metadata, RetrievedDoc
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


def parse_trec_run(text: str, name: str = "<input>") -> list[IR4QARun]:
    """One IR4QA run per tag, its documents in trec_eval's order (see the module's docstring)."""
    runs: dict[str, dict[str, dict[str, float]]] = {}
    problems = []
    for number, fields in _fields(text):
        if len(fields) != 6:
            problems.append(Problem(name, number, 1, f"expected 6 fields (qid Q0 docid rank score tag), "
                                                     f"got {len(fields)}"))
            continue
        qid, _, docid, _, score, tag = fields
        try:
            value = float(score)
        except ValueError:
            problems.append(Problem(name, number, 1, f"score must be a number, got {score!r}"))
            continue
        docs = runs.setdefault(tag, {}).setdefault(qid, {})
        if docid in docs:
            problems.append(Problem(name, number, 1, f"document {docid} is retrieved twice for topic {qid}"))
        docs[docid] = value
    if problems:
        raise FormatError(problems)
    return [IR4QARun(Metadata(tag), [IR4QATopic(qid, [RetrievedDoc(rank, docid, score) for rank, (docid, score)
                                                      in enumerate(trec_eval_order(docs), start=1)])
                                     for qid, docs in topics.items()])
            for tag, topics in runs.items()]


def trec_eval_order(scores: dict[str, float]) -> list[tuple[str, float]]:
    """Highest score first; equal scores in reverse DOCID order, as trec_eval sorts them."""
    return sorted(scores.items(), key=lambda item: (item[1], item[0]), reverse=True)


def read_any_qrels(path: str | Path) -> Qrels:
    """SEPIA's qrels TSV (with its header) or TREC qrels, told apart by the first line."""
    text = _read_text(path)
    return parse_trec_qrels(text, str(path)) if looks_like_trec_qrels(text) else read_qrels(path)


def read_any_runs(path: str | Path) -> list[IR4QARun] | None:
    """The runs of a TREC run file; None when the file is not one (then it is SEPIA XML)."""
    with open(path, "rb") as handle:
        head = handle.read(4096)
    try:
        if not looks_like_trec_run(head.decode("utf-8", errors="replace")):
            return None
    except UnicodeDecodeError:
        return None
    return parse_trec_run(_read_text(path), str(path))


def qrels_to_trec(qrels: Qrels) -> str:
    """`qid 0 docid rel` lines, the qrels trec_eval reads."""
    return "".join(f"{qid} 0 {docid} {level}\n" for qid, docs in qrels.items() for docid, level in docs.items())


def trec_eval_lines(run_id: str, measures: Iterable[str], topics: dict, means: dict[str, float]) -> list[str]:
    """trec_eval -q's layout: `runid all TAG`, then `measure<TAB>qid<TAB>value` per topic, then `all`."""
    measures = list(measures)
    lines = [f"{'runid':<22}\tall\t{run_id}"]
    for topic_id, scores in topics.items():
        lines += [f"{m:<22}\t{topic_id}\t{scores.values[m]:.4f}" for m in measures]
    lines += [f"{m:<22}\tall\t{means[m]:.4f}" for m in measures]
    return lines
