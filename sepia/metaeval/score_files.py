"""Score files for `sepia metaeval scores`: any metric's scores per system and input.

Two layouts, told apart by content:
- a long TSV whose header names the columns `system`, `input`, `metric` and `value` (in any order);
  any other column (answer_type, subset, aspect, ...) is kept for grouping; several long TSVs are
  one table (the human scores in one, a metric's in another);
- `trec_eval -q` output, `measure input value` per line, one file per system: the system is the
  file's `runid` line, or the file name without its extension. The `all` rows are summaries and
  are left out (they are recomputed as means where needed).
Every bad line is reported as PATH:LINE:COLUMN.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from sepia.formats.errors import FormatError, Problem, capped

REQUIRED = ("system", "input", "metric", "value")


@dataclass(frozen=True)
class ScoreRow:
    system: str
    input: str
    metric: str
    value: float
    extra: tuple[str, ...]   # the values of ScoreTable.columns
    where: tuple[str, int]   # path, line


@dataclass
class ScoreTable:
    rows: list[ScoreRow]
    columns: list[str] = field(default_factory=list)   # grouping columns beyond the four required


def natural_key(text: str):
    """q2 before q10: digit runs compare as numbers."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", text) if part]


def _text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise FormatError([Problem(str(path), 0, 0, f"cannot read file: {exc.strerror or exc}")]) from None
    except UnicodeDecodeError:
        raise FormatError([Problem(str(path), 1, 1, "invalid UTF-8")]) from None


def _lines(text: str):
    """(line number, line) for lines with content, comments (#) left out."""
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() and not line.lstrip().startswith("#"):
            yield number, line


def _is_long_header(line: str) -> bool:
    return set(REQUIRED) <= {c.strip() for c in line.split("\t")}


def _number(text: str):
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def read_score_files(paths) -> ScoreTable:
    """One or more long TSVs, or one or more trec_eval -q files (not both)."""
    paths = [Path(p) for p in paths]
    texts = [(p, _text(p)) for p in paths]
    long = [p for p, t in texts if _is_long_header(next(_lines(t), (0, ""))[1])]
    if long and len(long) < len(paths):
        raise FormatError([Problem(str(long[0]), 1, 1, "give long TSVs (system, input, metric, value), "
                                                       "or trec_eval -q files, not several files with a mix")])
    if long:
        return _merged([parse_long_tsv(t, str(p)) for p, t in texts])
    tables = [parse_trec_eval(t, str(p)) for p, t in texts]
    owner: dict[str, str] = {}
    problems = []
    for p, table in zip(paths, tables):
        system = table.rows[0].system
        if system in owner:
            problems.append(Problem(str(p), 1, 1, f"system {system!r} is also the system of {owner[system]}"))
        owner.setdefault(system, str(p))
    if problems:
        raise FormatError(problems)
    return ScoreTable([r for t in tables for r in t.rows])


def _merged(tables: list[ScoreTable]) -> ScoreTable:
    """Several long TSVs as one (the human scores in one file, a metric's in another, say): they
    must have the same grouping columns, and no two may score the same cell with the same metric."""
    first = tables[0]
    problems = []
    seen: dict[tuple, tuple[str, int]] = {}
    for table in tables:
        if sorted(table.columns) != sorted(first.columns):
            where = table.rows[0].where[0]
            problems.append(Problem(where, 1, 1, f"grouping columns {', '.join(table.columns) or 'none'} differ from "
                                                 f"{first.rows[0].where[0]}'s ({', '.join(first.columns) or 'none'})"))
            continue
        order = [table.columns.index(c) for c in first.columns]
        for row in table.rows:
            extra = tuple(row.extra[i] for i in order)
            key = (row.system, row.input, row.metric, extra)
            if key in seen and seen[key][0] != row.where[0]:
                problems.append(Problem(*row.where, 1, f"system {row.system}, input {row.input}, metric {row.metric} "
                                                       f"already scored in {seen[key][0]} line {seen[key][1]}"))
            seen.setdefault(key, row.where)
    if problems:
        raise FormatError(capped(problems))
    if len(tables) == 1:
        return first
    return ScoreTable([ScoreRow(r.system, r.input, r.metric, r.value,
                                tuple(r.extra[t.columns.index(c)] for c in first.columns), r.where)
                       for t in tables for r in t.rows], first.columns)


def parse_long_tsv(text: str, name: str = "<input>") -> ScoreTable:
    lines = list(_lines(text))
    if not lines or not _is_long_header(lines[0][1]):
        raise FormatError([Problem(name, lines[0][0] if lines else 1, 1,
                                   "expected a header naming the columns system, input, metric and value")])
    header = [c.strip() for c in lines[0][1].split("\t")]
    repeated = sorted({c for c in header if header.count(c) > 1})
    if repeated or "" in header:
        raise FormatError([Problem(name, lines[0][0], 1, f"header columns must be named once each: "
                                                         f"{', '.join(repeated) or '(an empty name)'}")])
    index = {c: i for i, c in enumerate(header)}
    columns = [c for c in header if c not in REQUIRED]
    rows: list[ScoreRow] = []
    problems: list[Problem] = []
    seen: dict[tuple, int] = {}  # (system, input, metric, extra) -> its line
    for number, line in lines[1:]:
        fields = [f.strip() for f in line.split("\t")]
        if len(fields) != len(header):
            problems.append(Problem(name, number, 1, f"expected {len(header)} tab-separated fields as in the "
                                                     f"header, got {len(fields)}"))
            continue
        empty = [c for c in REQUIRED[:3] if not fields[index[c]]]
        if empty:
            problems.append(Problem(name, number, 1, f"empty {', '.join(empty)}"))
            continue
        raw = fields[index["value"]]
        value = _number(raw)
        if value is None:
            problems.append(Problem(name, number, line.find(raw) + 1 if raw else 1,
                                    f"value {raw!r} is not a finite number"))
            continue
        row = ScoreRow(fields[index["system"]], fields[index["input"]], fields[index["metric"]], value,
                       tuple(fields[index[c]] for c in columns), (name, number))
        key = (row.system, row.input, row.metric, row.extra)
        if key in seen:
            problems.append(Problem(name, number, 1, f"system {row.system}, input {row.input}, metric {row.metric} "
                                                     f"already scored on line {seen[key]}"))
            continue
        seen[key] = number
        rows.append(row)
    if problems:
        raise FormatError(capped(problems))
    if not rows:
        raise FormatError([Problem(name, lines[0][0], 1, "no scores below the header")])
    return ScoreTable(rows, columns)


def parse_trec_eval(text: str, name: str = "<input>") -> ScoreTable:
    """trec_eval -q output of one run."""
    system: str | None = None
    found: list[tuple[str, str, float, int]] = []
    problems: list[Problem] = []
    seen: dict[tuple[str, str], int] = {}  # (measure, input) -> its line
    for number, line in _lines(text):
        fields = line.split()
        if len(fields) != 3:
            problems.append(Problem(name, number, 1, f"expected 'measure input value' (trec_eval -q) or a long "
                                                     f"TSV header (system, input, metric, value), got {len(fields)} "
                                                     f"fields"))
            continue
        measure, topic, raw = fields
        if measure == "runid":
            system = raw
            continue
        value = _number(raw)
        if value is None:
            problems.append(Problem(name, number, line.rfind(raw) + 1, f"value {raw!r} is not a finite number"))
            continue
        if topic == "all":
            continue
        if (measure, topic) in seen:
            problems.append(Problem(name, number, 1, f"measure {measure} for input {topic} already on line "
                                                     f"{seen[measure, topic]}"))
            continue
        seen[measure, topic] = number
        found.append((measure, topic, value, number))
    if problems:
        raise FormatError(capped(problems))
    if not found:
        raise FormatError([Problem(name, 1, 1, "no per-input scores found (run trec_eval with -q)")])
    system = system or Path(name).stem
    return ScoreTable([ScoreRow(system, topic, measure, value, (), (name, number))
                       for measure, topic, value, number in found])
