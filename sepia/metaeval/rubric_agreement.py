"""Assessor agreement on rubric grades, per dimension, and the answers they dispute.

A unit is one run's answer to one topic on one dimension; units graded by two or more assessors can
agree or not. Per dimension:
- exact and within-one: the share of pairs of grades on the same unit that are equal, and that
  differ by one grade at most;
- Krippendorff's alpha at the interval level over all assessors (the grades are numbers on a scale);
- Cohen's kappa for every pair of assessors over the units both graded, weighted linearly and
  quadratically in the distance between grades (the labels are the dimension's whole scale, so a
  grade nobody gave still counts as a step);
- disputes: units whose highest and lowest grade differ by more than `tolerance` grades.
And over the weighted score (each assessor's own, of the answers they graded on every dimension):
Krippendorff's alpha, interval.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations
from typing import Iterable, Mapping, Sequence

import numpy as np

from sepia.formats.rubric import Rubric, RubricGrade
from sepia.metaeval.agreement import krippendorff_alpha
from sepia.metaeval.assessors import cohen_kappa
from sepia.scoring.rubric import assessor_scores

TOLERANCE = 1  # grades two assessors may differ by before the unit is a dispute


@dataclass(frozen=True)
class DimensionAgreement:
    dimension: str
    units: int           # units with two or more grades
    grades: int          # grades on those units
    assessors: int
    exact: float         # share of pairs of grades that are equal
    within_one: float    # share of pairs that differ by one grade at most
    alpha: float         # Krippendorff's alpha, interval
    disputes: int

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class PairKappa:
    dimension: str
    first: str
    second: str
    units: int
    linear: float
    quadratic: float

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Dispute:
    dimension: str
    topic_id: str
    run_id: str
    grades: tuple[tuple[str, int], ...]   # (assessor, grade), by assessor
    spread: int                           # highest grade - lowest

    def as_dict(self) -> dict:
        return {**self.__dict__, "grades": dict(self.grades)}


Units = Mapping[str, Mapping[tuple[str, str], Mapping[str, int]]]  # as units() gives them


def units(grades: Iterable[RubricGrade]) -> dict[str, dict[tuple[str, str], dict[str, int]]]:
    """dimension -> (topic, run) -> assessor -> grade."""
    out: dict[str, dict[tuple[str, str], dict[str, int]]] = defaultdict(lambda: defaultdict(dict))
    for g in grades:
        out[g.dimension][g.topic_id, g.run_id][g.assessor] = g.grade
    return out


def _reliability(units: Sequence[Mapping[str, float]]) -> np.ndarray:
    """Krippendorff's reliability data: assessors x units, NaN where an assessor gave nothing."""
    assessors = sorted({a for given in units for a in given})
    return np.array([[given.get(a, np.nan) for given in units] for a in assessors], float).reshape(len(assessors), -1)


def _alpha(units: Sequence[Mapping[str, float]]) -> float:
    return krippendorff_alpha(_reliability(units), "interval") if units else float("nan")


@dataclass(frozen=True)
class ScoreAgreement:
    units: int     # answers two or more assessors graded on every dimension
    alpha: float   # Krippendorff's alpha, interval, over the assessors' own weighted scores


def score_agreement(rubric: Rubric, grades: Sequence[RubricGrade]) -> ScoreAgreement:
    answers: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for topic, run, assessor, score in assessor_scores(rubric, grades):
        answers[topic, run][assessor] = score
    shared = [given for given in answers.values() if len(given) >= 2]
    return ScoreAgreement(len(shared), _alpha(shared))


def _pair_shares(shared: Sequence[Mapping[str, int]]) -> tuple[float, float]:
    pairs = [abs(a - b) for unit in shared for a, b in combinations(unit.values(), 2)]
    if not pairs:
        return float("nan"), float("nan")
    return sum(d == 0 for d in pairs) / len(pairs), sum(d <= 1 for d in pairs) / len(pairs)


@dataclass(frozen=True)
class RubricAgreement:
    dimensions: list[DimensionAgreement]   # one row per dimension of the rubric, in its order
    score: ScoreAgreement
    pairs: list[PairKappa]
    disputes: list[Dispute]                # the widest spread first


def agreement(rubric: Rubric, grades: Sequence[RubricGrade], tolerance: int = TOLERANCE) -> RubricAgreement:
    """The whole report: the grades grouped into units once, the disputes found once (and counted per dimension)."""
    by_dimension = units(grades)
    found = _disputes(rubric, by_dimension, tolerance)
    return RubricAgreement(_dimension_rows(rubric, by_dimension, found), score_agreement(rubric, grades),
                           _pair_kappas(rubric, by_dimension), found)


def _disputes(rubric: Rubric, by_dimension: Units, tolerance: int) -> list[Dispute]:
    """Units whose grades differ by more than TOLERANCE, the widest spread first."""
    found = []
    for dimension, answers in by_dimension.items():
        for (topic_id, run_id), given in answers.items():
            spread = max(given.values()) - min(given.values())
            if len(given) >= 2 and spread > tolerance:
                found.append(Dispute(dimension, topic_id, run_id, tuple(sorted(given.items())), spread))
    order = {name: i for i, name in enumerate(rubric.names)}
    return sorted(found, key=lambda d: (-d.spread, order.get(d.dimension, len(order)), d.topic_id, d.run_id))


def _dimension_rows(rubric: Rubric, by_dimension: Units, found: Sequence[Dispute]) -> list[DimensionAgreement]:
    disputed: dict[str, int] = defaultdict(int)
    for d in found:
        disputed[d.dimension] += 1
    rows = []
    for dimension in rubric.dimensions:
        shared = [given for given in by_dimension.get(dimension.name, {}).values() if len(given) >= 2]
        exact, within = _pair_shares(shared)
        rows.append(DimensionAgreement(dimension.name, len(shared), sum(map(len, shared)),
                                       len({a for given in shared for a in given}), exact, within,
                                       _alpha(shared), disputed[dimension.name]))
    return rows


def _pair_kappas(rubric: Rubric, by_dimension: Units) -> list[PairKappa]:
    """Cohen's weighted kappa of every pair of assessors on every dimension, over the units both graded."""
    rows = []
    for dimension in rubric.dimensions:
        answers = by_dimension.get(dimension.name, {})
        labels = list(dimension.grades)
        for first, second in combinations(sorted({a for given in answers.values() for a in given}), 2):
            both = [(given[first], given[second]) for given in answers.values() if first in given and second in given]
            if not both:
                continue
            a, b = [x for x, _ in both], [y for _, y in both]
            rows.append(PairKappa(dimension.name, first, second, len(both), cohen_kappa(a, b, labels, "linear"),
                                  cohen_kappa(a, b, labels, "quadratic")))
    return rows
