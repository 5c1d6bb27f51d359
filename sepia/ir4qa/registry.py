"""Every IR measure SEPIA computes, one small definition each, in one registry (as ir_measures
keeps its measures): `sepia evaluate-ir4qa --measures`, its table, TSV, JSON and trec_eval-style
columns, the store's and the web tool's IR4QA scores are all computed here.

Two families of names, which cannot be confused (docs/ir4qa-measures.md has the table):
- ir_measures' names mean ir_measures' measures: `AP`, `P@10`, `R@100`, `nDCG@10`, `RR`, `Bpref`,
  `Judged@10`, `ERR@20`, ..., with ir_measures' parameters (`P(rel=2)@10`, `nDCG(dcg='exp-log2')@10`,
  `nDCG(gains={1:1,2:3})@10`) and its aliases (`MAP`, `MRR`, `NDCG`, `Recall`, ...). They take the
  relevance level itself as the gain, as ir_measures does.
- NTCIREVAL's measures carry the prefix `ntcir:` and NTCIREVAL's own names: `ntcir:Q` (Q-measure),
  `ntcir:nDCG@k` (the original nDCG: ranks 1 and 2 undiscounted, rank r > 2 divided by log2 r),
  `ntcir:MSnDCG@k`, `ntcir:nERR@k`, and `ntcir:AP@k` and `ntcir:Q@k`, which divide by min(k, R) as
  NTCIREVAL's AP@l and Q@l do. They take the gains of `--gains` (NTCIREVAL's -g). `sepia:nERRexp@k`
  is SEPIA's own (nERR with Chapelle et al.'s stopping probability).

A name without `@k` is taken at the run's cut-off (1000 by default). Every definition sees one topic
as a `Topic` (the ideal gains, the number of judged non-relevant documents, the settings), prepared
once, and one ranked list of it as a `Ranked` (each document's gain as numpy arrays: unjudged
documents `UNJUDGED`, and the ranks of the relevant documents), and computes its value from those
arrays in one pass. What gain a level has is the measure's `Scale`: the run's gains (NTCIREVAL's
measures), or the level itself (ir_measures'), changed by the name's parameters.

The floating-point operations are done in a fixed order so that every score stays what SEPIA has
always printed and stored, to the last bit: sums of per-rank terms are sequential, from rank 1 on
(`_total`), except DCG, which Python's `sum` adds; the discounts come from `math.log2` and ERR's
exponential stopping probabilities from Python's `**`.
"""
from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Callable, Literal, Sequence, cast

import numpy as np

UNJUDGED = -1.0  # the looked-up gain of a document the qrels do not judge (judged non-relevant: 0)
NTCIR, SEPIA = "ntcir:", "sepia:"  # the prefixes of the names that are not ir_measures'


class Topic:
    """One topic's qrels as the measures see them, prepared once for every list scored against it:
    the gains of its relevant documents (best first), the number of judged non-relevant documents,
    and the settings (cut-off, Q's beta, the highest level's gain)."""

    def __init__(self, ideal: Sequence[float], nonrelevant: int, cutoff: int = 1000, beta: float = 1.0,
                 max_gain: float = 1.0):
        self.ideal = np.asarray(ideal, dtype=float)
        self.nonrelevant, self.cutoff, self.beta, self.max_gain = nonrelevant, cutoff, beta, max_gain
        self.ideal_cumulative = np.cumsum(self.ideal)  # cg*(r)
        self._of_ideal: dict[tuple[Callable, int], float] = {}

    @property
    def R(self) -> int:  # noqa: N802 (the literature's name)
        return len(self.ideal)

    def ntcireval_divisor(self, k: int) -> int:
        """NTCIREVAL's AP@l and Q@l divide by min(l, R) below the cut-off (at it, by R)."""
        return min(k, self.R) if k < self.cutoff else self.R

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


# -- what gain a level has --------------------------------------------------------------------------

Params = tuple[tuple[str, object], ...]  # a name's parameters, sorted, those at their default left out
ScaleKind = Literal["levels", "gains"]  # ir_measures' (the level is the gain) or NTCIREVAL's (--gains)


@dataclass(frozen=True)
class Scale:
    """The gain of each relevance level (index 0 is level 0), as a measure sees them: NTCIREVAL's
    measures the run's gains (`--gains`), ir_measures' the level itself unless the name's parameters
    say otherwise; a level below `rel` (ir_measures' binary threshold) gains 0. `max_gain` is what
    NTCIREVAL's nERR takes as the highest level's gain."""
    table: tuple[float, ...]
    max_gain: float

    @staticmethod
    def of(scale: ScaleKind, params: Params, gains: Sequence[float], top_level: int) -> Scale:
        if scale == "gains":
            return Scale((0.0, *map(float, gains)), float(max(gains, default=1.0)))
        given = dict(params)
        levels = range(top_level + 1)
        table = [float(level) for level in levels]
        if "gains" in given:  # ir_measures: a level the mapping leaves out keeps its own value
            mapping = dict(cast(tuple[tuple[int, float], ...], given["gains"]))  # _checked_gains' pairs
            table = [float(mapping.get(level, level)) for level in levels]
        if given.get("dcg") == "exp-log2":
            table = [2.0 ** g - 1 for g in table]
        rel = given.get("rel", 1)
        assert isinstance(rel, int)
        return Scale(tuple(g if level >= rel else 0.0 for level, g in zip(levels, table)), max(table, default=1.0))


# -- the measures -----------------------------------------------------------------------------------

def _checked_rel(value: object) -> object:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"rel must be a relevance level of at least 1, not {value!r}")
    return value


def _checked_dcg(value: object) -> object:
    if value not in ("log2", "exp-log2"):
        raise ValueError(f"dcg must be 'log2' or 'exp-log2', not {value!r}")
    return value


def _checked_gains(value: object) -> object:
    """A mapping of levels to gains, kept as sorted pairs (hashable)."""
    if not isinstance(value, dict) or not all(isinstance(k, int) and isinstance(v, (int, float)) and not
                                              isinstance(v, bool) for k, v in value.items()):
        raise ValueError(f"gains must map levels to numbers, e.g. {{1:1,2:3}}, not {value!r}")
    return tuple(sorted((int(k), float(v)) for k, v in value.items()))


# each parameter SEPIA takes from ir_measures: its default and its check
PARAMETERS: dict[str, tuple[object, Callable[[object], object]]] = {
    "rel": (1, _checked_rel), "dcg": ("log2", _checked_dcg), "gains": (None, _checked_gains)}


@dataclass(frozen=True)
class Measure:
    family: str  # as it is written: `nDCG`, `ntcir:Q`
    compute: Callable[[Topic, Ranked, int], float]  # (topic, ranked list, k) -> value
    description: str
    trec_eval: str | None = None  # trec_eval's name at cut-off k ({k}); None when trec_eval has none
    scale: ScaleKind = "levels"
    params: tuple[str, ...] = ()  # the ir_measures parameters it takes (PARAMETERS)
    cut: bool = True  # takes @k
    needs_relevant: bool = True  # 0 for a topic without a relevant document
    summed: bool = False  # a run's value is the sum over its topics (ir_measures' and trec_eval's counts)


REGISTRY: dict[str, Measure] = {}
ALIASES = {"MAP": "AP", "MRR": "RR", "NDCG": "nDCG", "Precision": "P", "Recall": "R", "BPref": "Bpref",
           "RPrec": "Rprec"}  # ir_measures' other names of the same measures
RENAMED = {  # SEPIA's names before ir_measures' names meant ir_measures' measures (docs/history.md)
    "Q": "NTCIREVAL's Q-measure is ntcir:Q (ntcir:Q@k divides by min(k, R), as NTCIREVAL's Q@l does)",
    "MSnDCG": "NTCIREVAL's MSnDCG is ntcir:MSnDCG (ir_measures' nDCG gives the same number when the gains are "
              "the levels)",
    "nERR": "NTCIREVAL's nERR is ntcir:nERR",
    "nERRexp": "SEPIA's nERR with Chapelle's stopping probability is sepia:nERRexp",
}


def register(family: str, description: str, trec_eval: str | None = None, *, scale: ScaleKind = "levels",
             params: tuple[str, ...] = (), cut: bool = True, needs_relevant: bool = True, summed: bool = False):
    def add(compute):
        REGISTRY[family] = Measure(family, compute, description, trec_eval, scale, params, cut, needs_relevant,
                                   summed)
        return compute
    return add


def _total(terms: np.ndarray) -> float:
    """terms[0] + terms[1] + ..., added one by one from rank 1 on."""
    return float(np.cumsum(terms)[-1]) if len(terms) else 0.0


BINARY = ("rel",)  # the parameters of ir_measures' binary measures


def _precision_sum(ranked: Ranked, k: int) -> float:
    n = ranked.within(k)
    return _total(ranked.found[:n] / ranked.ranks[:n])


@register("AP", "average precision: the sum of precision at each relevant rank within k, over R", "map_cut_{k}",
          params=BINARY)
def average_precision(t: Topic, ranked: Ranked, k: int) -> float:
    return _precision_sum(ranked, k) / t.R


@register(NTCIR + "AP", "NTCIREVAL's AP@l: as AP, but over min(k, R) below the cut-off", scale="gains")
def ntcireval_average_precision(t: Topic, ranked: Ranked, k: int) -> float:
    return _precision_sum(ranked, k) / t.ntcireval_divisor(k)


@register(NTCIR + "Q", "NTCIREVAL's Q-measure: the blended ratio (beta*cg(r) + count(r)) / (beta*cg*(r) + r) at "
                       "each relevant rank, over R (Q@l: over min(k, R) below the cut-off)", scale="gains")
def q_measure(t: Topic, ranked: Ranked, k: int) -> float:
    n = ranked.within(k)
    if not n:
        return 0.0
    ranks = ranked.ranks[:n]
    cumulative = np.cumsum(ranked.gains[:ranks[-1]])[ranks - 1]
    ideal_cumulative = t.ideal_cumulative[np.minimum(ranks, t.R) - 1]  # past rank R, cg*(r) stays cg*(R)
    blended = (t.beta * cumulative + ranked.found[:n]) / (t.beta * ideal_cumulative + ranks)
    return _total(blended) / t.ntcireval_divisor(k)


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


_ms_ndcg = _normalised(_dcg(lambda rank: math.log2(rank + 1)))
register("nDCG", "normalised DCG: rank r's gain (its level) divided by log2(r + 1); ideal list cut at k",
         "ndcg_cut_{k}", params=("dcg", "gains"))(_ms_ndcg)
register(NTCIR + "nDCG", "NTCIREVAL's nDCG@l, the original form: rank r > 2 divided by log2 r; ideal list cut at k",
         scale="gains")(_normalised(_dcg(lambda rank: max(1.0, math.log2(rank)))))
register(NTCIR + "MSnDCG", "NTCIREVAL's MSnDCG@l, the Microsoft form: rank r divided by log2(r + 1); ideal cut at k",
         "ndcg_cut_{k}", scale="gains")(_ms_ndcg)


@register("P", "precision: relevant documents in the top k, over k", "P_{k}", params=BINARY)
def precision(t: Topic, ranked: Ranked, k: int) -> float:
    return ranked.within(k) / k


@register("R", "recall: relevant documents in the top k, over R", "recall_{k}", params=BINARY)
def recall(t: Topic, ranked: Ranked, k: int) -> float:
    return ranked.within(k) / t.R


@register("RR", "reciprocal rank of the first relevant document in the top k (0 when none)", "recip_rank",
          params=BINARY)
def reciprocal_rank(t: Topic, ranked: Ranked, k: int) -> float:
    return 1 / int(ranked.ranks[0]) if ranked.within(k) else 0.0


@register("Success", "1 when a relevant document is in the top k, else 0", "success_{k}", params=BINARY)
def success(t: Topic, ranked: Ranked, k: int) -> float:
    return 1.0 if ranked.within(k) else 0.0


@register("Rprec", "R-precision: relevant documents in the top R, over R", "Rprec", params=BINARY, cut=False)
def r_precision(t: Topic, ranked: Ranked, k: int) -> float:
    return ranked.within(t.R) / t.R


def _err(stop: Callable[[Topic, np.ndarray], np.ndarray]) -> Callable[[Topic, np.ndarray, np.ndarray], float]:
    """Expected reciprocal rank: the user stops at a document with probability `stop` of its gain (0
    for gain 0, so that only the relevant documents count)."""
    def err(t: Topic, gains: np.ndarray, ranks: np.ndarray) -> float:
        stopping = stop(t, gains)
        not_stopped = np.cumprod(np.concatenate(([1.0], 1 - stopping[:-1])))  # before each relevant rank
        return _total(not_stopped * stopping / ranks)
    return err


def _exp_stop(top: Callable[[Topic], float]) -> Callable[[Topic, np.ndarray], np.ndarray]:
    """Chapelle et al.'s stopping probability (2^g - 1) / 2^top."""
    return lambda t, gains: np.array([2 ** g - 1 for g in gains.tolist()]) / 2 ** top(t)


GDEVAL_TOP = 4  # gdeval (ir_measures' ERR) takes level 4 as the highest, whatever the qrels hold
_gdeval_err = _err(_exp_stop(lambda t: GDEVAL_TOP))


@register("ERR", "expected reciprocal rank of the top k, stopping probability (2^g - 1) / 2^4 (gdeval's)")
def expected_reciprocal_rank(t: Topic, ranked: Ranked, k: int) -> float:
    ranks = ranked.ranks[:ranked.within(k)]
    return _gdeval_err(t, np.minimum(ranked.looked_up[ranks - 1], GDEVAL_TOP), ranks)


register(NTCIR + "nERR", "NTCIREVAL's nERR@l: ERR of the top k (stopping probability g / (gmax + 1), gmax the "
                         "highest gain) over the ideal list's ERR", scale="gains")(
    _normalised(_err(lambda t, gains: gains / (t.max_gain + 1))))
register(SEPIA + "nERRexp", "nERR with Chapelle et al.'s stopping probability (2^g - 1) / 2^gmax, as gdeval's "
                            "ERR@k of the top k over the ideal list's", scale="gains")(
    _normalised(_err(_exp_stop(lambda t: t.max_gain))))


@register("Bpref", "binary preference: each relevant document retrieved scores 1 - min(n, R) / min(R, N), "
                   "n the judged non-relevant documents above it and N all judged non-relevant; over R", "bpref",
          params=BINARY)
def bpref(t: Topic, ranked: Ranked, k: int) -> float:
    above = np.cumsum(ranked.looked_up[:k] == 0.0)[ranked.ranks[:ranked.within(k)] - 1]
    nonrelevant = min(t.R, t.nonrelevant) or 1  # no judged non-relevant document: `above` is 0
    return _total(np.where(above > 0, 1 - np.minimum(above, t.R) / nonrelevant, 1.0)) / t.R


@register("Judged", "the share of the top k (or of the whole list when shorter) that is judged", needs_relevant=False)
def judged_share(t: Topic, ranked: Ranked, k: int) -> float:
    top = ranked.judged[:k]
    return int(np.count_nonzero(top)) / len(top) if len(top) else 0.0


@register("NumRet", "the number of documents retrieved (within the cut-off)", "num_ret", cut=False,
          needs_relevant=False, summed=True)
def retrieved(t: Topic, ranked: Ranked, k: int) -> float:
    return float(len(ranked.looked_up))


@register("NumRel", "the number of relevant documents judged (R)", "num_rel", cut=False, needs_relevant=False,
          summed=True)
def relevant(t: Topic, ranked: Ranked, k: int) -> float:
    return float(t.R)


@register("NumRelRet", "the number of relevant documents retrieved (within the cut-off)", "num_rel_ret",
          params=BINARY, cut=False, needs_relevant=False, summed=True)
def relevant_retrieved(t: Topic, ranked: Ranked, k: int) -> float:
    return float(len(ranked.ranks))


# -- names ----------------------------------------------------------------------------------------

DEFAULT = ("AP", NTCIR + "Q", NTCIR + "nDCG")  # NTCIR-8 IR4QA's official measures
_NAME = re.compile(r"^((?:[A-Za-z]+:)?[A-Za-z]+)(?:\((.*)\))?(?:@([1-9][0-9]*))?$")
_LIST_ITEM = re.compile(r"[^,\s(]+(?:\([^)]*\))?[^,\s(]*")  # a name, parameters and all, in a list


@dataclass(frozen=True)
class Name:
    """A measure's name parsed: its family (as the registry writes it), its parameters (sorted,
    those at their default left out) and its cut-off (None: the run's)."""
    family: str
    params: Params
    k: int | None

    def __str__(self) -> str:
        params = ",".join(f"{p}={_literal(v)}" for p, v in self.params)
        return self.family + (f"({params})" if params else "") + (f"@{self.k}" if self.k is not None else "")

    @property
    def measure(self) -> Measure:
        return REGISTRY[self.family]


def _literal(value: object) -> str:
    if isinstance(value, tuple):  # gains, as _checked_gains keeps them
        return "{" + ",".join(f"{k}:{_literal(v)}" for k, v in value) + "}"
    if isinstance(value, float) and value.is_integer():
        return repr(int(value))
    return repr(value)


def _families() -> dict[str, str]:
    return {f.lower(): f for f in (*REGISTRY, *ALIASES)}


@lru_cache(maxsize=None)  # looked up for every topic of every run
def parse_name(name: str) -> Name:
    """`P@10` -> P at 10; `P(rel=2)@10` with rel 2; `ntcir:nDCG@10`. Family names are
    case-insensitive; a name SEPIA used before ir_measures' names meant ir_measures' measures is a
    ValueError naming the new one."""
    text = name.strip()
    match = _NAME.match(text)
    family = _families().get(match.group(1).lower()) if match else None
    if match and family is None:
        renamed = {old.lower(): new for old, new in RENAMED.items()}.get(match.group(1).lower())
        if renamed:
            raise ValueError(f"unknown measure {name!r}: {renamed}")
    if not match or family is None:
        raise ValueError(f"unknown measure {name!r}; known: {', '.join(REGISTRY)} (each optionally @k, e.g. P@10, "
                         f"and ir_measures' parameters, e.g. P(rel=2)@10)")
    family = ALIASES.get(family, family)
    measure, k = REGISTRY[family], int(match.group(3)) if match.group(3) else None
    if k is not None and not measure.cut:
        raise ValueError(f"measure {name!r}: {family} takes no @k")
    return Name(family, _parameters(name, measure, match.group(2)), k)


def _parameters(name: str, measure: Measure, text: str | None) -> Params:
    """ir_measures' `(rel=2, dcg='exp-log2')`: each one the measure takes, checked; those at their
    default left out."""
    if text is None:
        return ()
    try:
        call = ast.parse(f"f({text})", mode="eval").body
        assert isinstance(call, ast.Call) and not call.args
        given = {kw.arg: ast.literal_eval(kw.value) for kw in call.keywords}
    except (SyntaxError, ValueError, AssertionError):
        raise ValueError(f"measure {name!r}: parameters are written NAME=VALUE, e.g. P(rel=2)@10") from None
    unknown = sorted(str(p) for p in given if p not in measure.params)
    if unknown:
        takes = ", ".join(measure.params) or "none"
        raise ValueError(f"measure {name!r}: {measure.family} takes no parameter {', '.join(unknown)} (its own: {takes})")
    checked = {p: PARAMETERS[p][1](v) for p, v in given.items() if p is not None}
    return tuple(sorted((p, v) for p, v in checked.items() if v != PARAMETERS[p][0]))


def parse_measure(name: str) -> tuple[str, int | None]:
    """`P@10` -> ("P", 10); `AP` -> ("AP", None) (see `parse_name`)."""
    parsed = parse_name(name)
    return parsed.family, parsed.k


def canonical(name: str) -> str:
    return str(parse_name(name))


def split_names(text: str) -> list[str]:
    """`"AP,P(rel=2)@10 nDCG(gains={1:1,2:3})@20"` -> each name (commas or white space between them)."""
    return _LIST_ITEM.findall(text)


def parse_measures(text: str | Sequence[str] | None) -> tuple[str, ...]:
    """`"AP,P@10 nDCG@20"` (commas or spaces, or a list) -> canonical names in order, without repeats."""
    if not text:
        return DEFAULT
    parts = split_names(text) if isinstance(text, str) else [p for t in text for p in split_names(t)]
    return tuple(dict.fromkeys(canonical(p) for p in parts))


def ndcg_note(names: Sequence[str]) -> str | None:
    """What an nDCG asked for means, since SEPIA's nDCG was NTCIREVAL's until 2026-11-28 (docs/history.md)."""
    asked = [n for n in names if parse_name(n).family == "nDCG"]
    if not asked:
        return None
    return (f"note: {asked[0]} is ir_measures' (rank r divided by log2(r + 1)); NTCIREVAL's original nDCG, which "
            f"SEPIA's nDCG was until 2026-11-28, is {NTCIR}{asked[0].split('(')[0]}")


def scale_of(name: str) -> tuple[ScaleKind, Params]:
    """What a measure's gains are: ("gains", ()) for NTCIREVAL's, ("levels", its parameters) for ir_measures'."""
    parsed = parse_name(name)
    return (parsed.measure.scale, parsed.params if parsed.measure.scale == "levels" else ())


def compute(name: str, topic: Topic, ranked: Ranked) -> float:
    """One measure of one ranked list (`topic` and `ranked` on the measure's scale); 0 for a topic
    without relevant documents, unless the measure counts without them (P, Judged, NumRet, ...)."""
    parsed = parse_name(name)
    if topic.R == 0 and parsed.measure.needs_relevant:
        return 0.0
    return float(parsed.measure.compute(topic, ranked, parsed.k or topic.cutoff))


def run_value(name: str, values: Sequence[float]) -> float:
    """A run's value of a measure from its topics': their mean, or their sum for a count (NumRet, ...)."""
    total = sum(values)
    return total if parse_name(name).measure.summed else total / len(values)


def trec_eval_name(name: str, cutoff: int) -> str | None:
    """The name trec_eval gives the same number (`P@10` -> `P_10`), where it has one."""
    parsed = parse_name(name)
    pattern = parsed.measure.trec_eval
    if not pattern or parsed.params or (parsed.k is not None and "{k}" not in pattern):
        return None
    return pattern.format(k=parsed.k or cutoff)
