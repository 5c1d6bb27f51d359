"""Cross-fitted predictions for a judging plan (cross-prediction-powered inference, Zrnic and Candès,
PNAS 2024): the learned matcher trained on the plan's own judged pairs only, so that no judged pair's
prediction comes from a model that saw its judgment.

The judged pairs are split into folds (by the plan's sampling unit: the topic for a topic-level
plan, the item for an item-level one). Model k is trained on the judged pairs outside fold k, their
judgment-reuse features taken from the judged pairs of the other folds outside fold k (never their
own fold's, as a pair's own judgment must not be its feature); it predicts the pairs of fold k from
the judged pairs outside fold k. A pair nobody judged gets the mean of the folds' predictions.

The evidence features and the pairs' similarities are computed once (`CrossFitter`) and shared by
every plan a simulation draws; each fold's fit starts from the previous plan's solution
(`fit_newton`: the minimum is unique, so the start changes the time, not the model).
"""
from __future__ import annotations

from collections import defaultdict

import numpy as np

from sepia.matchers.learned.crossrun import RATE_COLUMNS, BlockSimilarities
from sepia.matchers.learned.model import fit_newton
from sepia.matchers.learned.pairs import Pairs
from sepia.matchers.learned.reuse import REUSE_FEATURES, reuse_features

FOLDS = 5
MIN_JUDGED = 10   # judged pairs per fold's training set, at the least


class CrossFitError(ValueError):
    """The plan's judgments cannot train the model (too few, one decision only); one line."""


class StackedSimilarities:
    """`BlockSimilarities` with the (topic, nugget) blocks of each size stacked, so that one numpy
    call computes the reuse features of all of them (the same features, up to the order of equally
    similar neighbours); a plan's references are a mask, not a subset."""

    def __init__(self, pairs: Pairs):
        blocks = BlockSimilarities(pairs)
        by_size: dict[int, list] = defaultdict(list)
        for rows, sims in zip(blocks.blocks, blocks.sims):
            by_size[len(rows)].append((rows, sims))
        self.stacks = [(np.stack([r for r, _ in v]), np.stack([s for _, s in v])) for v in by_size.values()]
        self.evidence = pairs.features[:, RATE_COLUMNS]
        self.labels = np.nan_to_num(pairs.labels)    # an unjudged pair is never a usable reference
        self.size = len(pairs)

    def reuse(self, groups: np.ndarray, reference: np.ndarray) -> np.ndarray:
        """`BlockSimilarities.reuse`: every row's reuse features from the rows `reference` marks,
        never from a row of its own group."""
        out = np.zeros((self.size, len(REUSE_FEATURES)))
        for rows, sims in self.stacks:
            group = groups[rows]
            usable = (group[:, :, None] != group[:, None, :]) & reference[rows][:, None, :]
            some = usable.any(axis=(1, 2))   # a block none of whose rows may use a reference: the priors
            evidence = self.evidence[rows]
            out[rows] = reuse_features(sims[:1], self.labels[rows[:1]], usable[:1] & False, evidence[:1],
                                       evidence[:1])[0, 0]
            if some.any():
                out[rows[some]] = reuse_features(sims[some], self.labels[rows[some]], usable[some], evidence[some],
                                                 evidence[some])
        return out


class CrossFitter:
    """Cross-fitted predictions for any set of judged pairs of these pairs (labels: the judgments a
    plan may draw, NaN where nobody judged); `extra` are further feature columns per pair (an
    automatic assessor's values)."""

    def __init__(self, pairs: Pairs, extra: np.ndarray | None = None):
        self.pairs = pairs
        self.features = pairs.features if extra is None else np.hstack([pairs.features, extra.reshape(len(pairs), -1)])
        self.similarities = StackedSimilarities(pairs)
        self.starts: dict[str, np.ndarray] = {}   # per kind of plan, the last fit's solution: a warm start

    def predict(self, judged: np.ndarray, folds: np.ndarray, kind: str = "") -> np.ndarray:
        """P(the response holds the nugget) for every pair. `judged` marks the plan's judged pairs (a
        bool per pair, each with a label), `folds` their fold (0, 1, ...; ignored elsewhere); `kind`
        names the kind of plan whose last fit starts this one's."""
        labels = self.pairs.labels
        judged = np.asarray(judged, bool)
        if np.isnan(labels[judged]).any():
            raise CrossFitError("a planned pair has no judgment")
        groups = np.where(judged, folds, -1)     # an unjudged pair is no fold's: it sees every reference
        count = int(groups.max()) + 1 if judged.any() else 0
        if count < 2:
            raise CrossFitError(f"{int(judged.sum())} judged pairs in {count} fold: cross-fitting needs two folds")
        checked_labels(labels[judged], count)
        return self._fitted(groups, judged, count, kind)

    def predict_after(self, earlier: np.ndarray, earlier_groups: np.ndarray, judged: np.ndarray, folds: np.ndarray,
                      kind: str = "") -> np.ndarray:
        """The refit after a wave drawn by Poisson sampling: P(the response holds the nugget) for every pair
        of the wave's candidates from model k, trained on every pair judged in the earlier waves
        (`earlier`) and the wave's judged pairs (`judged`) outside the candidates' fold k. `folds`: a
        fold per candidate pair (0, 1, ...; -1 for the others), dealt before the draw, so that neither
        a candidate's fold nor its prediction depends on whether it was drawn (its model never sees
        the draws of its own fold). `earlier_groups`: a group per earlier pair (0, 1, ...), whose reuse
        features never come from their own group (as a fold's in `predict`). The other pairs (the
        earlier waves', pairs of no candidate) get the mean of the folds' predictions (the earlier
        waves' from models that saw them: not honest, the caller keeps their earlier predictions)."""
        labels = self.pairs.labels
        earlier, judged = np.asarray(earlier, bool), np.asarray(judged, bool) & (folds >= 0)
        known = earlier | judged
        if np.isnan(labels[known]).any():
            raise CrossFitError("a planned pair has no judgment")
        count = int(folds.max()) + 1 if (folds >= 0).any() else 0
        if count < 2:
            raise CrossFitError(f"the wave's candidates in {count} fold: cross-fitting needs two folds")
        checked_labels(labels[known], count)
        return self._fitted(np.where(folds >= 0, folds, np.where(earlier, count + earlier_groups, -1)), known, count,
                            kind)

    def predict_held_out(self, judged: np.ndarray, groups: np.ndarray) -> np.ndarray:
        """P(the response holds the nugget) for every pair from the model trained on the `judged`
        pairs outside its group (`groups`: 0, 1, ... for every pair; e.g. its run's fold), its reuse
        features never from its own group: a run's predictions from models that never saw its
        judgments."""
        judged, count = np.asarray(judged, bool), int(groups.max(initial=0)) + 1
        if count < 2:
            raise CrossFitError(f"{count} group: predictions held out of their group need two")
        checked_labels(self.pairs.labels[judged], count)
        return self._fitted(groups, judged, count, "held out")

    def _fitted(self, groups: np.ndarray, known: np.ndarray, count: int, kind: str) -> np.ndarray:
        """Model k trained on the `known` pairs outside group k predicts group k (k < count); pairs of no
        fold (group -1, or count and above: earlier waves') get the mean of the models' predictions.
        A pair's reuse features never come from its own group."""
        labels = self.pairs.labels
        predictions = np.zeros(len(labels))
        start = self.starts.get(kind)     # the last plan's: a fold's model never starts from another fold's
        rest = (groups < 0) | (groups >= count)
        for k in range(count):
            reference = known & (groups != k)
            x = np.hstack([self.features, self.similarities.reuse(groups, reference)])
            train = labels[reference]
            if train.max() <= 0 or train.min() >= 1:
                raise CrossFitError(f"the judged pairs outside fold {k + 1} hold one decision only: nothing to learn")
            model, self.starts[kind] = fit_newton(x[reference], train, start)
            own = groups == k
            p = model.probabilities(x[own | rest])
            predictions[own] = p[own[own | rest]]
            predictions[rest] += p[rest[own | rest]] / count
        return predictions


def checked_labels(labels: np.ndarray, folds: int) -> None:
    """CrossFitError unless the judged pairs can train `folds` models: enough of them, both decisions."""
    needed = MIN_JUDGED * folds // max(folds - 1, 1)
    if len(labels) < needed:
        raise CrossFitError(f"{len(labels)} judged pairs: a cross-fitted model needs at least {needed} "
                            f"({MIN_JUDGED} for each of {folds} folds' training)")
    if labels.max() <= 0 or labels.min() >= 1:
        raise CrossFitError("the judged pairs hold one decision only (every pair matched, or none): nothing to learn")


def run_folds(keys, rng, folds: int = FOLDS) -> np.ndarray:
    """A fold per pair (`keys`: (run, ...) each): its run's, the runs in ID order dealt at random into
    `folds` folds, so that a run's pairs are held out together (`CrossFitter.predict_held_out`)."""
    runs = np.unique([k[0] for k in keys], return_inverse=True)[1]
    return (rng.permutation(runs.max() + 1) % folds)[runs]


def unit_folds(units: np.ndarray, judged: np.ndarray, rng, folds: int = FOLDS) -> np.ndarray:
    """A fold per pair: the judged pairs' sampling units (any hashable label per pair; a topic, an
    item) shuffled and dealt round into at most `folds` folds, every pair of a unit in the unit's
    fold; -1 for unjudged pairs."""
    out = np.full(len(units), -1)
    present = np.unique(units[judged])
    order = present[rng.permutation(len(present))]
    fold_of = {u: i % min(folds, len(present)) for i, u in enumerate(order.tolist())}
    out[judged] = [fold_of[u] for u in units[judged].tolist()]
    return out
