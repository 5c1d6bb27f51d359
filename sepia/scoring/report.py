"""Render scores as ACLIA's overview does: one table per language pair, ALL then each answer type."""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

from sepia import vocab
from sepia.scoring import nuggetizer
from sepia.scoring.evaluate import RunScore
from sepia.text.columns import aligned
from sepia.versions import report_versions


@dataclass(frozen=True)
class RunRow:
    """What the tables show of a run: kept for every run while its per-topic scores are written out."""
    run_id: str
    matcher: str
    score: float
    by_type: dict[str, float]
    nuggetizer: dict | None
    topic_ids: tuple[str, ...]

    @classmethod
    def of(cls, result: RunScore, topic_ids: tuple[str, ...] | None = None) -> "RunRow":
        """`topic_ids`: the run's topic IDs when the caller already holds an equal tuple (to share it)."""
        return cls(result.run_id, result.matcher, result.score, result.by_type, result.nuggetizer,
                   topic_ids or tuple(t.topic_id for t in result.topics))

    @property
    def language_pair(self) -> str:
        return vocab.language_pair_of(self.run_id)


def _types(results: Sequence[RunScore]) -> list[str]:
    present = {t for r in results for t in r.by_type}
    return [t for t in vocab.ANSWER_TYPES if t in present]


def grouped_table(results, header: list[str], rows: dict[str, list[str]], title: str = "") -> str:
    """One aligned table per language pair (ACLIA's order), runs in the order given, each row
    `run_id` followed by `rows[run_id]`."""
    by_pair: dict[str, list] = defaultdict(list)
    for r in results:
        by_pair[r.language_pair].append(r)
    lines = [title] if title else []
    for pair in sorted(by_pair, key=_pair_order):
        runs = by_pair[pair]
        body = [header] + [[r.run_id] + rows[r.run_id] for r in runs]
        lines += ["", f"{pair} ({len({t for r in runs for t in _topic_ids(r)})} topics)"] + aligned(body)
    return "\n".join(lines) + "\n"


def _pair_order(pair: str) -> int:
    return (vocab.LANGUAGE_PAIRS + (pair,)).index(pair)


def _topic_ids(result) -> list[str]:
    if isinstance(result, RunRow):
        return list(result.topic_ids)
    topics = result.topics
    return list(topics) if isinstance(topics, dict) else [t.topic_id for t in topics]


def table(results: Sequence[RunScore], title: str = "") -> str:
    """Runs grouped by language pair, ranked within each, with their ALL score and scores by the
    answer types of that pair's topics."""
    by_pair: dict[str, list[RunScore]] = defaultdict(list)
    for r in sorted(results, key=lambda r: (-r.score, r.run_id)):
        by_pair[r.language_pair].append(r)
    text = f"{title}\n" if title else ""
    for pair in sorted(by_pair, key=_pair_order):
        runs = by_pair[pair]
        types = _types(runs)
        header = ["RUN", "MATCHER", "ALL"] + [vocab.ANSWER_TYPE_ABBREVIATIONS.get(t, t) for t in types]
        rows = {r.run_id: [r.matcher.upper(), f"{r.score:.4f}"] + [f"{r.by_type[t]:.4f}" if t in r.by_type else "-"
                                                                   for t in types] for r in runs}
        text += grouped_table(runs, header, rows)
    return text


def tsv_header(measures: Sequence[str] = ()) -> str:
    """The TSV's header line: one row per run and topic follows, then one 'ALL' row per run (easy
    to load in a spreadsheet). With "nuggetizer" in `measures`, four more columns (TREC RAG's scores)
    and an 'ANSWERED' row per run with their mean over the answered topics (the 'ALL' row has their
    mean over all topics)."""
    header = "run_id\tmatcher\ttopic_id\tanswer_type\tf\trecall\tprecision\tmatched\tlength\tallowance"
    return header + ("".join(f"\t{m}" for m in nuggetizer.MEASURES) if "nuggetizer" in measures else "") + "\n"


def tsv_rows(r: RunScore, measures: Sequence[str] = ()) -> str:
    """One run's lines of the TSV (`tsv_header`)."""
    extra = "nuggetizer" in measures

    def four(values: dict | None) -> str:
        return "".join(f"\t{values[m]:.6f}" for m in nuggetizer.MEASURES) if extra and values else ""

    rows = [f"{r.run_id}\t{r.matcher}\t{t.topic_id}\t{t.answer_type}\t{t.f:.6f}\t{t.recall:.6f}\t"
            f"{t.precision:.6f}\t{t.matched:g}\t{t.length}\t{t.allowance:.6f}{four(t.nuggetizer)}\n"
            for t in r.topics]
    means = r.nuggetizer or {}
    rows.append(f"{r.run_id}\t{r.matcher}\tALL\t-\t{r.score:.6f}\t\t\t\t\t{four(means.get('all_topics'))}\n")
    if extra and means:
        rows.append(f"{r.run_id}\t{r.matcher}\tANSWERED\t-\t\t\t\t{means['answered']}\t\t"
                    f"{four(means['answered_topics'])}\n")
    return "".join(rows)


def nuggetizer_table(results: Sequence[RunScore]) -> str:
    """TREC RAG's four scores beside F3, one table per language pair, ranked by F3: first the means
    over all topics of the set (an unanswered topic scores 0, as in F3), then over the topics the
    run answered (nuggetizer's own mean)."""
    ranked = sorted(results, key=lambda r: (-r.score, r.run_id))
    header = (["RUN", "F3"] + [f"{_SHORT[m]}/all" for m in nuggetizer.MEASURES] + ["ANSWERED"]
              + [f"{_SHORT[m]}/ans" for m in nuggetizer.MEASURES])
    rows = {}
    for r in ranked:
        means = r.nuggetizer
        assert means is not None  # the evaluator gives every run TREC RAG's scores
        rows[r.run_id] = ([f"{r.score:.4f}"] + [f"{means['all_topics'][m]:.4f}" for m in nuggetizer.MEASURES]
                          + [f"{means['answered']}/{means['topics']}"]
                          + [f"{means['answered_topics'][m]:.4f}" for m in nuggetizer.MEASURES])
    title = ("TREC RAG nugget scores (nuggetizer): SV strict vital, V vital, SA strict all, A all; "
             "/all = mean over all topics of the set (unanswered = 0), /ans = mean over the topics answered")
    return grouped_table(ranked, header, rows, title)


_SHORT = {"strict_vital": "SV", "vital": "V", "strict_all": "SA", "all": "A"}


def json_run(r: RunScore, measures: Sequence[str] = ()) -> str:
    """One run's object as it stands in the `runs` list of the JSON document (`json_document`)."""
    return _nested(json.dumps(r.as_dict(measures), ensure_ascii=False, indent=2), 2)


def json_document(runs: Iterable[str], settings: dict | None = None) -> Iterator[str]:
    """`{"runs": [...], "settings": {...}, "versions": {...}}` in pieces, from the runs' `json_run`
    texts taken one at a time, laid out exactly as `json.dumps(document, ensure_ascii=False, indent=2)`
    lays out the whole."""
    first = True
    for text in runs:
        yield ('{\n  "runs": [\n' if first else ",\n") + text
        first = False
    tail = '{\n  "runs": []' if first else "\n  ]"
    for key, value in {**({"settings": settings} if settings else {}), "versions": report_versions(settings)}.items():
        tail += f',\n  "{key}": ' + _nested(json.dumps(value, ensure_ascii=False, indent=2), 1).lstrip()
    yield tail + "\n}"


def _nested(text: str, depth: int) -> str:
    """JSON text indented as a value `depth` levels down (JSON strings hold no raw line breaks)."""
    pad = "  " * depth
    return pad + text.replace("\n", "\n" + pad)
