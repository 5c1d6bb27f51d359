"""A Question Analysis run's answer type for a topic: the ANSWER_TYPE with the highest SCORE."""
from __future__ import annotations

import math

from sepia.formats.model import AnswerTypeScore, QATopic


def predicted_type(topic: QATopic | None) -> str | None:
    """The highest-scoring ANSWER_TYPE; equal scores go to the one first in the file. A SCORE that
    is missing or NaN ranks below every number, so a file without scores predicts its first type.
    None when the run gave no answer type for the topic."""
    if topic is None or not topic.answer_types:
        return None

    def rank(item: tuple[int, AnswerTypeScore]) -> tuple[float, int]:
        position, guess = item
        score = guess.score
        return (-math.inf if score is None or math.isnan(score) else score, -position)

    return max(enumerate(topic.answer_types), key=rank)[1].answer_type
