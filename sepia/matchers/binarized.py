"""BINARIZED (ACLIA's official automatic matcher, docs/spec.md, Matching): a nugget matches when its best
softmatch score is strictly above theta."""
from __future__ import annotations

from dataclasses import dataclass

from sepia.matchers.base import MatcherKind
from sepia.matchers.softmatch import SoftMatcher


@dataclass
class BinarizedMatcher(SoftMatcher):
    theta: float = 0.5
    name: str = "binarized"

    def scores(self, run_id, topic_id, nuggets, answers) -> list[float]:
        return self.scores_many(run_id, [(nuggets, answers)])[0]

    def scores_many(self, run_id, topics) -> list[list[float]]:
        return [[1.0 if s > self.theta else 0.0 for s in best] for best in self.best_scores_many(topics)]


KIND = MatcherKind(
    name="binarized", label="BINARIZED", automatic=True,
    make=lambda o: BinarizedMatcher(o.tokenizer, o.as_set, numbers=o.numbers, theta=o.theta),
    options=("theta", "tokenizer", "as_set", "numbers"),
    summary="ACLIA's official automatic matcher: a match when the best softmatch is above theta (0.5 by default)")
