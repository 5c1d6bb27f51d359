"""Who decides that a system response contains a nugget (spec section 3).

Each matcher gives, for one topic of one run, a score per gold nugget: 1 or 0 for the binary
matchers (human, exact, binarized), the best softmatch score in [0, 1] for softmatch.
"""
from __future__ import annotations

from collections import Counter, defaultdict
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
    _nugget_counts: dict[str, Counter] = field(default_factory=dict, repr=False)

    def _counts(self, text: str) -> Counter:
        counts = self.tokenizer.counts(text)
        return Counter(set(counts)) if self.as_set else counts

    def _counter_scores(self, nuggets: Sequence[GoldNugget], answers: Sequence[Answer]) -> list[float]:
        """The plain way, for the texts the batched way cannot join."""
        responses = [self._counts(a.text) for a in answers]
        best = []
        for nugget in nuggets:
            counts = self._nugget_counts.get(nugget.text)
            if counts is None:  # tokenised once, not per run
                counts = self._nugget_counts[nugget.text] = self._counts(nugget.text)
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
    _nuggets: dict[str, str] = field(default_factory=dict, repr=False)  # normalised once, not per run

    def scores(self, run_id, topic_id, nuggets, answers) -> list[float]:
        texts = [normalize(a.text) for a in answers]
        found = []
        for n in nuggets:
            if n.text not in self._nuggets:
                self._nuggets[n.text] = normalize(n.text)
            found.append(1.0 if any(self._nuggets[n.text] in t for t in texts) else 0.0)
        return found


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

    def __post_init__(self):
        # Each (run, topic)'s decisions (rank, nugget, value), grouped once: a topic then costs what
        # its own judgments cost.
        self.by_topic: dict[tuple[str, str], list[tuple[int, str, float]]] = defaultdict(list)
        for (run_id, topic_id, rank, nugget_id), value in judged_matches(self.judgments).items():
            self.by_topic[run_id, topic_id].append((rank, nugget_id, value))

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


# ---------------------------------------------------------------- the registry

ENTRY_POINT_GROUP = "sepia.matchers"


def _binarized(*, theta=0.5, tokenizer=DEFAULT_TOKENIZER, as_set=False, **_):
    return BinarizedMatcher(tokenizer, as_set, theta=theta)


def _softmatch(*, tokenizer=DEFAULT_TOKENIZER, as_set=False, **_):
    return SoftMatcher(tokenizer, as_set)


def _exact(**_):
    return ExactMatcher()


def _human(*, judgments=None, partial=PARTIAL, **_):
    if judgments is None:
        raise ValueError("the human matcher needs judgments (--judgments FILE.tsv)")
    return HumanMatcher(judgments, partial=partial)


def _learned(**_):
    # Made from a model or judgments and the runs together (sepia.commands.matcher.learned_matcher).
    raise ValueError("the learned matcher scores files: sepia evaluate --matcher learned --model MODEL "
                     "(or --judgments FILE.tsv)")


BUILTIN = {"binarized": _binarized, "softmatch": _softmatch, "exact": _exact, "human": _human, "learned": _learned}


def registry() -> dict:
    """Every matcher by name: SEPIA's own, then those other packages declare as entry points of the
    group `sepia.matchers` (`name = "package.module:factory"`). A factory is called with keyword
    options (theta, judgments, tokenizer, as_set, partial; it should accept and ignore others with
    **kwargs) and returns an object with a `name` and `scores(run_id, topic_id, nuggets, answers)`
    giving one value in [0, 1] per nugget (optionally `scores_many(run_id, [(nuggets, answers)])`).
    A plug-in cannot take the name of a built-in matcher."""
    from importlib.metadata import entry_points

    found = dict(BUILTIN)
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name not in BUILTIN:
            found.setdefault(entry.name, entry)
    return found


def matcher_names() -> list[str]:
    return list(registry())


def make_matcher(name: str, *, theta: float = 0.5, judgments: Sequence[Judgment] | None = None,
                 tokenizer: Tokenizer = DEFAULT_TOKENIZER, as_set: bool = False, partial: float = PARTIAL) -> Matcher:
    """The matcher of that name from the registry (built-in or plug-in), made with these options."""
    factories = BUILTIN if name in BUILTIN else registry()  # plug-ins cannot take a built-in's name
    if name not in factories:
        raise ValueError(f"unknown matcher {name!r}; choose one of {', '.join(factories)}")
    factory = factories[name]
    if not callable(factory):
        factory = factory.load()  # an entry point: import the plug-in only when it is used
    matcher = factory(theta=theta, judgments=judgments, tokenizer=tokenizer, as_set=as_set, partial=partial)
    if not getattr(matcher, "name", None):
        matcher.name = name
    return matcher
