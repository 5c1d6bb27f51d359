"""How far each assessor can be relied on: agreement with the adjudicated decision, pairwise Cohen's
kappa, lone dissent, items done and seconds per item; and where disputes come from (rates by topic,
answer type, language, run and assessor).

A *unit* is one decision several assessors may take: a nugget's vote (vital 1 / not 0), an item x
nugget pair of nugget matching (1, 0.5 partial support, 0), or a pooled document's relevance level.
The reserved assessor `(adjudicated)` is the organiser's decision: it is the reference of the
agreement with adjudication and is left out of every assessor-to-assessor figure.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from itertools import combinations
from statistics import median
from typing import Iterable, Mapping, Sequence

import numpy as np

from sepia import vocab
from sepia.formats.model import GoldStandard, Judgment
from sepia.scoring.adjudication import ADJUDICATED

KINDS = ("vote", "match", "relevance")
GROUPS = ("assessor", "topic", "type", "lang", "run")
# Cohen's weights: votes are nominal; a partial match and relevance levels are ordered, so a
# one-step difference is half a disagreement of two steps (linear weights).
WEIGHTS = {"vote": None, "match": "linear", "relevance": "linear"}


@dataclass
class Unit:
    kind: str
    key: tuple
    topic_id: str
    lang: str
    answer_type: str
    runs: tuple[str, ...] = ()
    values: dict[str, float] = field(default_factory=dict)  # assessor -> value, the adjudication apart
    decided: float | None = None  # the adjudicated value, if any

    def add(self, assessor: str | None, value: float) -> None:
        if assessor == ADJUDICATED:
            self.decided = float(value)
        elif assessor is not None:
            self.values[assessor] = float(value)

    @property
    def disputed(self) -> bool:
        return len(self.values) >= 2 and len(set(self.values.values())) > 1


# ---------------------------------------------------------------- units from files


def _types(gold: GoldStandard | None) -> dict[str, str]:
    return {t.topic_id: t.answer_type for t in gold.topics} if gold else {}


def _lang(topic_id: str, default: str | None) -> str:
    return vocab.topic_language(topic_id) or default or "?"


def vote_units(gold: GoldStandard) -> list[Unit]:
    """One unit per nugget with named votes (votes recorded only as counts name no assessor)."""
    units = []
    for topic in gold.topics:
        for nugget in topic.nuggets:
            unit = Unit("vote", (topic.topic_id, nugget.nugget_id), topic.topic_id,
                        _lang(topic.topic_id, gold.lang), topic.answer_type or "OTHER")
            for assessor, vital in nugget.votes or ():
                unit.add(assessor, 1.0 if vital else 0.0)
            units.append(unit)
    return units


def match_units(judgments: Iterable[Judgment], gold: GoldStandard | None = None) -> list[Unit]:
    """One unit per (topic, run, answer rank, nugget) of a judgments file."""
    types, default = _types(gold), gold.lang if gold else None
    units: dict[tuple, Unit] = {}
    for j in judgments:
        key = (j.topic_id, j.run_id, j.answer_rank, j.nugget_id)
        unit = units.get(key)
        if unit is None:
            unit = units[key] = Unit("match", key, j.topic_id, _lang(j.topic_id, default),
                                     types.get(j.topic_id) or "OTHER", (j.run_id,))
        unit.add(j.assessor, float(j.match))
    return list(units.values())


# ---------------------------------------------------------------- Cohen's kappa


def cohen_kappa(first: Sequence[float], second: Sequence[float], labels: Sequence[float] | None = None,
                weights: str | None = None) -> float:
    """Cohen's kappa of two raters over the same units; `weights` None (nominal), "linear" or
    "quadratic" in the distance between the labels' positions (as sklearn's cohen_kappa_score).
    NaN when chance alone would give total agreement (nothing to correct for)."""
    if len(first) != len(second):
        raise ValueError("both raters must rate the same units")
    labels = sorted(set(first) | set(second)) if labels is None else list(labels)
    index = {v: i for i, v in enumerate(labels)}
    k = len(labels)
    observed = np.zeros((k, k))
    for a, b in zip(first, second):
        observed[index[a], index[b]] += 1
    if not observed.sum():
        return float("nan")
    expected = np.outer(observed.sum(1), observed.sum(0)) / observed.sum()
    steps = np.abs(np.subtract.outer(np.arange(k), np.arange(k))).astype(float)
    if weights is None:
        penalty = (steps > 0).astype(float)
    elif weights == "linear":
        penalty = steps
    elif weights == "quadratic":
        penalty = steps ** 2
    else:
        raise ValueError(f"weights must be None, 'linear' or 'quadratic', not {weights!r}")
    chance = (penalty * expected).sum()
    if chance == 0:
        return float("nan")
    return float(1 - (penalty * observed).sum() / chance)


def labels_of(kind: str, units: Sequence[Unit]) -> list[float]:
    """The categories of a kind in order: votes 0, 1; matches 0, 0.5, 1; relevance every level seen
    from L0 up (a level nobody used still counts as a step between its neighbours)."""
    if kind == "vote":
        return [0.0, 1.0]
    if kind == "match":
        return [0.0, 0.5, 1.0]
    top = max((v for u in units for v in [*u.values.values(), u.decided] if v is not None), default=0)
    return [float(level) for level in range(int(top) + 1)]


@dataclass(frozen=True)
class PairKappa:
    kind: str
    first: str
    second: str
    units: int          # units both decided
    kappa: float        # Cohen's, nominal
    weighted: float     # Cohen's with the kind's weights (= kappa for votes)
    weights: str        # "none" or "linear"

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def kappa_matrix(units: Sequence[Unit]) -> list[PairKappa]:
    """Cohen's kappa of every pair of assessors over the units both decided, per kind."""
    rows = []
    for kind in KINDS:
        mine = [u for u in units if u.kind == kind]
        labels = labels_of(kind, mine)
        assessors = sorted({a for u in mine for a in u.values})
        for first, second in combinations(assessors, 2):
            both = [(u.values[first], u.values[second]) for u in mine if first in u.values and second in u.values]
            if not both:
                continue
            a, b = [x for x, _ in both], [y for _, y in both]
            weights = WEIGHTS[kind]
            nominal = cohen_kappa(a, b, labels)
            rows.append(PairKappa(kind, first, second, len(both), nominal,
                                  cohen_kappa(a, b, labels, weights) if weights else nominal, weights or "none"))
    return rows


# ---------------------------------------------------------------- per assessor


@dataclass(frozen=True)
class AssessorQuality:
    kind: str
    assessor: str
    items: int                 # units decided
    adjudicated: int           # of them, units an organiser decided
    agree_adjudicated: int     # ... where the assessor's value is the decision
    agreement_adjudicated: float
    shared: int                # units three or more assessors decided, this one among them
    lone_dissents: int         # ... where this assessor alone differs from all the others, who agree
    lone_dissent_rate: float
    median_seconds: float | None  # from the judging screen's timing, when known

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def _share(part: int, whole: int) -> float:
    return part / whole if whole else float("nan")


def assessor_quality(units: Sequence[Unit],
                     seconds: Mapping[tuple[str, str], Sequence[float]] | None = None) -> list[AssessorQuality]:
    """One row per kind and assessor. `seconds`: (kind, assessor) -> seconds spent on each item judged."""
    seconds = seconds or {}
    tally: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    for unit in units:
        crowd = len(unit.values) >= 3
        for assessor, value in unit.values.items():
            t = tally[unit.kind, assessor]
            t[0] += 1
            if unit.decided is not None:
                t[1] += 1
                t[2] += value == unit.decided
            if crowd:
                others = {v for a, v in unit.values.items() if a != assessor}
                t[3] += 1
                t[4] += len(others) == 1 and value not in others
    rows = []
    for (kind, assessor), (items, adjudicated, agree, shared, alone) in sorted(tally.items()):
        spent = seconds.get((kind, assessor))
        rows.append(AssessorQuality(kind, assessor, items, adjudicated, agree, _share(agree, adjudicated),
                                    shared, alone, _share(alone, shared), median(spent) if spent else None))
    return rows


# ---------------------------------------------------------------- where disputes come from


@dataclass(frozen=True)
class DisputeRate:
    kind: str
    by: str
    group: str
    units: int       # units two or more assessors decided
    disputed: int    # ... on which they did not all agree
    rate: float

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def _groups(unit: Unit, by: str) -> Iterable[str]:
    if by == "assessor":
        return unit.values
    if by == "run":
        return unit.runs
    return [{"topic": unit.topic_id, "type": unit.answer_type, "lang": unit.lang}[by]]


def dispute_rates(units: Sequence[Unit], by: str) -> list[DisputeRate]:
    """The share of shared units that are disputed, per kind and group (an item returned by several
    runs counts for each of them; a unit counts for every assessor who decided it); highest first."""
    if by not in GROUPS:
        raise ValueError(f"group by one of {', '.join(GROUPS)}, not {by!r}")
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for unit in units:
        if len(unit.values) < 2:
            continue
        for group in _groups(unit, by):
            c = counts[unit.kind, group]
            c[0] += 1
            c[1] += unit.disputed
    rows = [DisputeRate(kind, by, group, n, d, d / n) for (kind, group), (n, d) in counts.items()]
    return sorted(rows, key=lambda r: (KINDS.index(r.kind), -r.rate, -r.disputed, r.group))


# ---------------------------------------------------------------- accuracy on control items


def wilson_interval(successes: int, trials: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval of a proportion: sound for small counts and for 0 or all correct.
    (The standard library's normal quantile: a web page need not import scipy for it.)"""
    from statistics import NormalDist

    if trials == 0:
        return float("nan"), float("nan")
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * np.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, float(centre - half)), min(1.0, float(centre + half))
