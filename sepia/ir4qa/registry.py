"""Every IR measure SEPIA computes, one small definition each, in one registry (as ir_measures
keeps its measures): `sepia evaluate-ir4qa --measures`, its table, TSV, JSON and trec_eval-style
columns, the store's and the web tool's IR4QA scores are all computed here.

A measure is named `FAMILY` or `FAMILY@k`: `P@10`, `nDCG@20`, `AP`. Without `@k` it is taken at the
run's cut-off (1000 by default). Every definition sees one topic as a `Topic` (the ideal gains, the
number of judged non-relevant documents, the settings), prepared once, and one ranked list of it as
a `Ranked` (each document's gain as numpy arrays: unjudged documents gain 0, and the ranks of the
relevant documents), and computes its value from those arrays in one pass.

Where NTCIREVAL and trec_eval differ, the docs say so (docs/ir4qa-measures.md): SEPIA's AP@k and Q@k
divide by R as trec_eval's map_cut does; `ntcireval_cutoff=True` divides by min(k, R) as NTCIREVAL's
AP@l and Q@l do. nDCG is NTCIREVAL's original form (ranks 1 and 2 undiscounted, rank r > 2 divided
by log2 r); MSnDCG is the "Microsoft" form (rank r divided by log2(r + 1)) that trec_eval's ndcg_cut
and NTCIREVAL's MSnDCG@l compute.

The floating-point operations are done in a fixed order so that every score stays what SEPIA has
always printed and stored, to the last bit: sums of per-rank terms are sequential, from rank 1 on
(`_total`), except DCG, which Python's `sum` adds; the discounts come from `math.log2` and ERR's
exponential stopping probabilities from Python's `**`.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Callable, Sequence

import numpy as np

UNJUDGED = -1.0  # the looked-up gain of a document the qrels do not judge (judged non-relevant: 0)


class Topic:
    """One topic's qrels as the measures see them, prepared once for every list scored against it:
    the gains of its relevant documents (best first), the number of judged non-relevant documents,
    and the settings (cut-off, Q's beta, the highest level's gain, NTCIREVAL's divisor)."""

    def __init__(self, ideal: Sequence[float], nonrelevant: int, cutoff: int = 1000, beta: float = 1.0,
                 max_gain: float = 1.0, ntcireval_cutoff: bool = False):
        self.ideal = np.asarray(ideal, dtype=float)
        self.nonrelevant, self.cutoff, self.beta = nonrelevant, cutoff, beta
        self.max_gain, self.ntcireval_cutoff = max_gain, ntcireval_cutoff
        self.ideal_cumulative = np.cumsum(self.ideal)  # cg*(r)
        self._of_ideal: dict[tuple[Callable, int], float] = {}

    @property
    def R(self) -> int:  # noqa: N802 (the literature's name)
        return len(self.ideal)

    def divisor(self, k: int) -> int:
        """R, or min(k, R) below the cut-off when NTCIREVAL's AP@l / Q@l are asked for."""
        return min(k, self.R) if self.ntcireval_cutoff and k < self.cutoff else self.R

    def of_ideal(self, value: Callable[[Topic, np.ndarray, np.ndarray], float], k: int) -> float:
        """`value` (of gains at ranks) of the ideal list cut at k, computed once per topic and k."""
        if (value, k) not in self._of_ideal:
            ideal = self.ideal[:k]
            self._of_ideal[value, k] = value(self, ideal, np.arange(1, len(ideal) + 1))
        return self._of_ideal[value, k]


class Ranked:
    """One ranked list of a topic (cut at the cut-off, condensed if asked): each document's looked-up
    gain (`UNJUDGED` for a document the qrels do not judge), then what the measures share, each
    computed the first time one needs it."""

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


@dataclass(frozen=True)
class Measure:
    family: str
    compute: Callable[[Topic, Ranked, int], float]  # (topic, ranked list, k) -> value
    description: str
    trec_eval: str | None = None  # trec_eval's name at cut-off k ({k}); None when trec_eval has none


REGISTRY: dict[str, Measure] = {}


def register(family: str, description: str, trec_eval: str | None = None):
    def add(compute):
        REGISTRY[family] = Measure(family, compute, description, trec_eval)
        return compute
    return add


def _total(terms: np.ndarray) -> float:
    """terms[0] + terms[1] + ..., added one by one from rank 1 on."""
    return float(np.cumsum(terms)[-1]) if len(terms) else 0.0


@register("AP", "average precision: the sum of precision at each relevant rank, over R", "map_cut_{k}")
def average_precision(t: Topic, ranked: Ranked, k: int) -> float:
    n = ranked.within(k)
    return _total(ranked.found[:n] / ranked.ranks[:n]) / t.divisor(k)


@register("Q", "Q-measure: the blended ratio (beta*cg(r) + count(r)) / (beta*cg*(r) + r) at each relevant rank, "
               "over R")
def q_measure(t: Topic, ranked: Ranked, k: int) -> float:
    n = ranked.within(k)
    if not n:
        return 0.0
    ranks = ranked.ranks[:n]
    cumulative = np.cumsum(ranked.gains[:ranks[-1]])[ranks - 1]
    ideal_cumulative = t.ideal_cumulative[np.minimum(ranks, t.R) - 1]  # past rank R, cg*(r) stays cg*(R)
    return _total((t.beta * cumulative + ranked.found[:n]) / (t.beta * ideal_cumulative + ranks)) / t.divisor(k)


def _normalised(value: Callable[[Topic, np.ndarray, np.ndarray], float]) -> Callable[[Topic, Ranked, int], float]:
    """A measure that is the top k's `value` (of the relevant documents' gains and ranks) over the
    ideal list's (cut at k); 0 when either is."""
    def normalised(t: Topic, ranked: Ranked, k: int) -> float:
        ideal = t.of_ideal(value, k)
        ranks = ranked.ranks[:ranked.within(k)]
        return value(t, ranked.looked_up[ranks - 1], ranks) / ideal if ideal and len(ranks) else 0.0
    return normalised


def _dcg(discount: Callable[[int], float]) -> Callable[[Topic, np.ndarray, np.ndarray], float]:
    """Discounted cumulative gain, rank r's gain divided by `discount(r)`; the discounts of ranks 1 to
    1000 (or to the deepest rank seen) are tabled once."""
    table = np.empty(0)

    def dcg(t: Topic, gains: np.ndarray, ranks: np.ndarray) -> float:
        nonlocal table
        if len(ranks) and len(table) < ranks[-1]:
            table = np.array([discount(rank) for rank in range(1, max(int(ranks[-1]), 1000) + 1)])
        return sum((gains / table[ranks - 1]).tolist())
    return dcg


register("nDCG", "normalised DCG, NTCIREVAL's original form: rank r > 2 divided by log2 r; ideal list cut at k")(
    _normalised(_dcg(lambda rank: max(1.0, math.log2(rank)))))
register("MSnDCG", "normalised DCG, the Microsoft form: rank r divided by log2(r + 1); ideal cut at k",
         "ndcg_cut_{k}")(_normalised(_dcg(lambda rank: math.log2(rank + 1))))


@register("P", "precision: relevant documents in the top k, over k", "P_{k}")
def precision(t: Topic, ranked: Ranked, k: int) -> float:
    return ranked.within(k) / k


@register("Recall", "recall: relevant documents in the top k, over R", "recall_{k}")
def recall(t: Topic, ranked: Ranked, k: int) -> float:
    return ranked.within(k) / t.R


@register("RR", "reciprocal rank of the first relevant document in the top k (0 when none)", "recip_rank")
def reciprocal_rank(t: Topic, ranked: Ranked, k: int) -> float:
    return 1 / int(ranked.ranks[0]) if ranked.within(k) else 0.0


def _err(stop: Callable[[Topic, np.ndarray], np.ndarray]) -> Callable[[Topic, np.ndarray, np.ndarray], float]:
    """Expected reciprocal rank: the user stops at a document with probability `stop` of its gain (0
    for gain 0, so that only the relevant documents count)."""
    def err(t: Topic, gains: np.ndarray, ranks: np.ndarray) -> float:
        stopping = stop(t, gains)
        not_stopped = np.cumprod(np.concatenate(([1.0], 1 - stopping[:-1])))  # before each relevant rank
        return _total(not_stopped * stopping / ranks)
    return err


register("nERR", "normalised expected reciprocal rank as NTCIREVAL computes it: ERR of the top k (stopping "
                 "probability g / (gmax + 1), gmax the highest gain) over the ideal list's ERR")(
    _normalised(_err(lambda t, gains: gains / (t.max_gain + 1))))
register("nERRexp", "nERR with Chapelle et al.'s stopping probability (2^g - 1) / 2^gmax, as gdeval's ERR@k")(
    _normalised(_err(lambda t, gains: np.array([2 ** g - 1 for g in gains.tolist()]) / 2 ** t.max_gain)))


@register("bpref", "binary preference: each relevant document retrieved scores 1 - min(n, R) / min(R, N), "
                   "n the judged non-relevant documents above it and N all judged non-relevant; over R", "bpref")
def bpref(t: Topic, ranked: Ranked, k: int) -> float:
    above = np.cumsum(ranked.looked_up[:k] == 0.0)[ranked.ranks[:ranked.within(k)] - 1]
    nonrelevant = min(t.R, t.nonrelevant) or 1  # no judged non-relevant document: `above` is 0
    return _total(np.where(above > 0, 1 - np.minimum(above, t.R) / nonrelevant, 1.0)) / t.R


@register("judged", "the share of the top k (or of the whole list when shorter) that is judged")
def judged_share(t: Topic, ranked: Ranked, k: int) -> float:
    top = ranked.judged[:k]
    return int(np.count_nonzero(top)) / len(top) if len(top) else 0.0


DEFAULT = ("AP", "Q", "nDCG")
_NAME = re.compile(r"^([A-Za-z]+)(?:@([1-9][0-9]*))?$")


@lru_cache(maxsize=None)  # looked up for every topic of every run
def parse_measure(name: str) -> tuple[str, int | None]:
    """`P@10` -> ("P", 10); `AP` -> ("AP", None). Family names are case-insensitive."""
    match = _NAME.match(name.strip())
    families = {f.lower(): f for f in REGISTRY}
    if not match or match.group(1).lower() not in families:
        raise ValueError(f"unknown measure {name!r}; known: {', '.join(REGISTRY)} (each optionally @k, e.g. P@10)")
    return families[match.group(1).lower()], int(match.group(2)) if match.group(2) else None


def canonical(name: str) -> str:
    family, k = parse_measure(name)
    return family if k is None else f"{family}@{k}"


def parse_measures(text: str | Sequence[str] | None) -> tuple[str, ...]:
    """`"AP,P@10 nDCG@20"` (commas or spaces, or a list) -> canonical names in order, without repeats."""
    if not text:
        return DEFAULT
    parts = re.split(r"[,\s]+", text) if isinstance(text, str) else [p for t in text for p in re.split(r"[,\s]+", t)]
    return tuple(dict.fromkeys(canonical(p) for p in parts if p))


def compute(name: str, topic: Topic, ranked: Ranked) -> float:
    """One measure of one ranked list; 0 for a topic without relevant documents."""
    family, k = parse_measure(name)
    if topic.R == 0:
        return 0.0
    return float(REGISTRY[family].compute(topic, ranked, k or topic.cutoff))


def trec_eval_name(name: str, cutoff: int) -> str | None:
    """The name trec_eval gives the same number (`P@10` -> `P_10`), where it has one."""
    family, k = parse_measure(name)
    pattern = REGISTRY[family].trec_eval
    if not pattern or (k is not None and "{k}" not in pattern):
        return None
    return pattern.format(k=k or cutoff)
