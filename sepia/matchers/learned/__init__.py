"""The learned matcher (`--matcher learned`, issue 26): a model of the campaign's own human judgments
decides whether a response holds a nugget, from evidence features (features.py: sentence-level
alignment, numbers and dates, entity-like words, character n-grams, softmatch) and judgment reuse
(reuse.py).

It learns from other runs: the evaluator hands it every run it will score (`learn(gold, runs)`) before
scoring any. It is honest by construction: with judgments (`cross_run`), each run is scored by a model
trained on the other runs' (`holdout=team`: other teams') judgments only; with a saved model
(`sepia matcher train`, `model=MODEL`, `trained.load`), applied to runs nobody judged, reuse never
compares a run with its own judged answers.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence, get_args

from sepia.formats.model import CCLQARun, GoldStandard, Judgment
from sepia.matchers.base import MatcherKind, MatcherOptions
from sepia.matchers.learned.matcher import LearnedMatcher


def cross_run(gold: GoldStandard, runs: Sequence[CCLQARun], judgments: Sequence[Judgment], holdout: Holdout = "run",
              threshold: float | None = None) -> LearnedMatcher:
    """The matcher that scores each run with a model that never saw its (`holdout` team's) judgments."""
    from sepia.matchers.learned.crossrun import cross_run_predictions
    from sepia.matchers.learned.trained import judged_pairs

    pairs = judged_pairs(gold, runs, judgments)
    probabilities = cross_run_predictions(pairs, holdout)
    learnt = {k: float(p) for k, p in zip(pairs.keys, probabilities) if p == p}
    covered = {key[0] for key in learnt}
    lonely = tuple(f"run {run.run_id}: no other {holdout}'s judgments to learn from (scored as no match)"
                   for run in runs if run.run_id not in covered and any(t.answers for t in run.topics))
    return LearnedMatcher(learnt, threshold, warnings=lonely)


def from_model(path, gold: GoldStandard, runs: Sequence[CCLQARun], threshold: float | None = None) -> LearnedMatcher:
    """The matcher of a saved model (`sepia matcher train`) for these runs."""
    from sepia.matchers.learned.trained import load

    model = load(path)
    seen = sorted(set(model.training["runs"]) & {r.run_id for r in runs})
    warnings = (f"the model learnt from the judgments of {', '.join(seen)}: their scores are not estimates "
                "for unjudged runs",) if seen else ()
    return LearnedMatcher(model.probabilities(gold, runs), threshold, trained_on=frozenset(model.training["runs"]),
                          warnings=(*warnings, *_other_languages(model.training, runs)))


def _other_languages(training: dict, runs: Sequence[CCLQARun]) -> tuple[str, ...]:
    """A loud warning for runs of a language the model was not trained on: what it learnt of one
    language's judgments (and tokens) does not carry over (a CS model gave JA runs 0.81 against a human
    0.06); a model that records no languages (made before they were recorded) is named as such."""
    from sepia.matchers.learned.trained import run_language

    known = training.get("languages")
    if known is None:
        return ("the model records no languages it was trained on (made by an earlier SEPIA): train it again "
                "so that runs of another language are warned about",)
    other: dict[str, list[str]] = {}
    for run in runs:
        if (lang := run_language(run.run_id)) not in known:
            other.setdefault(lang, []).append(run.run_id)
    return tuple(f"the model was trained on {'/'.join(known)} runs only: its scores of the {lang} runs "
                 f"{', '.join(sorted(ids))} are not learnt from {lang} judgments; check them against human judgments "
                 "before publishing them" for lang, ids in sorted(other.items()))


def cross_fitted(gold: GoldStandard, runs: Sequence[CCLQARun], judgments: Sequence[Judgment], unit: str = "topic",
                 seed: int = 0) -> LearnedMatcher:
    """The matcher trained on a judging plan's judgments only, cross-fitted (`crossfit`): each judged
    pair's probability comes from a model that never saw its fold's judgments, the folds being the
    plan's sampling units (`unit`: "topic" or "item", a run's answers against one nugget), dealt with
    `seed`; every other pair gets the folds' mean. CrossFitError (one line) when the judgments cannot
    train it (too few, one decision only)."""
    import numpy as np

    from sepia.matchers.learned.crossfit import CrossFitter, unit_folds
    from sepia.matchers.learned.pairs import build_pairs

    pairs = build_pairs(gold, runs, judgments)
    judged = ~np.isnan(pairs.labels)
    predictions = CrossFitter(pairs).predict(judged, unit_folds(_units(pairs, unit), judged, np.random.default_rng(seed)))
    return LearnedMatcher(dict(zip(pairs.keys, predictions.tolist())))


def refitted(gold: GoldStandard, runs: Sequence[CCLQARun], judgments: Sequence[Judgment],
             first: set[tuple[str, str, str]], seed: int) -> LearnedMatcher:
    """An active item-level plan's model refitted after its second wave, as `sepia metaeval budget`'s
    simulation refits it (`sepia.metaeval.learned_plans`, `CrossFitter.predict_after`): the wave's
    candidates (every item, a run's answers against one nugget, of a response the first wave plans,
    outside the first wave; `first`: its (run, topic, nugget)) are dealt into folds before looking
    at the draw, with numpy's generator seeded [seed, 1] (`seed` the wave's: the same folds every
    time, from a stream other than the draw's; the items taken topic by topic, run by run and nugget
    by nugget, as the simulation's cells, so that a seed deals the simulation's folds); model k,
    trained on the first wave's judged pairs (in `cross_fitted`'s folds, as groups of the reuse
    features) and the judged candidates outside fold k, predicts fold k. `judgments`: the plan's,
    both waves. Probabilities for the candidates' pairs only (no candidate's from a model that saw
    its fold's draws or judgments). CrossFitError (one line) when the judgments cannot train it."""
    import numpy as np

    from sepia.matchers.learned.crossfit import CrossFitter, unit_folds
    from sepia.matchers.learned.pairs import build_pairs

    pairs = build_pairs(gold, runs, judgments)
    items = [(k[0], k[1], k[3]) for k in pairs.keys]
    responses = {(r, t) for r, t, _ in first}
    earlier = np.array([i in first for i in items], bool) & ~np.isnan(pairs.labels)
    candidate = np.array([(r, t) in responses and (r, t, n) not in first for r, t, n in items], bool)
    groups = unit_folds(_units(pairs, "item"), earlier, np.random.default_rng(0))   # `cross_fitted`'s first-wave folds
    place = {(t.topic_id, n.nugget_id): (i, j) for i, t in enumerate(gold.topics) for j, n in enumerate(t.nuggets)}
    order = {item: i for i, item in enumerate(sorted(set(items), key=lambda x: (place[x[1], x[2]][0], x[0],
                                                                                place[x[1], x[2]][1])))}
    folds = unit_folds(np.array([order[i] for i in items], int), candidate, np.random.default_rng([seed, 1]))
    judged = candidate & ~np.isnan(pairs.labels)     # `judgments` hold the plan's pairs only: the wave's draws
    predictions = CrossFitter(pairs).predict_after(earlier, groups, judged, folds, "refit")
    return LearnedMatcher({k: p for k, p, c in zip(pairs.keys, predictions.tolist(), candidate) if c})


def held_out_runs(gold: GoldStandard, runs: Sequence[CCLQARun], judgments: Sequence[Judgment],
                  seed: int) -> LearnedMatcher:
    """The matcher trained on a plan's judgments (`judgments`: every wave's) whose every pair of a run
    comes from a model that never saw that run's judgments: the runs (those with answers, by ID) dealt
    into FOLDS folds with numpy's generator seeded [seed, 2] (a stream of its own, `seed` the plan's)
    as the simulation deals them (`crossfit.run_folds`); model k, trained on the judged pairs outside
    fold k, predicts fold k's (`CrossFitter.predict_held_out`). The model's own estimate of each run, the
    anchor a plan's estimates are shrunk toward (`sepia.metaeval.shrinkage`). CrossFitError (one
    line) when the judgments cannot train it."""
    import numpy as np

    from sepia.matchers.learned.crossfit import CrossFitError, CrossFitter, run_folds
    from sepia.matchers.learned.pairs import build_pairs

    pairs = build_pairs(gold, runs, judgments)
    if len({k[0] for k in pairs.keys}) < 2:     # a lone run's model would have nothing to learn from
        raise CrossFitError("one run: no other run's judgments to learn from")
    folds = run_folds(pairs.keys, np.random.default_rng([seed, 2]))
    predictions = CrossFitter(pairs).predict_held_out(~np.isnan(pairs.labels), folds)
    return LearnedMatcher(dict(zip(pairs.keys, predictions.tolist())))


def _units(pairs, unit: str):
    """A sampling unit per pair (numbered in the pairs' order): its topic, or its item."""
    import numpy as np

    names = [(k[1],) if unit == "topic" else (k[0], k[1], k[3]) for k in pairs.keys]
    ids = {name: i for i, name in enumerate(dict.fromkeys(names))}
    return np.array([ids[name] for name in names], int)


def fits_on_plan(settings) -> bool:
    """Whether the settings' matcher is the learned one without a saved model: in a judging plan it is
    then trained on the plan's own judgments, cross-fitted (`cross_fitted`)."""
    return settings.matcher == "learned" and not settings.matcher_options.get("model")


Holdout = Literal["run", "team"]  # whose judgments are left out when a run is scored
HOLDOUTS: tuple[Holdout, ...] = get_args(Holdout)


@dataclass(frozen=True)
class Learner:
    """The learned matcher before it has seen the runs: what it learns from and how it decides."""
    judgments: Sequence[Judgment] | None = None
    model_path: str | None = None
    threshold: float | None = None  # None: expected matches (the probability itself)
    holdout: Holdout = "run"
    name: str = "learned"

    def learn(self, gold: GoldStandard, runs: Sequence[CCLQARun]):
        """The matcher for these runs (`sepia.matchers.learned.matcher.LearnedMatcher`, with its
        `warnings`); ValueError (one line) for an unusable model or judgments it cannot learn from."""
        if self.model_path:
            return from_model(self.model_path, gold, runs, self.threshold)
        assert self.judgments is not None  # without a model, _make asks for judgments
        return cross_run(gold, runs, self.judgments, self.holdout, self.threshold)

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
