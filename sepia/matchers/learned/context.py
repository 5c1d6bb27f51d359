"""Context features: a pair's evidence set against its response's other pairs.

A response that holds many of the topic's nuggets' words is a thorough answer, and a nugget whose
words it holds more than it holds the others' stands out in it. This is the response's own text,
never a judgment, so these are evidence features too. (A run's mean over all its pairs was tried
and left out: with a handful of training runs it names the run, and the sample campaign's kappa
fell, CT 0.809 to 0.684.)
"""
from __future__ import annotations

from collections import defaultdict
from typing import Sequence

import numpy as np

from sepia.matchers.learned.features import FEATURES

CONTEXT_FEATURES = (
    "response_recall",            # mean `recall` of the response over its topic's nuggets
    "recall_over_response",       # the pair's `recall` minus that mean
    "response_sentence_recall",   # mean `sentence_recall` of the response over its topic's nuggets
    "sentence_recall_over_response",  # the pair's `sentence_recall` minus that mean
)
_RECALL, _SENTENCE = FEATURES.index("recall"), FEATURES.index("sentence_recall")


def context_features(keys: Sequence[tuple[str, str, int, str]], features: np.ndarray) -> np.ndarray:
    """CONTEXT_FEATURES of every row of `features` (pair_features rows), keyed (run, topic, rank, nugget)."""
    out = np.zeros((len(keys), len(CONTEXT_FEATURES)))
    responses: dict[tuple, list[int]] = defaultdict(list)
    for i, key in enumerate(keys):
        responses[key[:3]].append(i)
    for rows in responses.values():
        for column, source in ((0, _RECALL), (2, _SENTENCE)):
            values = features[rows, source]
            out[rows, column] = values.mean()
            out[rows, column + 1] = values - values.mean()
    return out
