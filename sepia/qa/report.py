"""Question Analysis scores as tables (one per language pair), TSV and JSON."""
from __future__ import annotations

import json
from typing import Sequence

from sepia import vocab
from sepia.qa.evaluate import QARunScore
from sepia.scoring.report import grouped_table
from sepia.text.columns import aligned
from sepia.versions import stamped

NONE = "-"  # no answer type given


def _value(value: float | None) -> str:
    return NONE if value is None else f"{value:.4f}"


def _short(answer_type: str | None) -> str:
    return NONE if answer_type is None else vocab.ANSWER_TYPE_ABBREVIATIONS.get(answer_type, answer_type)


def table(results: Sequence[QARunScore], title: str = "") -> str:
    """Per language pair, each run's accuracy, its accuracy by the gold answer types of that pair's
    topics, and key-term recall and precision."""
    text = f"{title}\n" if title else ""
    order = {pair: i for i, pair in enumerate(vocab.LANGUAGE_PAIRS)}  # ACLIA's order, then the rest
    for pair in sorted({r.language_pair for r in results}, key=lambda p: (order.get(p, len(order)), p)):
        runs = [r for r in results if r.language_pair == pair]
        types = [a for a in vocab.ANSWER_TYPES if any(a in r.by_type for r in runs)]
        header = ["RUN", "ACCURACY", *(_short(a) for a in types), "KT-RECALL", "KT-PRECISION"]
        rows = {r.run_id: [_value(r.accuracy), *(_value(r.by_type.get(a)) for a in types),
                           _value(r.key_term_recall), _value(r.key_term_precision)] for r in runs}
        text += grouped_table(runs, header, rows)
    return text


def confusion_tables(results: Sequence[QARunScore]) -> str:
    """Per run, topics by gold answer type (rows) and predicted answer type (columns)."""
    text = ""
    for r in results:
        matrix = r.confusion
        predicted = [a for a in (*vocab.ANSWER_TYPES, None) if any(a in row for row in matrix.values())]
        rows = [["GOLD \\ PREDICTED", *(_short(p) for p in predicted)]]
        rows += [[gold, *(str(row.get(p, 0)) for p in predicted)] for gold, row in matrix.items()]
        text += f"\n{r.run_id}: confusion of answer types ({len(r.typed)} topics; {NONE} = none given)\n"
        text += "\n".join(aligned(rows)) + "\n"
    return text


def tsv(results: Sequence[QARunScore]) -> str:
    """One row per run and topic, then an ALL row per run with its means."""
    lines = ["run_id\ttopic_id\tgold_type\tpredicted_type\tcorrect\tgold_key_terms\tfound\t"
             "run_key_terms\tkey_term_recall\tkey_term_precision"]
    for r in results:
        for t in r.topics:
            kt = t.key_terms
            terms = (f"{kt.gold}\t{kt.found}\t{kt.given}\t{kt.recall:.6f}\t{kt.precision:.6f}" if kt
                     else "\t\t\t\t")
            correct = int(t.correct) if t.gold_type else ""  # a topic without a gold type is not scored
            lines.append(f"{r.run_id}\t{t.topic_id}\t{t.gold_type or ''}\t{t.predicted_type or ''}\t"
                         f"{correct}\t{terms}")
        lines.append(f"{r.run_id}\tALL\t\t\t{_tsv_value(r.accuracy)}\t\t\t\t{_tsv_value(r.key_term_recall)}\t"
                     f"{_tsv_value(r.key_term_precision)}")
    return "\n".join(lines) + "\n"


def _tsv_value(value: float | None) -> str:
    return "" if value is None else f"{value:.6f}"


def as_json(results: Sequence[QARunScore], settings: dict) -> str:
    return json.dumps(stamped({"runs": [r.as_dict() for r in results], "settings": settings}), ensure_ascii=False,
                      indent=2)
