"""What a matcher is: the interface every matcher meets, the one settings object it is made from, and
the descriptor it registers with (docs/matchers.md says how to add one)."""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Callable, Mapping, Protocol, Sequence, runtime_checkable

from sepia.formats.model import Answer, GoldNugget, Judgment
from sepia.scoring.tokenize import Tokenizer

NUMBER_RULES = ("lenient", "strict")  # --numbers: strict = a nugget's numbers must be in the response


@runtime_checkable
class Matcher(Protocol):
    """Given one run's responses to one topic and the topic's gold nuggets, a value in [0, 1] per
    nugget, in the nuggets' order: 1 or 0 for a binary matcher, a degree for a graded one.

    Optional, found by `hasattr`: `scores_many(run_id, [(nuggets, answers), ...])`, the same for many
    topics of one run at once (faster); and, for a matcher that reads judgments (human, or assessors'
    files), `unjudged(run_id, topic_id)`, `credit(values)` (what each value counts for in F) and
    `with_judgments(judgments)` (the same matcher on a run's own judgments)."""
    name: str

    def scores(self, run_id: str, topic_id: str, nuggets: Sequence[GoldNugget],
               answers: Sequence[Answer]) -> list[float]: ...


@dataclass(frozen=True)
class MatcherOptions:
    """Every option any matcher takes; a matcher reads those its descriptor names and no other."""
    theta: float = 0.5                      # binarized: a match when the best softmatch is above it
    tokenizer: Tokenizer = field(default_factory=Tokenizer)
    as_set: bool = False                    # count tokens as a set instead of a bag
    partial: float = 0.5                    # human: what a partial support counts for in F
    numbers: str = "lenient"                # "strict": a nugget's numbers must be in the response
    judgments: Sequence[Judgment] | None = None  # human judgments (a learned matcher trains on others' runs)
    extra: Mapping[str, str] = field(default_factory=dict)  # a matcher's own options, --matcher-option K=V


@dataclass(frozen=True)
class MatcherKind:
    """A matcher's descriptor: what the CLI, reports, the web tool, the demo and the docs know of it.

    `options` names the MatcherOptions fields the matcher reads; `extra` the names (with a line of
    help each) of its own options, given as `--matcher-option NAME=VALUE`. `needs_judgments`: it
    cannot be made without human judgments; `learns_from_other_runs`: it is given every run's judgments
    at once (a learned matcher leaves out the run it scores), not each run's own with the run, as
    `--store` hands the human matcher its judgments. `make` builds the matcher from a MatcherOptions."""
    name: str
    label: str
    automatic: bool
    make: Callable[[MatcherOptions], Matcher]
    options: tuple[str, ...] = ()
    extra: Mapping[str, str] = field(default_factory=dict)
    needs_judgments: bool = False
    learns_from_other_runs: bool = False
    summary: str = ""

    @property
    def title(self) -> str:
        """How tables and pages name its scores: `human`, `automatic (BINARIZED)`."""
        return f"automatic ({self.label})" if self.automatic else self.label

    def __post_init__(self):
        unknown = set(self.options) - ({f.name for f in fields(MatcherOptions)} - {"extra"})
        if unknown:
            raise ValueError(f"matcher {self.name!r} names unknown options: {', '.join(sorted(unknown))}")
