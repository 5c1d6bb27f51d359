"""Rubric judging's two files: the organiser's rubric (TOML) and the assessors' grades (TSV).

A rubric names dimensions (correctness, completeness, ...); each is graded on a small integer scale
(0-3 unless it says otherwise, at most ten grades so that one digit key picks each) with an
anchored description for every grade, and carries a weight for the combined score
(`sepia.scoring.rubric`). The grades TSV has one line per topic, run, assessor and dimension:
`topic_id run_id assessor dimension grade` (docs/rubric.md)."""
from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass
from typing import Any

from sepia import limits
from sepia.formats.errors import FormatError, Problem, capped
from sepia.formats.judgments import check_header

NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")
DEFAULT_SCALE = (0, 3)
MAX_DIMENSIONS = 12
MAX_TEXT = 2000       # characters of a label, description or anchor
MAX_CHARS = 100_000   # of the whole rubric
KEYS = {"name", "label", "description", "weight", "scale", "anchors"}
GRADES_HEADER = ("topic_id", "run_id", "assessor", "dimension", "grade")


@dataclass(frozen=True)
class Dimension:
    name: str
    label: str
    description: str
    weight: float
    low: int
    high: int
    anchors: tuple[str, ...]   # one text per grade, from `low` up

    @property
    def grades(self) -> range:
        return range(self.low, self.high + 1)

    def anchor(self, grade: int) -> str:
        return self.anchors[grade - self.low]


@dataclass(frozen=True)
class Rubric:
    dimensions: tuple[Dimension, ...]

    def dimension(self, name: str) -> Dimension | None:
        return next((d for d in self.dimensions if d.name == name), None)

    @property
    def names(self) -> list[str]:
        return [d.name for d in self.dimensions]


@dataclass(frozen=True, order=True)
class RubricGrade:
    """One assessor's grade of one run's answer to one topic on one dimension."""
    topic_id: str
    run_id: str
    assessor: str
    dimension: str
    grade: int


class RubricError(ValueError):
    """A rubric that cannot be used; the message names the dimension and what is wrong."""


def parse_rubric(text: str) -> Rubric:
    """The rubric of a TOML text: `[[dimension]]` tables in order. RubricError says what is wrong."""
    if len(text) > MAX_CHARS:
        raise RubricError(f"the rubric has {len(text):,} characters; at most {MAX_CHARS:,} are allowed")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise RubricError(f"not TOML: {error}") from None
    extra = sorted(set(data) - {"dimension"})
    if extra:
        raise RubricError(f"unknown top-level key {extra[0]!r}; a rubric is [[dimension]] tables")
    tables = data.get("dimension")
    if not isinstance(tables, list) or not tables:
        raise RubricError("no [[dimension]] table: a rubric needs one dimension at least")
    if len(tables) > MAX_DIMENSIONS:
        raise RubricError(f"{len(tables)} dimensions; at most {MAX_DIMENSIONS} are allowed")
    dimensions = [_dimension(i, table) for i, table in enumerate(tables, start=1)]
    names = [d.name for d in dimensions]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise RubricError(f"dimension {repeated[0]!r} is defined twice")
    return Rubric(tuple(dimensions))


def _dimension(position: int, table: Any) -> Dimension:
    where = f"dimension {position}"
    if not isinstance(table, dict):
        raise RubricError(f"{where} is not a table")
    name = table.get("name")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise RubricError(f"{where}: name must be lower-case letters, digits and _ (up to 40, a letter first), "
                          f"got {name!r}")
    where = f"dimension {name!r}"
    unknown = sorted(set(table) - KEYS)
    if unknown:
        raise RubricError(f"{where}: unknown key {unknown[0]!r}; the keys are {', '.join(sorted(KEYS))}")
    scale = table.get("scale", list(DEFAULT_SCALE))
    if (not isinstance(scale, list) or len(scale) != 2 or not all(type(v) is int for v in scale)
            or not 0 <= scale[0] < scale[1] <= 9):
        raise RubricError(f"{where}: scale must be [LOW, HIGH], whole numbers with 0 <= LOW < HIGH <= 9 "
                          f"(one digit key per grade), got {scale!r}")
    low, high = scale
    weight = table.get("weight", 1)
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight) or weight <= 0:
        raise RubricError(f"{where}: weight must be a number above 0, got {weight!r}")
    anchors = table.get("anchors")
    if not isinstance(anchors, list) or len(anchors) != high - low + 1:
        raise RubricError(f"{where}: anchors must be a list of {high - low + 1} texts, one per grade from "
                          f"{low} to {high}, got {len(anchors) if isinstance(anchors, list) else repr(anchors)}")
    texts = {"label": table.get("label", name.replace("_", " ").capitalize()),
             "description": table.get("description", ""),
             **{f"anchor of grade {low + i}": a for i, a in enumerate(anchors)}}
    for key, value in texts.items():
        if not isinstance(value, str) or len(value) > MAX_TEXT or (key != "description" and not value.strip()):
            raise RubricError(f"{where}: the {key} must be a text of 1 to {MAX_TEXT} characters")
    return Dimension(name, texts["label"].strip(), texts["description"].strip(), float(weight), low, high,
                     tuple(a.strip() for a in anchors))


# ---------------------------------------------------------------- the grades TSV

_LENGTHS = {"topic_id": limits.TOPIC_ID, "run_id": limits.RUN_ID, "assessor": limits.ASSESSOR}


def parse_grades(text: str, rubric: Rubric, name: str = "<input>") -> list[RubricGrade]:
    """Every line checked against RUBRIC (a known dimension, a grade on its scale, each topic, run,
    assessor and dimension once); FormatError lists every bad line as PATH:LINE:COLUMN."""
    lines = text.splitlines()
    check_header(lines[0] if lines else None, not text.strip(), name, GRADES_HEADER)
    problems: list[Problem] = []
    grades: list[RubricGrade] = []
    seen: dict[tuple[str, str, str, str], int] = {}
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split("\t")]
        problem = _grade_problem(fields, rubric)
        if problem is not None:
            column, message = problem
            problems.append(Problem(name, number, column, message))
            continue
        topic_id, run_id, assessor, dimension, grade = fields
        key = (topic_id, run_id, assessor, dimension)
        if key in seen:
            problems.append(Problem(name, number, 1, f"{assessor} already graded {dimension} of run {run_id} on "
                                                     f"topic {topic_id} on line {seen[key]}"))
            continue
        seen[key] = number
        grades.append(RubricGrade(topic_id, run_id, assessor, dimension, int(grade)))
    if problems:
        raise FormatError(capped(problems))
    return grades


def _grade_problem(fields: list[str], rubric: Rubric) -> tuple[int, str] | None:
    """(column, message) of a line's first problem, None for a good line."""
    if len(fields) != len(GRADES_HEADER):
        return 1, f"expected {len(GRADES_HEADER)} tab-separated fields ({' '.join(GRADES_HEADER)}), got {len(fields)}"
    for column, longest in _LENGTHS.items():
        value = fields[GRADES_HEADER.index(column)]
        if not value or len(value) > longest:
            return GRADES_HEADER.index(column) + 1, f"{column} must have 1 to {longest} characters"
    dimension = rubric.dimension(fields[3])
    if dimension is None:
        return 4, f"no dimension {fields[3]!r} in the rubric; its dimensions are {', '.join(rubric.names)}"
    grade = fields[4]
    if not grade.isascii() or not grade.isdigit() or int(grade) not in dimension.grades:
        return 5, f"grade {grade!r} is not on the {dimension.name} scale {dimension.low}-{dimension.high}"
    return None


def grades_tsv(grades: list[RubricGrade]) -> str:
    """The grades TSV, sorted, with its header."""
    rows = ["\t".join(GRADES_HEADER)]
    rows += [f"{g.topic_id}\t{g.run_id}\t{g.assessor}\t{g.dimension}\t{g.grade}" for g in sorted(grades)]
    return "\n".join(rows) + "\n"
