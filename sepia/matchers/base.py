"""What a matcher is: the interface every matcher meets, the one settings object it is made from, and
the descriptor it registers with (docs/matchers.md says how to add one)."""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Callable, Literal, Mapping, Protocol, Sequence, get_args, runtime_checkable

from sepia.formats.model import Answer, CCLQARun, GoldNugget, GoldStandard, Judgment
from sepia.text.tokenize import Tokenizer

NumberRule = Literal["lenient", "strict"]  # --numbers: strict = a nugget's numbers must be in the response
NUMBER_RULES: tuple[NumberRule, ...] = get_args(NumberRule)


@runtime_checkable
class Matcher(Protocol):
    """Given one run's responses to one topic and the topic's gold nuggets, a value in [0, 1] per
    nugget, in the nuggets' order: 1 or 0 for a binary matcher, a degree for a graded one.

    A matcher may also be one of the kinds below, each found by `isinstance`: a `BatchMatcher`
    (faster over many topics), a `JudgedMatcher` (it reads judgments) or a `LearningMatcher`."""

    @property
    def name(self) -> str: ...

    def scores(self, run_id: str, topic_id: str, nuggets: Sequence[GoldNugget],
               answers: Sequence[Answer]) -> list[float]: ...


@runtime_checkable
class BatchMatcher(Matcher, Protocol):
    """`scores` for many topics of one run at once: one list of values per (nuggets, answers)."""

    def scores_many(self, run_id: str,
                    topics: Sequence[tuple[Sequence[GoldNugget], Sequence[Answer]]]) -> list[list[float]]: ...


@runtime_checkable
class JudgedMatcher(Matcher, Protocol):
    """A matcher that reads judgments (human, or an assessor's files): whether a run's topic was
    judged at all, what each judged value counts for in F, and the same matcher on other judgments
    (a run's own, as `--store` hands them with the run)."""

    def unjudged(self, run_id: str, topic_id: str) -> bool: ...

    def credit(self, values: Sequence[float]) -> list[float]: ...

    def with_judgments(self, judgments: Sequence[Judgment]) -> JudgedMatcher: ...


@runtime_checkable
class LearningMatcher(Matcher, Protocol):
    """A matcher that must see every run it will score first: `learn` gives the matcher that scores
    them (with a `warnings` list, if any) or raises ValueError with one line."""

    def learn(self, gold: GoldStandard, runs: Sequence[CCLQARun]) -> Matcher: ...


@dataclass(frozen=True, kw_only=True)
class MatcherOptions:
    """Every option any matcher takes; a matcher reads those its descriptor names and no other."""
    theta: float = 0.5                      # binarized: a match when the best softmatch is above it
    tokenizer: Tokenizer = field(default_factory=Tokenizer)
    as_set: bool = False                    # count tokens as a set instead of a bag
    partial: float = 0.5                    # human: what a partial support counts for in F
    numbers: NumberRule = "lenient"         # "strict": a nugget's numbers must be in the response
    judgments: Sequence[Judgment] | None = None  # human judgments (a learned matcher trains on others' runs)
    extra: Mapping[str, str] = field(default_factory=dict)  # a matcher's own options, --matcher-option K=V


@dataclass(frozen=True)
class MatcherKind:
    """A matcher's descriptor: what the CLI, reports, the web tool, the demo and the docs know of it.

    `options` names the MatcherOptions fields the matcher reads; `extra` the names (with a line of
    help each) of its own options, given as `--matcher-option NAME=VALUE`. `needs_judgments`: it
    cannot be made without human judgments; `learns_from_other_runs`: it is given every run's judgments
    at once (a learned matcher leaves out the run it scores), not each run's own with the run, as
    `--store` hands the human matcher its judgments. `make` builds the matcher from a MatcherOptions.
    `opt_in`: `sepia metaeval adversarial` compares it only when given one of its own options (a server
    to ask). `versions(extra)`: what decides its scores beyond its options (a model's identity, a
    prompt's digest), kept in the settings and the report's `versions`; ValueError when it cannot tell."""
    name: str
    label: str
    automatic: bool
    make: Callable[[MatcherOptions], Matcher]
    options: tuple[str, ...] = ()
    extra: Mapping[str, str] = field(default_factory=dict)
    needs_judgments: bool = False
    learns_from_other_runs: bool = False
    summary: str = ""
    opt_in: bool = False
    versions: Callable[[Mapping[str, str]], dict[str, str]] | None = None

    @property
    def title(self) -> str:
        """How tables and pages name its scores: `human`, `automatic (BINARIZED)`."""
        return f"automatic ({self.label})" if self.automatic else self.label

    def __post_init__(self):
        unknown = set(self.options) - ({f.name for f in fields(MatcherOptions)} - {"extra"})
        if unknown:
            raise ValueError(f"matcher {self.name!r} names unknown options: {', '.join(sorted(unknown))}")
