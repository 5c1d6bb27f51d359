"""The human nugget judgments TSV: `topic_id run_id answer_rank nugget_id match assessor`."""
from __future__ import annotations

import re
from itertools import accumulate
from pathlib import Path
from typing import Iterable, Iterator

from sepia import limits, vocab
from sepia.formats.compressed import compressed_problem
from sepia.formats.errors import MAX_PROBLEMS, FormatError, Problem, capped
from sepia.formats.model import GoldStandard, Judgment

HEADER = ("topic_id", "run_id", "answer_rank", "nugget_id", "match", "assessor")
# The longest value each text field may have: what the store can hold.
LENGTHS = {0: limits.TOPIC_ID, 1: limits.RUN_ID, 3: limits.NUGGET_ID, 5: limits.ASSESSOR}
RANK = re.compile(r"0*[1-9][0-9]{0,9}")  # ASCII digits, few enough for int() and the store
# match: 1 (the answer contains the nugget), 0 (it does not) or 0.5 (partial support, as TREC RAG judges).
MATCH_VALUES = {"1": 1.0, "0": 0.0, "0.5": 0.5}
# Citation support: does the cited document support the answer sentence? 1 full, 0.5 partial, 0 none.
SUPPORT_HEADER = ("topic_id", "run_id", "answer_rank", "docid", "support", "assessor")
LABELS = {"nugget_id": "nugget ID", "docid": "DOCID"}


def parse_judgments(text: str, name: str = "<input>", header: tuple[str, ...] = HEADER) -> list[Judgment]:
    """Parse the TSV, reporting every bad line (PATH:LINE:COLUMN) before giving up. `header` names the
    columns of a TSV of the same shape judging something else in the fourth column (citation support:
    SUPPORT_HEADER); its judgments carry that in `nugget_id`."""
    lines = text.splitlines()
    check_header(lines[0] if lines else None, not text.strip(), name, header)
    problems: list[Problem] = []
    judgments: list[Judgment] = []
    seen: dict[tuple, int] = {}
    for number, (topic_id, run_id, rank, nugget_id, match, assessor) in judgment_rows(
            enumerate(lines[1:], start=2), name, problems, header):
        key = (topic_id, run_id, rank, nugget_id, assessor)
        if key in seen:
            problems.append(duplicate(name, number, seen[key]))
            continue
        seen[key] = number
        judgments.append(Judgment(topic_id, run_id, rank, nugget_id, match, assessor))
    if problems:
        raise FormatError(capped(problems))
    return judgments


def check_header(first_line: str | None, blank: bool, name: str, header: tuple[str, ...] = HEADER) -> None:
    """Raise the file's one problem when it is empty (`blank`: nothing but white space) or its first
    line is not `header`."""
    if first_line is None or blank:
        raise FormatError([Problem(name, 1, 1, "file is empty; expected the header line " + "\t".join(header))])
    found = tuple(h.strip() for h in first_line.lstrip("\ufeff").split("\t"))
    if found != header:
        raise FormatError([Problem(name, 1, 1, "header must be " + " ".join(header) + " (tab-separated), got "
                                   + " ".join(found))])


def duplicate(name: str, number: int, first: int) -> Problem:
    return Problem(name, number, 1, f"same judgment already given on line {first}")


Row = tuple[str, str, int, str, float, str]  # topic_id, run_id, answer_rank, nugget_id, match, assessor


def judgment_rows(numbered_lines: Iterable[tuple[int, str]], name: str, problems: list[Problem],
                  header: tuple[str, ...] = HEADER) -> Iterator[tuple[int, Row]]:
    """Each well-formed line after the header as (line number, row); a bad line's problems go to
    `problems`, blank lines are skipped, duplicates are the caller's to find. A value already
    accepted in its column is not checked again, and the rows share one string for it."""
    known: list[dict] = [{}, {}, {}, {}, dict(MATCH_VALUES), {}]  # accepted value -> its row value, per column
    topics, runs, ranks, nuggets, matches, assessors = known
    for number, line in numbered_lines:
        fields = line.split("\t")
        if len(fields) == len(HEADER):
            topic_id, run_id, rank, nugget_id, match, assessor = map(str.strip, fields)
            row: tuple = (topics.get(topic_id), runs.get(run_id), ranks.get(rank), nuggets.get(nugget_id),
                   matches.get(match), assessors.get(assessor))
            if None not in row:  # every value already accepted: a Row
                yield number, row
                continue
        if not line.strip():
            continue
        found = line_problems(name, number, fields, header)
        if found:
            problems += found
            continue
        values = [f.strip() for f in fields]
        for column, value in enumerate(values):
            known[column].setdefault(value, int(value) if column == 2 else value)
        yield number, tuple(known[column][value] for column, value in enumerate(values))


def line_problems(name: str, number: int, fields: list[str], header: tuple[str, ...] = HEADER) -> list[Problem]:
    """Everything wrong with one non-blank line, each at its field's column."""
    if len(fields) != len(HEADER):
        return [Problem(name, number, 1, f"expected {len(HEADER)} tab-separated fields, got {len(fields)}")]
    values = [f.strip() for f in fields]
    topic_id, run_id, rank, nugget_id, match, assessor = values
    column = list(accumulate((len(f) + 1 for f in fields), initial=1))  # 1-based column of each field
    problems = []
    if vocab.topic_language(topic_id) is None:
        problems.append(Problem(name, number, column[0], f"topic ID {topic_id!r} is not well formed"))
    if not run_id:
        problems.append(Problem(name, number, column[1], "run ID is empty"))
    if not RANK.fullmatch(rank) or int(rank) > limits.INTEGER:
        problems.append(Problem(name, number, column[2], f"answer_rank must be a positive integer up to "
                                                         f"{limits.INTEGER}, got {rank!r}"))
    if not nugget_id:
        problems.append(Problem(name, number, column[3], f"{LABELS.get(header[3], header[3])} is empty"))
    if match not in MATCH_VALUES:
        problems.append(Problem(name, number, column[4], f"{header[4]} must be 1, 0 or 0.5, got {match!r}"))
    if not assessor:
        problems.append(Problem(name, number, column[5], "assessor is empty"))
    for i, limit in (LENGTHS | {3: limits.DOCID} if header[3] == "docid" else LENGTHS).items():
        if too_long := limits.too_long(header[i], values[i], limit):
            problems.append(Problem(name, number, column[i], too_long))
    return problems


def read_judgments(path: str | Path, header: tuple[str, ...] = HEADER) -> list[Judgment]:
    name = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise FormatError([Problem(name, 0, 0, f"cannot read file: {exc.strerror or exc}")]) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FormatError([compressed_problem(name, data[:8]) or
                           Problem(name, line, 1, "invalid UTF-8: judgments files are UTF-8")]) from None
    return parse_judgments(text, name, header)


def numbered_lines(path: str | Path, name: str) -> Iterator[tuple[int, str]]:
    """The file's lines as str.splitlines cuts its decoded text, numbered from 1, read a line at a
    time; the first invalid UTF-8 raises FormatError at its line, as read_judgments reports it."""
    try:
        handle = open(path, "rb")
    except OSError as exc:
        raise FormatError([Problem(name, 0, 0, f"cannot read file: {exc.strerror or exc}")]) from None
    number = 0
    with handle:
        for raw_number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise FormatError([(raw_number == 1 and compressed_problem(name, raw[:8])) or
                                   Problem(name, raw_number, 1, "invalid UTF-8: judgments files are UTF-8")]) from None
            for line in text.splitlines():  # a chunk ends at "\n", so its pieces are the whole text's
                number += 1
                yield number, line


def lines_after_header(path: str | Path, name: str) -> Iterator[tuple[int, str]]:
    """The numbered lines after the header, read a line at a time once the header is checked."""
    lines = numbered_lines(path, name)
    first = next(lines, (1, None))[1]
    try:
        check_header(first, first is None, name)
    except FormatError:
        # read to the end first: read_judgments reports invalid UTF-8 anywhere before the header
        rest_blank = sum(1 for _, line in lines if line.strip()) == 0
        check_header(first, not (first or "").strip() and rest_blank, name)
    return lines


class BoundedProblems(list[Problem]):
    """Problems of a file read a line at a time, in file order: the first MAX_PROBLEMS + 1 kept (all
    that `capped` shows), the rest only counted in `total`."""
    total = 0

    def __iadd__(self, found: Iterable[Problem]) -> BoundedProblems:  # type: ignore[override,misc]
        found = list(found)
        self.total += len(found)
        return super().__iadd__(found[:MAX_PROBLEMS + 1 - len(self)])


def stream_judgments(path: str | Path, problems: BoundedProblems) -> Iterator[tuple[int, Judgment]]:
    """The file's judgments with their line numbers, read and checked a line at a time (an import of
    any size holds one line); each bad line's problems go to `problems`. Duplicates are the caller's
    to find (the store finds them in SQL). An unreadable file, a bad header or invalid UTF-8 raises
    FormatError, as read_judgments does."""
    name = str(path)
    for number, row in judgment_rows(lines_after_header(path, name), name, problems):
        yield number, Judgment(*row)


def judgments_to_tsv(judgments: Iterable[Judgment], header: tuple[str, ...] = HEADER) -> str:
    rows = ["\t".join(header)]
    rows += ["\t".join((j.topic_id, j.run_id, str(j.answer_rank), j.nugget_id, format_match(j.match), j.assessor))
             for j in judgments]
    return "\n".join(rows) + "\n"


def format_match(value: float) -> str:
    """1, 0 or 0.5, as the TSV writes them."""
    return "0.5" if value == 0.5 else str(int(value))


def unknown_nuggets(pairs: Iterable[tuple[str, str]], gold: GoldStandard) -> list[tuple[str, str]]:
    """The (topic, nugget) pairs judged that the gold standard lacks, in first-seen order."""
    known = {(t.topic_id, n.nugget_id) for t in gold.topics for n in t.nuggets}
    return list(dict.fromkeys(pair for pair in pairs if pair not in known))


def unknown_nugget_warnings(path: str | Path, gold: GoldStandard, gold_name: str) -> list[Problem]:
    """One warning per line of a valid judgments file whose nugget the gold standard lacks, pointing
    at its nugget_id (`sepia validate J.tsv --gold G.xml`)."""
    known = {(t.topic_id, n.nugget_id) for t in gold.topics for n in t.nuggets}
    topics = {t.topic_id for t in gold.topics}
    warnings = []
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != len(HEADER):
            continue
        topic_id, nugget_id = fields[0].strip(), fields[3].strip()
        if (topic_id, nugget_id) in known:
            continue
        column = sum(len(f) + 1 for f in fields[:3]) + 1
        what = (f"topic {topic_id} has no nugget {nugget_id}" if topic_id in topics
                else f"topic {topic_id} (nugget {nugget_id}) is not")
        warnings.append(Problem(str(path), number, column, f"{what} in the gold standard {gold_name}", "warning"))
    return capped(warnings, "warnings")
