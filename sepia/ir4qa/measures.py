"""IR4QA measures as NTCIREVAL defines them (spec section 4): AP, Q-measure and nDCG at a cut-off.

Unjudged documents count as non-relevant. R is the number of judged relevant documents (level > 0)
of the topic, whatever the cut-off. nDCG is the original (Jarvelin and Kekalainen) form that
NTCIREVAL reports as nDCG@l: ranks up to the log base (2) are not discounted, rank r > 2 is divided
by log2(r); the ideal list is cut at the same rank.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class IRScores:
    ap: float
    q: float
    ndcg: float
    relevant: int  # R
    retrieved_relevant: int

    def as_dict(self) -> dict:
        return {"AP": self.ap, "Q": self.q, "nDCG": self.ndcg, "R": self.relevant,
                "relevant_retrieved": self.retrieved_relevant}


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


def _discounted(gains: Sequence[float], log_base: float = 2.0) -> float:
    return sum(g if rank <= log_base else g / math.log(rank, log_base) for rank, g in enumerate(gains, start=1))


def score_ranking(ranking: Sequence[str], judged: dict[str, int], gains: Sequence[float], cutoff: int = 1000,
                  beta: float = 1.0) -> IRScores:
    """AP, Q (with beta) and nDCG@cutoff of one ranked list of DOCIDs against one topic's qrels."""
    ranking = ranking[:cutoff]
    run_gains = [gain_of(judged.get(docid, 0), gains) for docid in ranking]
    ideal = sorted((gain_of(level, gains) for level in judged.values() if level > 0), reverse=True)
    relevant = len(ideal)
    if relevant == 0:
        return IRScores(0.0, 0.0, 0.0, 0, 0)
    ap_sum = q_sum = 0.0
    found = 0
    cumulative = ideal_cumulative = 0.0
    for rank, gain in enumerate(run_gains, start=1):
        cumulative += gain
        if rank <= relevant:
            ideal_cumulative += ideal[rank - 1]
        if gain > 0:
            found += 1
            ap_sum += found / rank
            q_sum += (beta * cumulative + found) / (beta * ideal_cumulative + rank)
    ideal_dcg = _discounted(ideal[:cutoff])
    return IRScores(ap_sum / relevant, q_sum / relevant, _discounted(run_gains) / ideal_dcg, relevant, found)
