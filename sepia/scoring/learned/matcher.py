"""The adapter between the learned model's pair probabilities and SEPIA's matcher interface: the
one place that knows both (`scores(run_id, topic_id, nuggets, answers)`, one value per nugget).

A nugget's match value is its best answer's: with a threshold, 1 when that answer's probability
reaches it, else 0; without one (expected matches), the probability itself.
"""
from __future__ import annotations

from dataclasses import dataclass, field
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
    missing: set = field(default_factory=set, repr=False)  # (run, topic) pairs no probability covers

    def value(self, p: float) -> float:
        if self.threshold is None:
            return p
        return 1.0 if p >= self.threshold else 0.0

    def scores(self, run_id: str, topic_id: str, nuggets: Sequence[GoldNugget],
               answers: Sequence[Answer]) -> list[float]:
        values = []
        for nugget in nuggets:
            found = [self.probabilities.get((run_id, topic_id, a.rank, nugget.nugget_id)) for a in answers]
            known = [p for p in found if p is not None]
            if len(known) < len(found):
                self.missing.add((run_id, topic_id))
            values.append(self.value(max(known, default=0.0)))
        return values
