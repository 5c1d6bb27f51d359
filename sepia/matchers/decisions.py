"""Human judgments in the compact form human scoring needs: each (run, topic)'s decisions (answer
rank, nugget, the upper median of its assessors' judgments) and the (topic, nugget) pairs judged.
`read_decisions` reads a judgments TSV a line at a time straight into that form, with the checks and
messages of `sepia.formats.judgments.read_judgments` but no Judgment object per line: the memory is
the decisions', not the file's."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Sequence

from sepia.formats.errors import FormatError, Problem, capped
from sepia.formats.judgments import duplicate, judgment_rows, lines_after_header
from sepia.formats.model import Judgment

PARTIAL = 0.5  # the judgment value of partial support

Decided = list[tuple[int, str, float]]  # (answer rank, nugget ID, decision) of one (run, topic)


def upper_median(values: Sequence[float]) -> float:
    """The highest value that at least half of `values` reach or exceed: with 1/0 judgments, a
    match when at least half of the assessors said so (one assessor's word stands alone)."""
    ordered = sorted(values, reverse=True)
    return ordered[(len(ordered) + 1) // 2 - 1] if ordered else 0.0


def judged_matches(judgments: Sequence[Judgment]) -> dict[tuple[str, str, int, str], float]:
    """The human decision for each (run, topic, answer rank, nugget): 1, 0.5 (partial support) or 0,
    the upper median of its assessors' judgments (1 when at least half said 1; 0.5 when at least half
    said 0.5 or 1 but fewer than half said 1)."""
    votes: dict[tuple[str, str, int, str], list[float]] = {}
    for j in judgments:
        key = (j.run_id, j.topic_id, j.answer_rank, j.nugget_id)
        found = votes.get(key)
        if found is None:
            votes[key] = [float(j.match)]
        else:
            found.append(float(j.match))
    return {key: v[0] if len(v) == 1 else upper_median(v) for key, v in votes.items()}


@dataclass
class Decisions:
    by_topic: dict[tuple[str, str], Decided]  # (run ID, topic ID) -> its decisions
    nugget_pairs: list[tuple[str, str]]  # (topic ID, nugget ID) the judgments name, first seen first
    count: int  # judgments read

    def __len__(self) -> int:
        return self.count


def decide(judgments: Sequence[Judgment] | Decisions) -> Decisions:
    """The decisions of judgments given one by one (the store's, a test's); Decisions as they are."""
    if isinstance(judgments, Decisions):
        return judgments
    by_topic: dict[tuple[str, str], Decided] = defaultdict(list)
    for (run_id, topic_id, rank, nugget_id), value in judged_matches(judgments).items():
        by_topic[run_id, topic_id].append((rank, nugget_id, value))
    return Decisions(by_topic, nugget_pairs(judgments), len(judgments))


def nugget_pairs(judgments: Iterable[Judgment] | Decisions) -> list[tuple[str, str]]:
    if isinstance(judgments, Decisions):
        return judgments.nugget_pairs
    return list(dict.fromkeys((j.topic_id, j.nugget_id) for j in judgments))


VALUES = (0.0, 0.5, 1.0)  # a judgment is kept as line * 3 + its index here: one int, for the duplicate message


def read_decisions(path: str | Path) -> Decisions:
    """Read a judgments TSV; on any problem raise FormatError with all of them, as read_judgments does."""
    name = str(path)
    lines = lines_after_header(path, name)
    problems: list[Problem] = []
    votes: dict[tuple[str, str], dict[tuple[int, str, str], int]] = defaultdict(dict)
    judged: dict[str, set[str]] = defaultdict(set)
    pairs: list[tuple[str, str]] = []
    count = 0
    for number, (topic_id, run_id, rank, nugget_id, match, assessor) in judgment_rows(lines, name, problems):
        group = votes[run_id, topic_id]
        key = (rank, nugget_id, assessor)
        earlier = group.get(key)
        if earlier is not None:
            problems.append(duplicate(name, number, earlier // 3))
            continue
        group[key] = number * 3 + VALUES.index(match)
        count += 1
        if nugget_id not in judged[topic_id]:
            judged[topic_id].add(nugget_id)
            pairs.append((topic_id, nugget_id))
    if problems:
        raise FormatError(capped(problems))
    return Decisions({key: _decided(votes.pop(key)) for key in list(votes)}, pairs, count)


def _decided(group: dict[tuple[int, str, str], int]) -> Decided:
    """One (run, topic)'s decisions: each (rank, nugget)'s upper median over its assessors."""
    values: dict[tuple[int, str], list[float]] = defaultdict(list)
    for (rank, nugget_id, _), code in group.items():
        values[rank, nugget_id].append(VALUES[code % 3])
    return [(rank, nugget_id, v[0] if len(v) == 1 else upper_median(v)) for (rank, nugget_id), v in values.items()]
