"""Every (response, nugget) pair of some runs, with its evidence features and, where judged, the
human decision: the table the learned matcher trains on and predicts for."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from sepia.formats.model import Answer, CCLQARun, GoldNugget, GoldStandard, Judgment
from sepia.matchers.learned.context import CONTEXT_FEATURES, context_features
from sepia.matchers.learned.evidence import Text
from sepia.matchers.learned.features import FEATURES, aligned_tokens, pair_features, token_weights
from sepia.matchers.decisions import judged_matches

Key = tuple[str, str, int, str]  # run, topic, answer rank, nugget
PAIR_FEATURES = FEATURES + CONTEXT_FEATURES  # the columns of Pairs.features


@dataclass
class Pairs:
    """Rows in (topic, nugget) blocks: `blocks[(topic, nugget)]` lists the rows of that nugget."""
    keys: list[Key] = field(default_factory=list)
    features: np.ndarray = field(default_factory=lambda: np.zeros((0, len(PAIR_FEATURES))))
    aligned: list[frozenset[str]] = field(default_factory=list)  # best-aligned sentence's words
    labels: np.ndarray = field(default_factory=lambda: np.zeros(0))  # NaN where nobody judged
    blocks: dict[tuple[str, str], list[int]] = field(default_factory=dict)

    @property
    def runs(self) -> np.ndarray:
        return np.array([k[0] for k in self.keys], dtype=object)

    def __len__(self) -> int:
        return len(self.keys)


class TopicEvidence:
    """A topic's nuggets as Texts and their word weights, made once for every run answering it."""

    def __init__(self, nuggets: Sequence[GoldNugget]):
        self.nuggets = list(nuggets)
        self.texts = [Text(n.text) for n in nuggets]
        self.weights = token_weights(self.texts)

    def rows(self, answers: Sequence[Answer]):
        """(answer, nugget, features, aligned words) for every pair of these answers."""
        for answer in answers:
            response = Text(answer.text)
            for nugget, text in zip(self.nuggets, self.texts):
                yield (answer, nugget, pair_features(text, response, self.weights),
                       aligned_tokens(text, response, self.weights))


def build_pairs(gold: GoldStandard, runs: Sequence[CCLQARun], judgments: Sequence[Judgment] = ()) -> Pairs:
    """The pairs of every run's answers with their topic's nuggets (topics without nuggets are left
    out); labelled with the judgments' decision (1, 0.5 or 0, the assessors' upper median)."""
    decided = judged_matches(judgments)
    topics = {t.topic_id: TopicEvidence(t.nuggets) for t in gold.topics if t.nuggets}
    keys: list[tuple[str, str, int, str]] = []
    features, aligned, labels = [], [], []
    blocks: dict[tuple[str, str], list[int]] = defaultdict(list)
    for run in runs:
        for topic in run.topics:
            evidence = topics.get(topic.topic_id)
            if evidence is None:
                continue
            for answer, nugget, row, words in evidence.rows(topic.answers):
                key = (run.run_id, topic.topic_id, answer.rank, nugget.nugget_id)
                blocks[topic.topic_id, nugget.nugget_id].append(len(keys))
                keys.append(key)
                features.append(row)
                aligned.append(words)
                labels.append(decided.get(key, np.nan))
    matrix = np.array(features, dtype=float).reshape(len(keys), len(FEATURES))
    matrix = np.hstack([matrix, context_features(keys, matrix)])
    return Pairs(keys, matrix, aligned, np.array(labels, dtype=float), dict(blocks))
