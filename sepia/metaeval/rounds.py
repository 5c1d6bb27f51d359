"""A run's human F score between two rounds of judging (before and after adjudication, or a pool
judged again), split into the parts due to each topic and to each assessor's changed judgments.

A run's score is the mean of its topics' F, so a topic's part is its own change over the number of
topics. Within a topic, the assessors whose judgments of that run changed share the topic's change
by their Shapley values: each assessor's change is applied in every order with every subset of the
others', and the assessor gets the average difference it makes. The parts add up to the change
exactly, whatever the interactions (two assessors who both had to change for a nugget to flip
share its credit). The organiser's decision counts as the assessor `(adjudicated)`; in each round an
adjudicated judgment is the only one of its item that counts, as when scoring from the store.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from itertools import combinations
from math import factorial
from typing import Sequence

from sepia.formats.model import CCLQARun, GoldStandard, Judgment
from sepia.scoring.adjudication import official
from sepia.scoring.evaluate import Evaluator, Settings


@dataclass(frozen=True)
class RunChange:
    run_id: str
    before: float
    after: float
    by_topic: dict[str, float]     # topic -> its part of the change (non-zero parts only)
    by_assessor: dict[str, float]  # assessor -> their part of the change (non-zero parts only)

    @property
    def change(self) -> float:
        return self.after - self.before

    def as_dict(self) -> dict:
        return {"run_id": self.run_id, "before": self.before, "after": self.after, "change": self.change,
                "by_topic": self.by_topic, "by_assessor": self.by_assessor}


def _item(j: Judgment) -> tuple:
    return (j.run_id, j.topic_id, j.answer_rank, j.nugget_id)


def _by_assessor(judgments: Sequence[Judgment], run_id: str, topic_id: str) -> dict[str, frozenset]:
    found: dict[str, set] = defaultdict(set)
    for j in judgments:
        if j.run_id == run_id and j.topic_id == topic_id:
            found[j.assessor].add((j.answer_rank, j.nugget_id, float(j.match)))
    return {a: frozenset(rows) for a, rows in found.items()}


def _shapley(players: list[str], value) -> dict[str, float]:
    """Exact Shapley values of a game over few players; `value(frozenset)` is the worth of a coalition."""
    n = len(players)
    worth = {frozenset(c): value(frozenset(c)) for size in range(n + 1) for c in combinations(players, size)}
    parts = {}
    for p in players:
        others = [q for q in players if q != p]
        parts[p] = sum(factorial(len(c)) * factorial(n - len(c) - 1) / factorial(n)
                       * (worth[frozenset(c) | {p}] - worth[frozenset(c)])
                       for size in range(n) for c in combinations(others, size))
    return parts


def score_change(gold: GoldStandard, runs: Sequence[CCLQARun], before: Sequence[Judgment],
                 after: Sequence[Judgment], settings: Settings | None = None) -> list[RunChange]:
    """Each run's human F before and after, and the change split by topic and by assessor."""
    settings = replace(settings or Settings(), matcher="human")
    evaluator = Evaluator(gold, settings, [])
    changes = []
    for run in runs:
        first = evaluator.evaluate(run, official(before, _item))
        second = evaluator.evaluate(run, official(after, _item))
        scored = len(first.topics) or 1
        by_topic: dict[str, float] = {}
        by_assessor: dict[str, float] = defaultdict(float)
        for old, new in zip(first.topics, second.topics):
            if old.f == new.f and old.recall == new.recall:
                continue
            by_topic[old.topic_id] = (new.f - old.f) / scored
            alone = replace(run, topics=[t for t in run.topics if t.topic_id == old.topic_id])
            was = _by_assessor(before, run.run_id, old.topic_id)
            now = _by_assessor(after, run.run_id, old.topic_id)
            changed = sorted(a for a in set(was) | set(now) if was.get(a) != now.get(a))

            def topic_f(coalition: frozenset, alone=alone, was=was, now=now, topic_id=old.topic_id) -> float:
                mixed = [Judgment(topic_id, alone.run_id, rank, nugget, match, a) for a in set(was) | set(now)
                         for rank, nugget, match in (now if a in coalition else was).get(a, ())]
                scores = evaluator.evaluate(alone, official(mixed, _item)).topics
                return next(t.f for t in scores if t.topic_id == topic_id)

            for assessor, part in _shapley(changed, topic_f).items():
                by_assessor[assessor] += part / scored
        changes.append(RunChange(run.run_id, first.score, second.score, by_topic,
                                 {a: v for a, v in sorted(by_assessor.items()) if v}))
    return changes
