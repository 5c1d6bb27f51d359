"""Honest cross-run scoring: every run is scored by a model that never saw its judgments.

For each held-out group (one run, or one team's runs), the model is trained on the judged pairs of
every other group, and the judgment-reuse features of the held-out pairs come from those groups only.
The training pairs' own reuse features are made the same way (never from their own group), so that
the model learns to trust reuse as far as it holds for a run whose judgments are unseen.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from sepia import vocab
from sepia.matchers.learned.model import fit_classifier
from sepia.matchers.learned.pairs import PAIR_FEATURES, Pairs
from sepia.matchers.learned.reuse import RATE_FEATURES, REUSE_FEATURES, reuse_features, similarity

RATE_COLUMNS = [PAIR_FEATURES.index(name) for name in RATE_FEATURES]


def group_of(run_id: str, holdout: str | Mapping[str, str]) -> str:
    """The group a run is held out with: itself, its team (the run ID's TEAM part), or the group a
    mapping names (a run it does not name is a group of its own)."""
    if isinstance(holdout, Mapping):
        return holdout.get(run_id, run_id)
    if holdout == "run":
        return run_id
    parsed = vocab.parse_run_id(run_id)
    return parsed.team if parsed else run_id


class BlockSimilarities:
    """Each (topic, nugget) block's similarity of every pair with every other, computed once."""

    def __init__(self, pairs: Pairs):
        self.pairs = pairs
        self.blocks = [np.array(rows) for rows in pairs.blocks.values()]
        self.sims = [similarity([pairs.aligned[i] for i in rows], [pairs.aligned[i] for i in rows])
                     for rows in self.blocks]

    def reuse(self, groups: np.ndarray, reference: np.ndarray) -> np.ndarray:
        """Reuse features of every row from the judged rows `reference` allows (a boolean per row),
        never from a row of its own group."""
        out = np.zeros((len(self.pairs), len(REUSE_FEATURES)))
        labels = self.pairs.labels
        for rows, sims in zip(self.blocks, self.sims):
            refs = reference[rows]
            usable = groups[rows][:, None] != groups[rows][refs][None, :]
            evidence = self.pairs.features[rows][:, RATE_COLUMNS]
            out[rows] = reuse_features(sims[:, refs], labels[rows][refs], usable, evidence, evidence[refs])
        return out


def cross_run_predictions(pairs: Pairs, holdout: str | Mapping[str, str] = "run", reuse: bool = True) -> np.ndarray:
    """P(the response holds the nugget) for every pair, from the model trained without the judgments
    of the pair's group (`holdout`: run or team). NaN for pairs of a group no other group's
    judgments can teach (there is none). `reuse=False` leaves judgment reuse out (the evidence
    features alone), to show what each contributes."""
    groups = np.array([group_of(k[0], holdout) for k in pairs.keys], dtype=object)
    judged = ~np.isnan(pairs.labels)
    similarities = BlockSimilarities(pairs)
    predictions = np.full(len(pairs), np.nan)
    for group in sorted(set(groups)):
        train = judged & (groups != group)
        if not train.any():
            continue
        features = np.hstack([pairs.features, similarities.reuse(groups, train)]) if reuse else pairs.features
        model = fit_classifier(features[train], pairs.labels[train])
        held = groups == group
        predictions[held] = model.probabilities(features[held])
    return predictions
