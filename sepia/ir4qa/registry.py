"""Every IR measure SEPIA computes, one small definition each, in one registry (as ir_measures
keeps its measures): `sepia evaluate-ir4qa --measures`, its table, TSV, JSON and trec_eval-style
columns are all derived from here.

A measure is named `FAMILY` or `FAMILY@k`: `P@10`, `nDCG@20`, `AP`. Without `@k` it is taken at the
run's cut-off (1000 by default). Every definition sees one topic as a `Ranked`: the gains of the
run's documents in rank order (an unjudged document gains 0), which of them are judged, the ideal
gains (the topic's relevant documents, best first) and the number of judged non-relevant documents.

Where NTCIREVAL and trec_eval differ, the docs say so (docs/ir4qa-measures.md): SEPIA's AP@k and Q@k
divide by R as trec_eval's map_cut does; `ntcireval_cutoff=True` divides by min(k, R) as NTCIREVAL's
AP@l and Q@l do. nDCG is NTCIREVAL's original form (ranks 1 and 2 undiscounted, rank r > 2 divided
by log2 r); MSnDCG is the "Microsoft" form (rank r divided by log2(r + 1)) that trec_eval's ndcg_cut
and NTCIREVAL's MSnDCG@l compute.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable, Sequence


@dataclass(frozen=True)
class Ranked:
    """One topic as the measures see it (see the module's docstring)."""
    gains: tuple[float, ...]
    judged: tuple[bool, ...]
    ideal: tuple[float, ...]
    nonrelevant: int
    cutoff: int = 1000
    beta: float = 1.0
    max_gain: float = 1.0
    ntcireval_cutoff: bool = False

    @property
    def R(self) -> int:  # noqa: N802 (the literature's name)
        return len(self.ideal)

    def top(self, k: int) -> tuple[float, ...]:
        return self.gains[:k]


@dataclass(frozen=True)
class Measure:
    family: str
    compute: Callable[[Ranked, int], float]  # (topic, k) -> value
    description: str
    trec_eval: str | None = None  # trec_eval's name at cut-off k ({k}); None when trec_eval has none


REGISTRY: dict[str, Measure] = {}


def register(family: str, description: str, trec_eval: str | None = None):
    def add(compute):
        REGISTRY[family] = Measure(family, compute, description, trec_eval)
        return compute
    return add


def _divisor(t: Ranked, k: int) -> int:
    """R, or min(k, R) below the cut-off when NTCIREVAL's AP@l / Q@l are asked for."""
    return min(k, t.R) if t.ntcireval_cutoff and k < t.cutoff else t.R


@register("AP", "average precision: the sum of precision at each relevant rank, over R", "map_cut_{k}")
def average_precision(t: Ranked, k: int) -> float:
    found, total = 0, 0.0
    for rank, gain in enumerate(t.top(k), start=1):
        if gain > 0:
            found += 1
            total += found / rank
    return total / _divisor(t, k)


@register("Q", "Q-measure: the blended ratio (beta*cg(r) + count(r)) / (beta*cg*(r) + r) at each relevant rank, "
               "over R")
def q_measure(t: Ranked, k: int) -> float:
    found, cumulative, ideal_cumulative, total = 0, 0.0, 0.0, 0.0
    for rank, gain in enumerate(t.top(k), start=1):
        cumulative += gain
        if rank <= t.R:
            ideal_cumulative += t.ideal[rank - 1]
        if gain > 0:
            found += 1
            total += (t.beta * cumulative + found) / (t.beta * ideal_cumulative + rank)
    return total / _divisor(t, k)


def _dcg(gains: Sequence[float], discount: Callable[[int], float]) -> float:
    return sum(g / discount(rank) for rank, g in enumerate(gains, start=1) if g)


def _normalised(t: Ranked, k: int, discount: Callable[[int], float]) -> float:
    ideal = _dcg(t.ideal[:k], discount)
    return _dcg(t.top(k), discount) / ideal if ideal else 0.0


@register("nDCG", "normalised DCG, NTCIREVAL's original form: rank r > 2 divided by log2 r; ideal list cut at k")
def ndcg(t: Ranked, k: int) -> float:
    return _normalised(t, k, lambda rank: max(1.0, math.log2(rank)))


@register("MSnDCG", "normalised DCG, the Microsoft form: rank r divided by log2(r + 1); ideal cut at k",
          "ndcg_cut_{k}")
def ms_ndcg(t: Ranked, k: int) -> float:
    return _normalised(t, k, lambda rank: math.log2(rank + 1))


@register("P", "precision: relevant documents in the top k, over k", "P_{k}")
def precision(t: Ranked, k: int) -> float:
    return sum(1 for g in t.top(k) if g > 0) / k


@register("Recall", "recall: relevant documents in the top k, over R", "recall_{k}")
def recall(t: Ranked, k: int) -> float:
    return sum(1 for g in t.top(k) if g > 0) / t.R


@register("RR", "reciprocal rank of the first relevant document in the top k (0 when none)", "recip_rank")
def reciprocal_rank(t: Ranked, k: int) -> float:
    return next((1 / rank for rank, g in enumerate(t.top(k), start=1) if g > 0), 0.0)


def _err(gains: Sequence[float], stop: Callable[[float], float]) -> float:
    """Expected reciprocal rank: the user stops at a document with probability `stop(gain)`."""
    value, not_stopped = 0.0, 1.0
    for rank, gain in enumerate(gains, start=1):
        value += not_stopped * stop(gain) / rank
        not_stopped *= 1 - stop(gain)
    return value


def _normalised_err(t: Ranked, k: int, stop: Callable[[float], float]) -> float:
    ideal = _err(t.ideal[:k], stop)
    return _err(t.top(k), stop) / ideal if ideal else 0.0


@register("nERR", "normalised expected reciprocal rank as NTCIREVAL computes it: ERR of the top k (stopping "
                  "probability g / (gmax + 1), gmax the highest gain) over the ideal list's ERR")
def normalised_err(t: Ranked, k: int) -> float:
    return _normalised_err(t, k, lambda gain: gain / (t.max_gain + 1))


@register("nERRexp", "nERR with Chapelle et al.'s stopping probability (2^g - 1) / 2^gmax, as gdeval's ERR@k")
def normalised_err_exponential(t: Ranked, k: int) -> float:
    return _normalised_err(t, k, lambda gain: (2 ** gain - 1) / 2 ** t.max_gain)


@register("bpref", "binary preference: each relevant document retrieved scores 1 - min(n, R) / min(R, N), "
                   "n the judged non-relevant documents above it and N all judged non-relevant; over R", "bpref")
def bpref(t: Ranked, k: int) -> float:
    total, above = 0.0, 0
    for gain, judged in zip(t.top(k), t.judged):
        if not judged:
            continue
        if gain > 0:
            total += 1 - min(above, t.R) / min(t.R, t.nonrelevant) if above else 1.0
        else:
            above += 1
    return total / t.R


@register("judged", "the share of the top k (or of the whole list when shorter) that is judged")
def judged_share(t: Ranked, k: int) -> float:
    top = t.judged[:k]
    return sum(top) / len(top) if top else 0.0


DEFAULT = ("AP", "Q", "nDCG")
_NAME = re.compile(r"^([A-Za-z]+)(?:@([1-9][0-9]*))?$")


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


def compute(name: str, topic: Ranked) -> float:
    """One measure of one topic; 0 for a topic without relevant documents."""
    family, k = parse_measure(name)
    if topic.R == 0:
        return 0.0
    return REGISTRY[family].compute(topic, k or topic.cutoff)


def trec_eval_name(name: str, cutoff: int) -> str | None:
    """The name trec_eval gives the same number (`P@10` -> `P_10`), where it has one."""
    family, k = parse_measure(name)
    pattern = REGISTRY[family].trec_eval
    if not pattern or (k is not None and "{k}" not in pattern):
        return None
    return pattern.format(k=k or cutoff)
