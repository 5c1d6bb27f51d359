"""Rubric scores: the assessors' grades of each run's answer to a topic, weighted into one score.

An answer's grade on a dimension is the mean of its assessors' grades. Its score puts each
dimension's grade on [0, 1] (grade - LOW) / (HIGH - LOW), so scales of different lengths weigh only
by their weights, and takes the weighted mean:

    score = sum_d w_d * (g_d - low_d) / (high_d - low_d) / sum_d w_d

An answer is scored once every dimension has a grade; a run's score is the mean over its scored
topics (each topic weighs the same). One assessor's own score of an answer (for AEOLLM's layout,
one line per annotator) is the same formula over that assessor's grades alone."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Sequence

from sepia.formats.rubric import Rubric, RubricGrade

WEIGHTED = "rubric"  # the metric name of the weighted score in score files


@dataclass(frozen=True)
class AnswerScore:
    topic_id: str
    run_id: str
    assessors: int
    grades: dict[str, float]   # dimension -> the mean grade of its assessors
    score: float               # weighted, in [0, 1]


@dataclass(frozen=True)
class RunScore:
    run_id: str
    topics: int
    grades: dict[str, float]   # dimension -> mean over topics of the answers' mean grades
    score: float               # mean over topics of the answers' scores


def weighted(rubric: Rubric, grades: dict[str, float]) -> float:
    """The weighted score of one grade (or mean grade) per dimension."""
    total = sum(d.weight for d in rubric.dimensions)
    return sum(d.weight * (grades[d.name] - d.low) / (d.high - d.low) for d in rubric.dimensions) / total


def _by_answer(grades: Iterable[RubricGrade]) -> dict[tuple[str, str], list[RubricGrade]]:
    answers: dict[tuple[str, str], list[RubricGrade]] = defaultdict(list)
    for g in grades:
        answers[g.topic_id, g.run_id].append(g)
    return answers


def answer_scores(rubric: Rubric, grades: Iterable[RubricGrade]) -> tuple[list[AnswerScore], int]:
    """The scored answers, sorted by topic and run, and how many answers lack a dimension's grade."""
    scored, incomplete = [], 0
    for (topic_id, run_id), mine in sorted(_by_answer(grades).items()):
        per: dict[str, list[int]] = defaultdict(list)
        for g in mine:
            per[g.dimension].append(g.grade)
        if any(d.name not in per for d in rubric.dimensions):
            incomplete += 1
            continue
        means = {d.name: sum(per[d.name]) / len(per[d.name]) for d in rubric.dimensions}
        scored.append(AnswerScore(topic_id, run_id, len({g.assessor for g in mine}), means, weighted(rubric, means)))
    return scored, incomplete


def run_scores(rubric: Rubric, answers: Sequence[AnswerScore]) -> list[RunScore]:
    """Per run, the means over its scored topics; the best run first."""
    runs: dict[str, list[AnswerScore]] = defaultdict(list)
    for a in answers:
        runs[a.run_id].append(a)
    rows = [RunScore(run_id, len(mine), {d.name: sum(a.grades[d.name] for a in mine) / len(mine)
                                         for d in rubric.dimensions},
                     sum(a.score for a in mine) / len(mine)) for run_id, mine in runs.items()]
    return sorted(rows, key=lambda r: (-r.score, r.run_id))


def assessor_scores(rubric: Rubric, grades: Iterable[RubricGrade],
                    dimension: str | None = None) -> list[tuple[str, str, str, float]]:
    """(topic, run, assessor, score) for every answer an assessor graded on every dimension: the
    weighted score, or with `dimension` that dimension's grade."""
    own: dict[tuple[str, str, str], dict[str, float]] = defaultdict(dict)
    for g in grades:
        own[g.topic_id, g.run_id, g.assessor][g.dimension] = g.grade
    if dimension is not None:
        return [(*key, mine[dimension]) for key, mine in sorted(own.items()) if dimension in mine]
    return [(*key, weighted(rubric, mine)) for key, mine in sorted(own.items())
            if all(d.name in mine for d in rubric.dimensions)]


def metric_name(dimension: str | None) -> str:
    return WEIGHTED if dimension is None else f"{WEIGHTED}_{dimension}"


def long_tsv(rubric: Rubric, answers: Sequence[AnswerScore], dimension: str | None = None) -> str:
    """`sepia metaeval scores`'s long TSV: system (run), input (topic), metric, value."""
    metric = metric_name(dimension)
    lines = ["system\tinput\tmetric\tvalue"]
    lines += [f"{a.run_id}\t{a.topic_id}\t{metric}\t{a.score if dimension is None else a.grades[dimension]:.6g}"
              for a in answers]
    return "\n".join(lines) + "\n"


def aeollm_lines(rows: Sequence[tuple[str, str, str, float]], task: str) -> str:
    """`sepia metaeval aeollm`'s human layout, one line per assessor and answer (AEOLLM takes the
    median): taskId questionId (topic) answerId (run) score."""
    return "".join(f"{task} {topic} {run} {score:.6g}\n" for topic, run, _assessor, score in rows)
