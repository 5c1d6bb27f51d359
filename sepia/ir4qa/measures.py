"""IR4QA scoring as NTCIREVAL defines it (docs/spec.md, IR4QA measures): AP, Q-measure and nDCG at a cut-off by
default, and every other measure of `sepia.ir4qa.registry`, which defines them all.

Unjudged documents count as non-relevant. R is the number of judged relevant documents (level > 0)
of the topic, whatever the cut-off. `JudgedTopic` prepares one topic's qrels once (each judged
document's gain, the registry's `Topic`) to score many ranked lists, each looked up with one dict
lookup a document.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import repeat
from typing import Iterable, Sequence

import numpy as np

from sepia.ir4qa import registry


@dataclass(frozen=True)
class IRScores:
    """One topic's values, by measure name (`sepia.ir4qa.registry`), with R and the relevant documents
    retrieved within the cut-off."""
    values: dict[str, float]
    relevant: int  # R
    retrieved_relevant: int

    @property
    def ap(self) -> float:
        return self.values["AP"]

    @property
    def q(self) -> float:
        return self.values["Q"]

    @property
    def ndcg(self) -> float:
        return self.values["nDCG"]

    def as_dict(self) -> dict:
        return {**self.values, "R": self.relevant, "relevant_retrieved": self.retrieved_relevant}


def parse_gains(text: str) -> list[float]:
    """`1:2:3` gives L1 gain 1, L2 gain 2, L3 gain 3 (L0 always gains 0)."""
    try:
        gains = [float(g) for g in text.split(":")]
    except ValueError:
        raise ValueError(f"gains {text!r} must be numbers separated by ':' (e.g. 1:2:3)") from None
    if any(g <= 0 for g in gains):
        raise ValueError(f"gains {text!r} must be positive")
    return gains


def default_gains(qrels: dict[str, dict[str, int]]) -> list[float]:
    """Gain = relevance level (L1 gains 1, L2 gains 2, ...) up to the highest level judged."""
    top = max((level for judged in qrels.values() for level in judged.values()), default=1)
    return [float(level) for level in range(1, max(top, 1) + 1)]


def gain_of(level: int, gains: Sequence[float]) -> float:
    if level <= 0:
        return 0.0
    if level > len(gains):
        raise ValueError(f"relevance level L{level} has no gain; give --gains with {level} values")
    return gains[level - 1]


def score_ranking(ranking: Sequence[str], judged: dict[str, int], gains: Sequence[float], cutoff: int = 1000,
                  beta: float = 1.0, measures: Sequence[str] = registry.DEFAULT, condensed: bool = False,
                  ntcireval_cutoff: bool = False) -> IRScores:
    """The measures (AP, Q with beta and nDCG by default) of one ranked list of DOCIDs at the cut-off
    against one topic's qrels. `condensed` drops the unjudged documents before the cut-off (Sakai's
    condensed lists, trec_eval -J); `ntcireval_cutoff` divides AP@k and Q@k by min(k, R)."""
    topic = JudgedTopic(judged, gains, cutoff, beta, ntcireval_cutoff)
    return topic.score(ranking, measures, condensed)


class JudgedTopic:
    """One topic's qrels, prepared once to score many ranked lists: each judged document's gain and
    the registry's `Topic` (the ideal gains, best first, and the settings)."""

    def __init__(self, judged: dict[str, int], gains: Sequence[float], cutoff: int = 1000, beta: float = 1.0,
                 ntcireval_cutoff: bool = False):
        self.gain = {docid: gain_of(level, gains) for docid, level in judged.items()}
        ideal = sorted((gain_of(level, gains) for level in judged.values() if level > 0), reverse=True)
        self.topic = registry.Topic(ideal, sum(1 for level in judged.values() if level <= 0), cutoff, beta,
                                    max(gains, default=1.0), ntcireval_cutoff)

    def score(self, ranking: Iterable[str], measures: Sequence[str], condensed: bool = False) -> IRScores:
        """The measures of one ranked list of DOCIDs (see `score_ranking`)."""
        looked_up = np.fromiter(map(self.gain.get, ranking, repeat(registry.UNJUDGED)), dtype=float)
        if condensed:
            looked_up = looked_up[looked_up != registry.UNJUDGED]
        ranked = registry.Ranked(looked_up[:self.topic.cutoff])
        return IRScores({name: registry.compute(name, self.topic, ranked) for name in measures}, self.topic.R,
                        len(ranked.ranks))
