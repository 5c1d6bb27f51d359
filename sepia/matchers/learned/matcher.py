"""The adapter between the learned model's pair probabilities and SEPIA's matcher interface: the
one place that knows both (`scores(run_id, topic_id, nuggets, answers)`, one value per nugget).

A nugget's match value is its best answer's: with a threshold, 1 when that answer's probability
reaches it, else 0; without one (expected matches), the probability itself.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

from sepia.formats.model import Answer, GoldNugget

NAME = "learned"


@dataclass
class LearnedMatcher:
    """Match values from precomputed probabilities per (run, topic, answer rank, nugget)."""
    probabilities: Mapping[tuple[str, str, int, str], float]
    threshold: float | None = None  # None: expected matches
    name: str = NAME
    trained_on: frozenset[str] = frozenset()  # runs whose judgments the model learnt from
    warnings: tuple[str, ...] = ()  # what the evaluator should say of these scores

    def value(self, p: float) -> float:
        if self.threshold is None:
            return p
        return 1.0 if p >= self.threshold else 0.0

    def scores(self, run_id: str, topic_id: str, nuggets: Sequence[GoldNugget],
               answers: Sequence[Answer]) -> list[float]:
        # a pair without a probability (its run had no one to learn from) counts as no match
        return [self.value(max((self.probabilities.get((run_id, topic_id, a.rank, nugget.nugget_id), 0.0)
                                for a in answers), default=0.0)) for nugget in nuggets]
