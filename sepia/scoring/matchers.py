"""Who decides that a system response contains a nugget (spec section 3).

Each matcher gives, for one topic of one run, a score per gold nugget: 1 or 0 for the binary
matchers (human, exact, binarized), the best softmatch score in [0, 1] for softmatch.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, Sequence

from sepia.formats.model import Answer, GoldNugget, Judgment
from sepia.scoring.tokenize import Tokenizer, normalize

if TYPE_CHECKING:
    from sepia.scoring.bagmatch import BagMatcher

MATCHERS = ("binarized", "softmatch", "exact", "human")
DEFAULT_TOKENIZER = Tokenizer()


class Matcher(Protocol):
    name: str

    def scores(self, run_id: str, topic_id: str, nuggets: Sequence[GoldNugget],
               answers: Sequence[Answer]) -> list[float]: ...


def overlap(nugget: Counter, response: Counter) -> int:
    """|tok(n) ∩ tok(x)| counted as a bag: a token twice in the nugget needs two in the response."""
    return sum(min(count, response[token]) for token, count in nugget.items() if token in response)


def softmatch(nugget_text: str, response_text: str, tokenizer: Tokenizer = DEFAULT_TOKENIZER,
              as_set: bool = False) -> float:
    """The spec's s(n, x) = |tok(n) ∩ tok(x)| / |tok(n)| (0 for a nugget without tokens)."""
    n, x = tokenizer.counts(nugget_text), tokenizer.counts(response_text)
    if as_set:
        n, x = Counter(set(n)), Counter(set(x))
    total = sum(n.values())
    return overlap(n, x) / total if total else 0.0


@dataclass
class SoftMatcher:
    """POURPRE softmatch: each nugget scores its best response's s(n, x)."""
    tokenizer: Tokenizer = DEFAULT_TOKENIZER
    as_set: bool = False
    name: str = "softmatch"
    _bags: BagMatcher | None = field(default=None, repr=False)

    def _counts(self, text: str) -> Counter:
        counts = self.tokenizer.counts(text)
        return Counter(set(counts)) if self.as_set else counts

    def _counter_scores(self, nuggets: Sequence[GoldNugget], answers: Sequence[Answer]) -> list[float]:
        """The plain way, for the texts the batched way cannot join."""
        responses = [self._counts(a.text) for a in answers]
        best = []
        for nugget in nuggets:
            counts = self._counts(nugget.text)
            total = sum(counts.values())
            best.append(max((overlap(counts, r) for r in responses), default=0) / total if total else 0.0)
        return best

    def best_scores_many(self, topics: Sequence[tuple[Sequence[GoldNugget], Sequence[Answer]]]) -> list[list[float]]:
        """`best_scores` of many (nuggets, answers) pairs at once (one run's topics): much faster."""
        if self._bags is None:
            from sepia.scoring.bagmatch import BagMatcher  # numpy, only for the matchers that need it

            self._bags = BagMatcher(self.tokenizer, self.as_set)
        batched = self._bags.best_scores([([n.text for n in nuggets], [a.text for a in answers])
                                          for nuggets, answers in topics])
        return batched if batched is not None else [self._counter_scores(n, a) for n, a in topics]

    def best_scores(self, nuggets: Sequence[GoldNugget], answers: Sequence[Answer]) -> list[float]:
        return self.best_scores_many([(nuggets, answers)])[0]

    def scores(self, run_id, topic_id, nuggets, answers) -> list[float]:
        return self.best_scores(nuggets, answers)

    def scores_many(self, run_id, topics) -> list[list[float]]:
        return self.best_scores_many(topics)


@dataclass
class BinarizedMatcher(SoftMatcher):
    """ACLIA's official automatic matcher: a nugget matches when its best softmatch exceeds theta."""
    theta: float = 0.5
    name: str = "binarized"

    def scores(self, run_id, topic_id, nuggets, answers) -> list[float]:
        return self.scores_many(run_id, [(nuggets, answers)])[0]

    def scores_many(self, run_id, topics) -> list[list[float]]:
        return [[1.0 if s > self.theta else 0.0 for s in best] for best in self.best_scores_many(topics)]


@dataclass
class ExactMatcher:
    """The normalised nugget text occurs in the normalised text of some response."""
    name: str = "exact"

    def scores(self, run_id, topic_id, nuggets, answers) -> list[float]:
        texts = [normalize(a.text) for a in answers]
        return [1.0 if any(normalize(n.text) in t for t in texts) else 0.0 for n in nuggets]


def judged_matches(judgments: Sequence[Judgment]) -> dict[tuple[str, str, int, str], bool]:
    """The human decision for each (run, topic, answer rank, nugget): a match when at least half of
    the assessors who judged that pair said so (one assessor's word stands alone)."""
    votes: dict[tuple[str, str, int, str], list[bool]] = {}
    for j in judgments:
        votes.setdefault((j.run_id, j.topic_id, j.answer_rank, j.nugget_id), []).append(j.match)
    return {key: 2 * sum(v) >= len(v) for key, v in votes.items()}


@dataclass
class HumanMatcher:
    """Assessor judgments: a nugget matches when some response of the topic was judged to contain it."""
    judgments: Sequence[Judgment]
    name: str = "human"

    def __post_init__(self):
        self.decisions = judged_matches(self.judgments)
        self.judged_topics = {(j.run_id, j.topic_id) for j in self.judgments}

    def scores(self, run_id, topic_id, nuggets, answers) -> list[float]:
        return [1.0 if any(self.decisions.get((run_id, topic_id, a.rank, n.nugget_id), False) for a in answers)
                else 0.0 for n in nuggets]

    def unjudged(self, run_id: str, topic_id: str) -> bool:
        return (run_id, topic_id) not in self.judged_topics


def make_matcher(name: str, *, theta: float = 0.5, judgments: Sequence[Judgment] | None = None,
                 tokenizer: Tokenizer = DEFAULT_TOKENIZER, as_set: bool = False) -> Matcher:
    if name == "binarized":
        return BinarizedMatcher(tokenizer, as_set, theta=theta)
    if name == "softmatch":
        return SoftMatcher(tokenizer, as_set)
    if name == "exact":
        return ExactMatcher()
    if name == "human":
        if judgments is None:
            raise ValueError("the human matcher needs judgments (--judgments FILE.tsv)")
        return HumanMatcher(judgments)
    raise ValueError(f"unknown matcher {name!r}; choose one of {', '.join(MATCHERS)}")
