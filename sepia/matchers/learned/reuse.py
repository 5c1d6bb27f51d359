"""Judgment reuse (Nuggeteer's idea): a response that says, where it speaks of a nugget, what
responses judged as holding that nugget said, likely holds it too.

Each (response, nugget) pair is compared with the judged pairs of the same nugget through the words
of their best-aligned sentences. Which judged pairs may be used is the caller's `usable` mask: the
honest protocol never lets a pair see judgments of its own run (or team).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

# The nugget's own threshold: how often judged responses with about this pair's value of each of
# these evidence features held the nugget (a kernel of width RATE_WIDTH on the feature's value).
RATE_FEATURES = ("sentence_recall", "recall", "window_recall", "softmatch")
RATE_WIDTH = 0.1

REUSE_FEATURES = (
    "nugget_prior",           # share of the usable judged responses that hold the nugget (smoothed)
    "judged_responses",       # log(1 + how many there are)
    "support_similarity",     # greatest similarity to a response judged to hold the nugget
    "nonsupport_similarity",  # ... to one judged not to
    "neighbour_vote",         # similarity-weighted decision of the most similar judged responses
) + tuple(f"support_rate_by_{name}" for name in RATE_FEATURES)
NEIGHBOURS = 5


def similarity(a: Sequence[frozenset[str]], b: Sequence[frozenset[str]]) -> np.ndarray:
    """Dice coefficient of every word set of `a` with every one of `b`."""
    sims = np.zeros((len(a), len(b)))
    for i, x in enumerate(a):
        if x:
            sims[i] = [2 * len(x & y) / (len(x) + len(y)) if y else 0.0 for y in b]
    return sims


def support_rates(targets: np.ndarray, references: np.ndarray, labels: np.ndarray, usable: np.ndarray,
                  prior: np.ndarray) -> np.ndarray:
    """Per column of `targets` (... x targets x RATE_FEATURES values), the usable references'
    decisions weighted by exp(-|target value - reference value| / RATE_WIDTH); `prior` where none
    is usable. Leading axes are blocks computed at once."""
    out = np.empty(targets.shape)
    for c in range(targets.shape[-1]):
        weight = np.exp(-np.abs(targets[..., :, None, c] - references[..., None, :, c]) / RATE_WIDTH) * usable
        total = weight.sum(axis=-1)
        out[..., c] = np.where(total > 0, (weight * labels[..., None, :]).sum(axis=-1) / np.where(total > 0, total, 1),
                               prior)
    return out


def reuse_features(sims: np.ndarray, labels: np.ndarray, usable: np.ndarray, targets: np.ndarray,
                   references: np.ndarray) -> np.ndarray:
    """REUSE_FEATURES for the rows of `sims` (targets x judged references) from the references'
    `labels`, each target seeing only the references its row of `usable` allows; `targets` and
    `references` are both sides' RATE_FEATURES values. Leading axes, if any, are blocks computed at
    once (a reference a row may not use then needs a finite label, any)."""
    columns = len(RATE_FEATURES)
    targets = targets.reshape(*sims.shape[:-1], columns)
    references = references.reshape(*sims.shape[:-2], sims.shape[-1], columns)
    decisions = labels[..., None, :]
    count = usable.sum(axis=-1)
    held = np.where(usable, decisions, 0.0)
    prior = (held.sum(axis=-1) + 0.5) / (count + 1)
    masked = np.where(usable, sims, -1.0)
    support = np.where(usable & (decisions >= 0.5), sims, 0.0).max(axis=-1, initial=0.0)
    nonsupport = np.where(usable & (decisions < 0.5), sims, 0.0).max(axis=-1, initial=0.0)
    k = min(NEIGHBOURS, sims.shape[-1])
    if k:
        nearest = np.argsort(-masked, axis=-1)[..., :k]
        weight = np.clip(np.take_along_axis(masked, nearest, axis=-1), 0.0, None)
        vote = np.take_along_axis(np.broadcast_to(decisions, sims.shape), nearest, axis=-1)
        total = weight.sum(axis=-1)
        neighbour = np.where(total > 0, (weight * vote).sum(axis=-1) / np.where(total > 0, total, 1), prior)
    else:
        neighbour = prior
    rates = support_rates(targets, references, labels, usable, prior)
    return np.concatenate([np.stack([prior, np.log1p(count), support, nonsupport, neighbour], axis=-1), rates],
                          axis=-1)
