"""The judgments TSV read faster: `parse_judgments` (a Judgment per line) and `read_decisions` (the
compact form human scoring uses, read a line at a time) give exactly what the parser before them gave,
kept here as the oracle, on the sample campaign and on random files full of defects (the same
judgments, or the same problems at the same lines and columns), and `sepia evaluate --matcher human`
prints the same bytes as scoring from Judgment objects."""
from __future__ import annotations

import random
import re
from itertools import accumulate
from pathlib import Path

import pytest
from click.testing import CliRunner

from sepia import limits, vocab
from sepia.cli import main
from sepia.formats.errors import FormatError, Problem, capped
from sepia.formats.judgments import HEADER, read_judgments
from sepia.formats.model import Judgment
from sepia.matchers.decisions import decide, read_decisions
from sepia.matchers.human import HumanMatcher

ROOT = Path(__file__).resolve().parents[1]
LANGS = ("cs", "ct", "ja")


# ---------------------------------------------------------------- the parser before (the oracle)

LENGTHS = {0: limits.TOPIC_ID, 1: limits.RUN_ID, 3: limits.NUGGET_ID, 5: limits.ASSESSOR}
RANK = re.compile(r"0*[1-9][0-9]{0,9}")
MATCH_VALUES = {"1": 1.0, "0": 0.0, "0.5": 0.5}


def oracle_parse(text: str, name: str) -> list[Judgment]:
    problems: list[Problem] = []
    judgments: list[Judgment] = []
    seen: dict[tuple, int] = {}
    lines = text.splitlines()
    if not lines or not text.strip():
        raise FormatError([Problem(name, 1, 1, "file is empty; expected the header line " + "\t".join(HEADER))])
    header = tuple(h.strip() for h in lines[0].lstrip("\ufeff").split("\t"))
    if header != HEADER:
        raise FormatError([Problem(name, 1, 1, "header must be " + " ".join(HEADER) + " (tab-separated), got "
                                   + " ".join(header))])
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        fields = line.split("\t")
        if len(fields) != len(HEADER):
            problems.append(Problem(name, number, 1, f"expected {len(HEADER)} tab-separated fields, got {len(fields)}"))
            continue
        values = [f.strip() for f in fields]
        topic_id, run_id, rank, nugget_id, match, assessor = values
        column = list(accumulate((len(f) + 1 for f in fields), initial=1))
        if vocab.topic_language(topic_id) is None:
            problems.append(Problem(name, number, column[0], f"topic ID {topic_id!r} is not well formed"))
        if not run_id:
            problems.append(Problem(name, number, column[1], "run ID is empty"))
        if not RANK.fullmatch(rank) or int(rank) > limits.INTEGER:
            problems.append(Problem(name, number, column[2], f"answer_rank must be a positive integer up to "
                                                             f"{limits.INTEGER}, got {rank!r}"))
        if not nugget_id:
            problems.append(Problem(name, number, column[3], "nugget ID is empty"))
        if match not in MATCH_VALUES:
            problems.append(Problem(name, number, column[4], f"match must be 1, 0 or 0.5, got {match!r}"))
        if not assessor:
            problems.append(Problem(name, number, column[5], "assessor is empty"))
        for i, limit in LENGTHS.items():
            if too_long := limits.too_long(HEADER[i], values[i], limit):
                problems.append(Problem(name, number, column[i], too_long))
        if problems and problems[-1].line == number:
            continue
        key = (topic_id, run_id, int(rank), nugget_id, assessor)
        if key in seen:
            problems.append(Problem(name, number, 1, f"same judgment already given on line {seen[key]}"))
            continue
        seen[key] = number
        judgments.append(Judgment(topic_id, run_id, int(rank), nugget_id, MATCH_VALUES[match], assessor))
    if problems:
        raise FormatError(capped(problems))
    return judgments


def oracle_read(path: Path) -> list[Judgment]:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise FormatError([Problem(str(path), line, 1, "invalid UTF-8: judgments files are UTF-8")]) from None
    return oracle_parse(text, str(path))


# ---------------------------------------------------------------- comparing

def outcome(reader, path: Path):
    """What a reader gives: its result, or the problems it raised as text."""
    try:
        return reader(path)
    except FormatError as exc:
        return [str(p) for p in exc.problems]


def canonical(decisions) -> tuple:
    return ({key: sorted(value) for key, value in decisions.by_topic.items()}, decisions.nugget_pairs,
            decisions.count)


def assert_same(path: Path) -> None:
    expected = outcome(oracle_read, path)
    assert outcome(read_judgments, path) == expected
    compact = outcome(read_decisions, path)
    if isinstance(expected, list) and expected and isinstance(expected[0], str):
        assert compact == expected
    else:
        assert canonical(compact) == canonical(decide(expected))


@pytest.mark.parametrize("lang", LANGS)
def test_sample_judgments_read_as_before(lang):
    path = ROOT / "corpora" / lang / "judgments.tsv"
    assert_same(path)
    judgments = oracle_read(path)
    assert len(read_decisions(path)) == len(judgments) > 0


# ---------------------------------------------------------------- random files with defects

GOOD = ["ACLIA2-CS-0001", "ACLIA2-JA-0002", "SEPIA-CT-0003"]
RUNS = ["RUN-CS-CS-01-T", "R2", "ＲＵＮ"]
BAD_VALUES = {0: ["", "CS-1", "ACLIA2-XX-0001", " ", "A" * 70 + "-CS-1"], 1: ["", "x" * 201],
              2: ["0", "-1", "1.0", "٣", "99999999999", "", "007"], 3: ["", "N" * 65],
              4: ["2", "1.0", "", "0.50", "yes"], 5: ["", "a" * 101]}
SEPARATORS = ["\n", "\r\n", "\r", "\u2028", "\x0c", "\x85"]


def random_line(rng: random.Random) -> str:
    fields = [rng.choice(GOOD), rng.choice(RUNS), str(rng.randint(1, 4)), f"N{rng.randint(1, 3)}",
              rng.choice(["1", "0", "0.5"]), rng.choice(["a", "b", "c"])]
    roll = rng.random()
    if roll < 0.08:
        column = rng.randrange(6)
        fields[column] = rng.choice(BAD_VALUES[column])
    elif roll < 0.11:
        fields.append("extra")
    elif roll < 0.13:
        fields = fields[:rng.randint(0, 5)]
    elif roll < 0.18:
        column = rng.randrange(6)
        fields[column] = rng.choice([" ", "\u3000"]) + fields[column] + rng.choice(["", " "])
    elif roll < 0.20:
        return rng.choice(["", "   ", "\t\t\t\t\t", "\u3000"])
    return "\t".join(fields)


def random_file(rng: random.Random, lines: int) -> bytes:
    header = "\t".join(HEADER)
    roll = rng.random()
    if roll < 0.05:
        header = rng.choice(["", " ", "topic_id\trun_id", "\ufeff" + header, " " + header.replace("\t", " \t")])
    body = [random_line(rng) for _ in range(lines)]
    text = header
    for line in body:
        text += (rng.choice(SEPARATORS) if rng.random() < 0.1 else "\n") + line
    if rng.random() < 0.5:
        text += "\n"
    data = text.encode("utf-8")
    if rng.random() < 0.05:
        cut = rng.randrange(len(data) + 1)
        data = data[:cut] + rng.choice([b"\xff", b"\xe3\x81", b"\xc0\xaf"]) + data[cut:]
    return data


@pytest.mark.parametrize("seed", range(300))
def test_random_files_read_as_before(tmp_path, seed):
    rng = random.Random(seed)
    path = tmp_path / "j.tsv"
    path.write_bytes(random_file(rng, rng.choice([0, 1, 3, 20, 120])))
    assert_same(path)


@pytest.mark.parametrize("data", [b"", b"\n\n", b" \r\n\t", "\u2028".encode(), b"topic_id\n\xff"],
                         ids=["empty", "newlines", "blank", "separator", "bad-header-then-bad-utf8"])
def test_empty_and_bad_header_files_read_as_before(tmp_path, data):
    path = tmp_path / "j.tsv"
    path.write_bytes(data)
    assert_same(path)
    assert outcome(read_decisions, path)[0].startswith(str(path))


def test_a_file_that_cannot_be_read(tmp_path):
    path = tmp_path / "missing.tsv"
    assert outcome(read_decisions, path) == outcome(read_judgments, path) == \
        [f"{path}:0:0: cannot read file: No such file or directory"]


# ---------------------------------------------------------------- scoring

def test_decisions_score_as_judgments_do():
    path = ROOT / "corpora" / "cs" / "judgments.tsv"
    judgments = oracle_read(path)
    from_list, from_file = HumanMatcher(judgments), HumanMatcher(read_decisions(path))
    assert {k: sorted(v) for k, v in from_list.by_topic.items()} == \
        {k: sorted(v) for k, v in from_file.by_topic.items()}


@pytest.mark.parametrize("output", ["table", "json"])
@pytest.mark.parametrize("lang", LANGS)
def test_evaluate_human_prints_the_same_bytes(monkeypatch, lang, output, tmp_path):
    corpus = ROOT / "corpora" / lang
    judgments = tmp_path / "j.tsv"  # one nugget the gold standard lacks: the warning must stay too
    first = (corpus / "judgments.tsv").read_text(encoding="utf-8").splitlines()[1].split("\t")
    judgments.write_text((corpus / "judgments.tsv").read_text(encoding="utf-8")
                         + "\t".join(first[:3] + ["N999"] + first[4:]) + "\n", encoding="utf-8")
    args = ["evaluate", "--gold", str(corpus / "gold.xml"), "--run", str(corpus / "runs"), "--matcher", "human",
            "--judgments", str(judgments), "--format", output]
    compact = CliRunner().invoke(main, args)
    monkeypatch.setattr("sepia.matchers.decisions.read_decisions", read_judgments)  # Judgment objects, as before
    listed = CliRunner().invoke(main, args)
    assert compact.exit_code == listed.exit_code == 0, compact.output
    assert "N999" in compact.output
    assert compact.output == listed.output


def test_decisions_keep_one_entry_per_judged_answer_and_nugget(tmp_path):
    path = tmp_path / "j.tsv"
    path.write_text("\t".join(HEADER) + "\n" + "".join(
        f"ACLIA2-CS-0001\tR\t1\tN1\t{m}\t{a}\n" for a, m in zip("abc", ["1", "0", "0.5"])), encoding="utf-8")
    decided = read_decisions(path)
    assert decided.by_topic == {("R", "ACLIA2-CS-0001"): [(1, "N1", 0.5)]}  # the upper median of 1, 0.5, 0
    assert decided.nugget_pairs == [("ACLIA2-CS-0001", "N1")] and len(decided) == 3
