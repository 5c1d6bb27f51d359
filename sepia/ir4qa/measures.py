"""IR4QA measures as NTCIREVAL defines them (spec section 4): AP, Q-measure and nDCG at a cut-off.

Unjudged documents count as non-relevant. R is the number of judged relevant documents (level > 0)
of the topic, whatever the cut-off. nDCG is the original (Jarvelin and Kekalainen) form that
NTCIREVAL reports as nDCG@l: ranks up to the log base (2) are not discounted, rank r > 2 is divided
by log2(r); the ideal list is cut at the same rank.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

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
    ranking = [d for d in ranking if d in judged] if condensed else list(ranking)
    ranking = ranking[:cutoff]
    run_gains = tuple(gain_of(judged.get(docid, 0), gains) for docid in ranking)
    ideal = tuple(sorted((gain_of(level, gains) for level in judged.values() if level > 0), reverse=True))
    topic = registry.Ranked(run_gains, tuple(d in judged for d in ranking), ideal,
                            sum(1 for level in judged.values() if level <= 0), cutoff, beta,
                            max(gains, default=1.0), ntcireval_cutoff)
    return IRScores({m: registry.compute(m, topic) for m in measures}, len(ideal), sum(1 for g in run_gains if g > 0))
