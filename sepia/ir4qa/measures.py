"""IR4QA scoring: AP and NTCIREVAL's Q-measure and nDCG at a cut-off by default (docs/spec.md, IR4QA
measures), and every other measure of `sepia.ir4qa.registry`, which defines them all.

Unjudged documents count as non-relevant. R is the number of judged relevant documents (level > 0)
of the topic, whatever the cut-off. `JudgedTopic` prepares one topic's qrels once (each judged
document's level, and the registry's `Topic` on each scale of gains asked for) to score many ranked
lists, each looked up with one dict lookup a document and one array look-up a scale.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
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
        return self.values[registry.NTCIR + "Q"]

    @property
    def ndcg(self) -> float:
        return self.values[registry.NTCIR + "nDCG"]

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
                  beta: float = 1.0, measures: Sequence[str] = registry.DEFAULT, condensed: bool = False) -> IRScores:
    """The measures (AP, NTCIREVAL's Q with beta and nDCG by default) of one ranked list of DOCIDs at
    the cut-off against one topic's qrels. `condensed` drops the unjudged documents before the
    cut-off (Sakai's condensed lists, trec_eval -J)."""
    return JudgedTopic(judged, gains, cutoff, beta).score(ranking, measures, condensed)


class JudgedTopic:
    """One topic's qrels, prepared once to score many ranked lists: each judged document's level and,
    for each scale a measure asks for (`registry.Scale`: the gains of --gains, or ir_measures' levels),
    the registry's `Topic` (the ideal gains, best first, and the settings)."""

    def __init__(self, judged: dict[str, int], gains: Sequence[float], cutoff: int = 1000, beta: float = 1.0):
        for level in set(judged.values()):
            gain_of(level, gains)  # a level without a gain fails at once, whatever the measures
        self.level = judged
        self.gains, self.cutoff, self.beta = gains, cutoff, beta
        self.top_level = max(judged.values(), default=0)
        self.R = sum(1 for level in judged.values() if level > 0)
        self._topics: dict[tuple[registry.ScaleKind, registry.Params], tuple[np.ndarray, registry.Topic]] = {}

    def on_scale(self, scale: tuple[registry.ScaleKind, registry.Params]) -> tuple[np.ndarray, registry.Topic]:
        """The gain of each level (`UNJUDGED` last, for the level -1 of an unjudged document) and the
        registry's `Topic`, on the scale, made the first time a measure asks for it."""
        if scale not in self._topics:
            made = registry.Scale.of(*scale, self.gains, self.top_level)
            table = np.array([*made.table, registry.UNJUDGED])
            ideal = sorted((g for g in table[list(self.level.values())] if g > 0), reverse=True)
            self._topics[scale] = table, registry.Topic(ideal, len(self.level) - len(ideal), self.cutoff, self.beta,
                                                         made.max_gain)
        return self._topics[scale]

    def score(self, ranking: Iterable[str], measures: Sequence[str], condensed: bool = False) -> IRScores:
        """The measures of one ranked list of DOCIDs (see `score_ranking`)."""
        levels = np.fromiter(map(self.level.get, ranking, repeat(-1)), dtype=int)
        if condensed:
            levels = levels[levels >= 0]
        levels = levels[:self.cutoff]
        values: dict[str, float] = {}
        for scale, names in _by_scale(tuple(measures)):
            table, topic = self.on_scale(scale)
            ranked = registry.Ranked(table[levels])
            values.update((name, registry.compute(name, topic, ranked)) for name in names)
        return IRScores({name: values[name] for name in measures}, self.R, int(np.count_nonzero(levels > 0)))


@lru_cache(maxsize=None)  # the same few lists of measures for every topic of every run
def _by_scale(measures: tuple[str, ...]) -> list[tuple[tuple[registry.ScaleKind, registry.Params], list[str]]]:
    """The measures grouped by the scale of gains they are computed on (`registry.scale_of`)."""
    groups: dict[tuple[registry.ScaleKind, registry.Params], list[str]] = {}
    for name in measures:
        groups.setdefault(registry.scale_of(name), []).append(name)
    return list(groups.items())
