"""The official ACLIA per-topic score: nugget recall, length allowance precision, F(beta)."""
from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Sequence


@dataclass(frozen=True)
class TopicScore:
    topic_id: str
    answer_type: str
    f: float
    recall: float
    precision: float
    matched: float  # a: matched nuggets (a sum of softmatch scores for that matcher)
    length: int  # L: characters of the topic's SRs, white space not counted
    allowance: float  # C * a
    # TREC RAG's four scores of this topic (`sepia.scoring.nuggetizer`), when computed
    nuggetizer: dict | None = field(default=None, compare=False)

    def as_dict(self) -> dict:
        return {"topic_id": self.topic_id, "answer_type": self.answer_type, "f": self.f,
                "recall": self.recall, "precision": self.precision, "matched": self.matched,
                "length": self.length, "allowance": self.allowance}


def f_beta(precision: float, recall: float, beta: float) -> float:
    if precision == 0 and recall == 0:
        return 0.0
    b2 = beta * beta
    return (b2 + 1) * precision * recall / (b2 * precision + recall)


def topic_score(topic_id: str, answer_type: str, *, weights: Sequence[float], match_scores: Sequence[float],
                length: int, char_allowance: float, beta: float, has_responses: bool = True,
                nuggetizer: dict | None = None) -> TopicScore:
    """Score one topic: `match_scores[i]` is 1/0 for binary matchers, s(n) in [0, 1] for softmatch.
    `nuggetizer`: TREC RAG's four scores of the topic, kept with its F.

    A topic without SRs scores 0 in every part (no answer, so no precision either)."""
    if not has_responses:
        return TopicScore(topic_id, answer_type, 0.0, 0.0, 0.0, 0.0, 0, 0.0, nuggetizer)
    total_weight = sum(weights)
    matched_weight = sum(map(operator.mul, weights, match_scores))
    matched = float(sum(match_scores))
    allowance = char_allowance * matched
    recall = matched_weight / total_weight if total_weight else 0.0
    precision = 1.0 if length <= allowance else allowance / length
    return TopicScore(topic_id, answer_type, f_beta(precision, recall, beta), recall, precision,
                      matched, length, allowance, nuggetizer)
