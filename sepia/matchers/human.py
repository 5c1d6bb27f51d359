"""human (docs/spec.md, Matching): the assessors' judgments; a nugget's value is its best judgment over the
topic's responses (1, 0.5 or 0), a partial support counting `--partial` in F."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from sepia.formats.model import Judgment
from sepia.matchers.base import MatcherKind, MatcherOptions
from sepia.matchers.decisions import PARTIAL, decide


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


def _make(options: MatcherOptions):
    assert options.judgments is not None  # KIND.needs_judgments: the registry has checked
    return HumanMatcher(options.judgments, partial=options.partial)


KIND = MatcherKind(name="human", label="human", automatic=False, make=_make, options=("partial", "judgments"),
                   needs_judgments=True, summary="assessors' judgments")
