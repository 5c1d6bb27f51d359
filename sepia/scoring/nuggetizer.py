"""TREC RAG's four nugget scores (castorini/nuggetizer's `core/metrics.py`) beside F3.

Per answered topic, with m(n) the nugget's match value (1, 0.5 for partial support, 0; a
softmatch score for that matcher):
- strict vital = vital nuggets with m(n) = 1 / vital nuggets
- vital        = sum of m(n) over the vital nuggets / vital nuggets
- strict all   = nuggets with m(n) = 1 / nuggets
- all          = sum of m(n) / nuggets
0 when the topic has no (vital) nugget, as nuggetizer has it. The scores count a partial support as
0.5 whatever `--partial` says (that flag is about F). A nugget is vital when a strict majority of its
voters voted it vital (the binary weighting scheme); one that records no votes is vital when its
WEIGHT (1 when absent) is at least 0.5.

nuggetizer averages over the answers it was given, that is over the topics a run answered; SEPIA's
F3 averages over every topic of the set (an unanswered topic scores 0). Both means are reported.
"""
from __future__ import annotations

import statistics
from typing import Sequence

from sepia.formats.model import GoldNugget

MEASURES = ("strict_vital", "vital", "strict_all", "all")


def is_vital(nugget: GoldNugget) -> bool:
    if nugget.vital_votes is None:
        return (1.0 if nugget.weight is None else nugget.weight) >= 0.5
    return 2 * nugget.vital_votes > (nugget.voters or 0)


def topic_scores(values: Sequence[float], vital: Sequence[bool]) -> dict[str, float]:
    """The four scores of one answered topic from its nuggets' match values."""
    strict_vital = any_vital = strict_all = any_all = 0.0  # sums in nugget order
    vitals = 0
    for v, is_vital in zip(values, vital):
        strict, capped = (1.0 if v >= 1 else 0.0), (v if v < 1.0 else 1.0)
        strict_all += strict
        any_all += capped
        if is_vital:
            vitals += 1
            strict_vital += strict
            any_vital += capped
    n = len(values)
    return {"strict_vital": strict_vital / vitals if vitals else 0.0, "vital": any_vital / vitals if vitals else 0.0,
            "strict_all": strict_all / n if n else 0.0, "all": any_all / n if n else 0.0}


def zero() -> dict[str, float]:
    return dict.fromkeys(MEASURES, 0.0)


def run_means(per_topic: Sequence[dict[str, float] | None]) -> dict:
    """Means over all topics (None = not answered, 0) and over the answered topics only."""
    answered = [s for s in per_topic if s is not None]

    def mean(rows: Sequence[dict[str, float]], n: int) -> dict[str, float]:
        # statistics.mean rounds the exact mean once, as nuggetizer's own mean does: an exported
        # file then scores to the last bit what SEPIA prints (sum / n can differ by one ulp).
        return {m: (statistics.mean([r[m] for r in rows] + [0.0] * (n - len(rows))) if n else 0.0)
                for m in MEASURES}

    return {"all_topics": mean(answered, len(per_topic)), "answered_topics": mean(answered, len(answered)),
            "topics": len(per_topic), "answered": len(answered)}
