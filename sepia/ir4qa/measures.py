"""IR4QA measures as NTCIREVAL defines them (spec section 4): AP, Q-measure and nDCG at a cut-off.

Unjudged documents count as non-relevant. R is the number of judged relevant documents (level > 0)
of the topic, whatever the cut-off. nDCG is the original (Jarvelin and Kekalainen) form that
NTCIREVAL reports as nDCG@l: ranks up to the log base (2) are not discounted, rank r > 2 is divided
by log2(r); the ideal list is cut at the same rank.

`sepia.ir4qa.registry` defines every measure, one readable loop each. Scoring thousands of ranked
lists of 1,000 documents goes through `JudgedTopic`: one topic's qrels prepared once, each ranked
list looked up with one dict lookup a document, and the common measures computed from numpy arrays
in one pass (`_KERNELS`). The kernels perform the registry's floating-point operations in the
registry's order (sequential cumulative sums, Python's own `sum` where the registry uses it, the
discounts from `math.log2`), so that they give the same numbers to the last bit; the tests compare
them with the registry on random data. A measure without a kernel is computed by the registry.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import repeat
from typing import Callable, Iterable, Sequence

import numpy as np

from sepia.ir4qa import registry

UNJUDGED = -1.0  # the looked-up gain of a document the qrels do not judge (judged non-relevant: 0)


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
    """One topic's qrels, prepared once to score many ranked lists: each judged document's gain, the
    ideal gains (best first) and what the measures derive from them."""

    def __init__(self, judged: dict[str, int], gains: Sequence[float], cutoff: int = 1000, beta: float = 1.0,
                 ntcireval_cutoff: bool = False):
        self.gain = {docid: gain_of(level, gains) for docid, level in judged.items()}
        ideal = tuple(sorted((gain_of(level, gains) for level in judged.values() if level > 0), reverse=True))
        self.template = registry.Ranked((), (), ideal, sum(1 for level in judged.values() if level <= 0), cutoff,
                                        beta, max(gains, default=1.0), ntcireval_cutoff)
        self.ideal_cumulative = np.cumsum(ideal)  # cg*(r), summed in rank order as the registry does
        self._ideal_dcg: dict[tuple[str, int], float] = {}

    @property
    def R(self) -> int:  # noqa: N802 (the literature's name)
        return self.template.R

    def score(self, ranking: Iterable[str], measures: Sequence[str], condensed: bool = False) -> IRScores:
        """The measures of one ranked list of DOCIDs (see `score_ranking`)."""
        looked_up = np.fromiter(map(self.gain.get, ranking, repeat(UNJUDGED)), dtype=float)
        if condensed:
            looked_up = looked_up[looked_up != UNJUDGED]
        lists = _Lists(looked_up[:self.template.cutoff])
        values = {}
        for name in measures:
            family, k = _parse_measure(name)
            kernel = _KERNELS.get(family)
            if self.R == 0:
                values[name] = 0.0
            elif kernel is None:
                values[name] = registry.compute(name, dataclasses.replace(
                    self.template, gains=tuple(lists.gains.tolist()), judged=tuple(lists.judged.tolist())))
            else:
                values[name] = float(kernel(self, lists, k or self.template.cutoff))
        return IRScores(values, self.R, len(lists.ranks))

    def ideal_dcg(self, family: str, k: int) -> float:
        key = (family, k)
        if key not in self._ideal_dcg:
            ideal = np.asarray(self.template.ideal[:k], dtype=float)
            self._ideal_dcg[key] = sum((ideal / _discounts(family, len(ideal))[:len(ideal)]).tolist())
        return self._ideal_dcg[key]

    def divisor(self, k: int) -> int:
        return registry._divisor(self.template, k)


class _Lists:
    """One ranked list (cut, condensed if asked) as arrays: looked-up gains, then what the kernels
    share, each computed the first time one needs it."""

    def __init__(self, looked_up: np.ndarray):
        self.looked_up = looked_up
        self.ranks = np.flatnonzero(looked_up > 0) + 1  # the ranks of the relevant documents

    def within(self, k: int) -> int:
        """How many relevant documents are in the top k."""
        return int(np.searchsorted(self.ranks, k, side="right"))

    @cached_property
    def gains(self) -> np.ndarray:
        return np.where(self.looked_up > 0, self.looked_up, 0.0)

    @cached_property
    def judged(self) -> np.ndarray:
        return self.looked_up != UNJUDGED

    @cached_property
    def found(self) -> np.ndarray:
        return np.arange(1, len(self.ranks) + 1)  # count(r) at each relevant rank


_parse_measure = lru_cache(maxsize=None)(registry.parse_measure)


def _prefix_total(terms: np.ndarray, n: int) -> float:
    """terms[0] + ... + terms[n - 1], added one by one from 0.0 as the registry's loops add them."""
    return float(np.cumsum(terms[:n])[-1]) if n else 0.0


def _ap(t: JudgedTopic, lists: _Lists, k: int) -> float:
    n = lists.within(k)
    return _prefix_total(lists.found[:n] / lists.ranks[:n], n) / t.divisor(k)


def _q(t: JudgedTopic, lists: _Lists, k: int) -> float:
    n = lists.within(k)
    if not n:
        return 0.0
    ranks, beta = lists.ranks[:n], t.template.beta
    cumulative = np.cumsum(lists.gains[:ranks[-1]])[ranks - 1]
    ideal_cumulative = t.ideal_cumulative[np.minimum(ranks, t.R) - 1]
    return _prefix_total((beta * cumulative + lists.found[:n]) / (beta * ideal_cumulative + ranks), n) / t.divisor(k)


def _discounted(family: str) -> Callable[[JudgedTopic, _Lists, int], float]:
    def normalised(t: JudgedTopic, lists: _Lists, k: int) -> float:
        ideal = t.ideal_dcg(family, k)
        ranks = lists.ranks[:lists.within(k)]
        if not ideal or not len(ranks):
            return 0.0
        # Python's sum, as the registry's _dcg adds (compensated from Python 3.12 on)
        discounts = _discounts(family, int(ranks[-1]))[ranks - 1]
        return sum((lists.looked_up[ranks - 1] / discounts).tolist()) / ideal
    return normalised


_DISCOUNT = {"nDCG": lambda rank: max(1.0, math.log2(rank)), "MSnDCG": lambda rank: math.log2(rank + 1)}
_DISCOUNT_TABLES: dict[str, np.ndarray] = {}


def _discounts(family: str, length: int) -> np.ndarray:
    """The discount of ranks 1..length (at least), from math.log2 as the registry computes them."""
    table = _DISCOUNT_TABLES.get(family)
    if table is None or len(table) < length:
        table = np.array([_DISCOUNT[family](rank) for rank in range(1, max(length, 1000) + 1)])
        _DISCOUNT_TABLES[family] = table
    return table


def _bpref(t: JudgedTopic, lists: _Lists, k: int) -> float:
    top = lists.looked_up[:k]
    judged_nonrelevant = np.cumsum(top == 0.0)
    above = judged_nonrelevant[lists.ranks[:lists.within(k)] - 1]
    nonrelevant = min(t.R, t.template.nonrelevant) or 1  # no judged non-relevant document: `above` is 0
    terms = np.where(above > 0, 1 - np.minimum(above, t.R) / nonrelevant, 1.0)
    return _prefix_total(terms, len(terms)) / t.R


def _judged(t: JudgedTopic, lists: _Lists, k: int) -> float:
    top = lists.judged[:k]
    return int(np.count_nonzero(top)) / len(top) if len(top) else 0.0


_KERNELS: dict[str, Callable[[JudgedTopic, _Lists, int], float]] = {
    "AP": _ap, "Q": _q, "nDCG": _discounted("nDCG"), "MSnDCG": _discounted("MSnDCG"),
    "P": lambda t, lists, k: lists.within(k) / k,
    "Recall": lambda t, lists, k: lists.within(k) / t.R,
    "RR": lambda t, lists, k: 1 / int(lists.ranks[0]) if lists.within(k) else 0.0,
    "bpref": _bpref, "judged": _judged,
}
