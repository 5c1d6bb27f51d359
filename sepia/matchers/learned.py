"""learned (issue 26): a model of the campaign's own human judgments decides whether a response holds
a nugget (sepia/scoring/learned/). It learns from other runs: the evaluator hands it every run it
will score (`learn(gold, runs)`) before scoring any, and each run is scored by a model that never
saw that run's (`holdout=team`: its team's) judgments; or it applies a model saved by `sepia matcher
train` (`model=MODEL`) to runs nobody judged."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from sepia.formats.model import CCLQARun, GoldStandard, Judgment
from sepia.matchers.base import MatcherKind, MatcherOptions

HOLDOUTS = ("run", "team")


@dataclass(frozen=True)
class Learner:
    """The learned matcher before it has seen the runs: what it learns from and how it decides."""
    judgments: Sequence[Judgment] | None = None
    model_path: str | None = None
    threshold: float | None = None  # None: expected matches (the probability itself)
    holdout: str = "run"
    name: str = "learned"

    def learn(self, gold: GoldStandard, runs: Sequence[CCLQARun]):
        """The matcher for these runs (`sepia.scoring.learned.matcher.LearnedMatcher`, with its
        `warnings`); ValueError (one line) for an unusable model or judgments it cannot learn from."""
        from sepia.scoring import learned

        if self.model_path:
            return learned.from_model(self.model_path, gold, runs, self.threshold)
        assert self.judgments is not None  # without a model, _make asks for judgments
        return learned.cross_run(gold, runs, self.judgments, self.holdout, self.threshold)

    def scores(self, run_id, topic_id, nuggets, answers) -> list[float]:
        raise ValueError("the learned matcher must see every run before it scores one (Evaluator.learn)")


def _make(options: MatcherOptions) -> Learner:
    extra = options.extra
    if not extra.get("model") and options.judgments is None:
        raise ValueError("the learned matcher needs a model (--matcher-option model=MODEL, from sepia matcher "
                         "train) or the judgments to learn from (--judgments FILE.tsv)")
    holdout = extra.get("holdout", "run")
    if holdout not in HOLDOUTS:
        raise ValueError(f"the learned matcher's holdout is run or team, not {holdout!r}")
    given = extra.get("threshold")
    try:
        threshold = None if given in (None, "", "expected") else float(given)
    except ValueError:
        raise ValueError(f"the learned matcher's threshold is a probability, not {given!r}") from None
    if threshold is not None and not 0 <= threshold <= 1:
        raise ValueError(f"the learned matcher's threshold is a probability in [0, 1], not {threshold:g}")
    return Learner(options.judgments, extra.get("model") or None, threshold, holdout)


KIND = MatcherKind(
    name="learned", label="learned", automatic=True, make=_make, options=("judgments",),
    extra={"model": "a model saved by `sepia matcher train` (default: learn from --judgments, each run "
                    "scored by a model of the other runs' judgments)",
           "threshold": "a nugget matches when its probability reaches this (default: expected matches)",
           "holdout": "run (default) or team: whose judgments are left out when a run is scored"},
    learns_from_other_runs=True,
    summary="a model of the campaign's human judgments (model=MODEL, or --judgments with each run's own left out)")
