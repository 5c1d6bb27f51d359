"""softmatch (POURPRE, docs/spec.md, Matching): each nugget scores its best response's s(n, x), the share of
the nugget's tokens the response has (a bag: a token twice in the nugget needs two)."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Sequence

from sepia.formats.model import Answer, GoldNugget
from sepia.matchers.base import MatcherKind, NumberRule
from sepia.text.numbers import Claim, claimed_numbers, numbers_in
from sepia.text.tokenize import Tokenizer

if TYPE_CHECKING:
    from sepia.matchers.bagmatch import BagMatcher

DEFAULT_TOKENIZER = Tokenizer()


def overlap(nugget: Counter, response: Counter) -> int:
    """|tok(n) ∩ tok(x)| counted as a bag: a token twice in the nugget needs two in the response."""
    return sum(min(count, response[token]) for token, count in nugget.items() if token in response)


def softmatch(nugget_text: str, response_text: str, tokenizer: Tokenizer = DEFAULT_TOKENIZER,
              as_set: bool = False) -> float:
    """docs/spec.md's s(n, x) = |tok(n) ∩ tok(x)| / |tok(n)| (0 for a nugget without tokens)."""
    n, x = tokenizer.counts(nugget_text), tokenizer.counts(response_text)
    if as_set:
        n, x = Counter(set(n)), Counter(set(x))
    total = sum(n.values())
    return overlap(n, x) / total if total else 0.0


@dataclass
class SoftMatcher:
    """POURPRE softmatch: each nugget scores its best response's s(n, x). With numbers "strict", only
    the responses that state the numbers the nugget claims (sepia.text.numbers.claimed_numbers)
    count for it."""
    tokenizer: Tokenizer = DEFAULT_TOKENIZER
    as_set: bool = False
    name: str = "softmatch"
    _bags: BagMatcher | None = field(default=None, repr=False)
    _nugget_counts: dict[str, Counter] = field(default_factory=dict, repr=False)
    numbers: NumberRule = "lenient"
    _nugget_numbers: dict[str, Claim] = field(default_factory=dict, repr=False)

    def _counts(self, text: str) -> Counter:
        counts = self.tokenizer.counts(text)
        return Counter(set(counts)) if self.as_set else counts

    def _nugget(self, text: str) -> Counter:
        counts = self._nugget_counts.get(text)
        if counts is None:  # tokenised once, not per run
            counts = self._nugget_counts[text] = self._counts(text)
        return counts

    def _best(self, nugget_text: str, responses: Sequence[Counter]) -> float:
        counts = self._nugget(nugget_text)
        total = sum(counts.values())
        return max((overlap(counts, r) for r in responses), default=0) / total if total else 0.0

    def _counter_scores(self, nuggets: Sequence[GoldNugget], answers: Sequence[Answer]) -> list[float]:
        """The plain way, for the texts the batched way cannot join."""
        responses = [self._counts(a.text) for a in answers]
        return [self._best(nugget.text, responses) for nugget in nuggets]

    def best_scores_many(self, topics: Sequence[tuple[Sequence[GoldNugget], Sequence[Answer]]]) -> list[list[float]]:
        """`best_scores` of many (nuggets, answers) pairs at once (one run's topics): much faster."""
        if self._bags is None:
            from sepia.matchers.bagmatch import BagMatcher  # numpy, only for the matchers that need it

            self._bags = BagMatcher(self.tokenizer, self.as_set)
        batched = self._bags.best_scores([([n.text for n in nuggets], [a.text for a in answers])
                                          for nuggets, answers in topics])
        best = batched if batched is not None else [self._counter_scores(n, a) for n, a in topics]
        if self.numbers == "strict":
            best = [self._numbers_kept(b, n, a) for b, (n, a) in zip(best, topics)]
        return best

    def _numbers_kept(self, best: list[float], nuggets: Sequence[GoldNugget], answers: Sequence[Answer]) -> list[float]:
        """The best scores again, over only the responses that state the numbers each nugget claims
        (`claimed_numbers`: not those inside names; of several decades, one)."""
        stated = None
        kept = list(best)
        for i, nugget in enumerate(nuggets):
            wanted = self._nugget_numbers.get(nugget.text)
            if wanted is None:
                wanted = self._nugget_numbers[nugget.text] = claimed_numbers(nugget.text)
            if not wanted or not best[i]:
                continue
            if stated is None:  # the responses' numbers, once a topic and only when some nugget has any
                stated = [numbers_in(a.text) for a in answers]
            eligible = [j for j, numbers in enumerate(stated) if wanted.held_by(numbers)]
            if len(eligible) < len(answers):
                kept[i] = self._best(nugget.text, [self._counts(answers[j].text) for j in eligible])
        return kept

    def best_scores(self, nuggets: Sequence[GoldNugget], answers: Sequence[Answer]) -> list[float]:
        return self.best_scores_many([(nuggets, answers)])[0]

    def scores(self, run_id, topic_id, nuggets, answers) -> list[float]:
        return self.best_scores(nuggets, answers)

    def scores_many(self, run_id, topics) -> list[list[float]]:
        return self.best_scores_many(topics)


KIND = MatcherKind(
    name="softmatch", label="softmatch (POURPRE)", automatic=True,
    make=lambda o: SoftMatcher(o.tokenizer, o.as_set, numbers=o.numbers),
    options=("tokenizer", "as_set", "numbers"),
    summary="each nugget scores the share of its tokens found in its best response")
