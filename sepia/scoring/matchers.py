"""Who decides that a system response contains a nugget (docs/spec.md, Matching).

Each matcher gives, for one topic of one run, a score per gold nugget: 1 or 0 for the binary
matchers (human, exact, binarized), the best softmatch score in [0, 1] for softmatch. The automatic
matchers and the registry live in sepia.matchers (one module each); the human judgments' matcher is
here, and the names other code has always imported from here still are.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from sepia import matchers as registered
from sepia.formats.model import Judgment
from sepia.matchers.base import Matcher, MatcherOptions
from sepia.matchers.binarized import BinarizedMatcher
from sepia.matchers.exact import ExactMatcher
from sepia.matchers.softmatch import DEFAULT_TOKENIZER, SoftMatcher, overlap, softmatch
from sepia.text.tokenize import Tokenizer

__all__ = ["BinarizedMatcher", "ExactMatcher", "HumanMatcher", "Matcher", "SoftMatcher", "judged_matches",
           "make_matcher", "matcher_names", "overlap", "softmatch"]


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


PARTIAL = 0.5  # the judgment value of partial support


@dataclass
class HumanMatcher:
    """Assessor judgments: a nugget's match value m(n) is its best judgment over the topic's
    responses (1, 0.5 or 0). `scores` gives those values as judged; `credit` says what a partial
    support counts for in F (`partial`, 0.5 by default, or 0 or 1)."""
    judgments: Sequence[Judgment]
    name: str = "human"
    partial: float = PARTIAL

    def __post_init__(self) -> None:
        # Each (run, topic)'s decisions (rank, nugget, value), grouped once (or read so, `judgments`
        # being Decisions): a topic then costs what its own judgments cost.
        from sepia.matchers.decisions import decide

        self.by_topic: dict[tuple[str, str], list[tuple[int, str, float]]] = decide(self.judgments).by_topic

    def scores(self, run_id, topic_id, nuggets, answers) -> list[float]:
        decided = self.by_topic.get((run_id, topic_id))
        if not decided:
            return [0.0] * len(nuggets)
        ranks = {a.rank for a in answers}  # a response beyond the scoring depth does not count
        best: dict[str, float] = {}
        for rank, nugget_id, value in decided:
            if rank in ranks and value > best.get(nugget_id, 0.0):
                best[nugget_id] = value
        return [best.get(n.nugget_id, 0.0) for n in nuggets]

    def credit(self, values: Sequence[float]) -> list[float]:
        """Judged values as F counts them: a partial support counts `partial`."""
        return [self.partial if v == PARTIAL else v for v in values]

    def with_judgments(self, judgments: Sequence[Judgment]) -> "HumanMatcher":
        return HumanMatcher(judgments, self.name, self.partial)

    def unjudged(self, run_id: str, topic_id: str) -> bool:
        return (run_id, topic_id) not in self.by_topic


# ---------------------------------------------------------------- the registry (sepia.matchers)

ENTRY_POINT_GROUP = registered.ENTRY_POINT_GROUP


def matcher_names() -> list[str]:
    return registered.names()


def make_matcher(name: str, *, theta: float = 0.5, judgments: Sequence[Judgment] | None = None,
                 tokenizer: Tokenizer = DEFAULT_TOKENIZER, as_set: bool = False, partial: float = PARTIAL,
                 numbers: str = "lenient") -> Matcher:
    """The matcher of that name from the registry (built-in or plug-in), made with these options."""
    return registered.make(name, MatcherOptions(theta, tokenizer, as_set, partial, numbers, judgments))
