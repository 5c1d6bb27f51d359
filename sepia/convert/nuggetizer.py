"""TREC RAG 2024 / nuggetizer nugget assignments (JSONL) -> gold standard, runs, judgments.

Each input line is one JSON object: `qid`, `query`, `run_id`, `answer_text` and `nuggets`, a list of
`{text, importance: vital|okay, assignment: support|partial_support|not_support}`; every record of a
qid carries the same nugget list, assigned against that record's answer. `response_length` (TREC's
word count) is not used: SEPIA measures lengths itself.

Output: one gold standard (one vote per nugget by the assessor `trec`: vital or not), one CCLQA run
per run ID with the whole answer as its only SR, the assignments as human judgments (`support` is
match 1, `not_support` 0, `partial_support` 0.5 as TREC RAG counts it, or 0 or 1 with `partial`),
the topics, and two TSVs that map the original qids and run IDs to SEPIA's IDs.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from sepia.formats.errors import FormatError, Problem
from sepia.formats.jsonlines import json_lines
from sepia.formats.judgments import judgments_to_tsv
from sepia.formats.model import (Answer, CCLQARun, CCLQATopic, GoldNugget, GoldStandard, GoldTopic, Judgment,
                                 LangText, Metadata, Topic, TopicSet)
from sepia.formats.write import to_xml
from sepia.scoring.weights import nugget_weights

ASSESSOR = "trec"
LANG = "EN"
ANSWER_TYPE = "OTHER"
IMPORTANCES = ("vital", "okay")
ASSIGNMENTS = ("support", "partial_support", "not_support")
FIELDS = {"qid": str, "query": str, "run_id": str, "answer_text": str, "nuggets": list}
PREFIX_RE = re.compile(r"[A-Za-z0-9]+")
QID_RE = re.compile(r"([A-Za-z0-9]+)-([0-9]+)")  # 2024-142395 -> RAG2024-EN-142395
# Characters XML 1.0 cannot carry (lxml refuses to write them).
NOT_XML_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


class OutputExists(Exception):
    """The output directory holds files and --force was not given."""


@dataclass
class _Record:
    line: int
    qid: str
    query: str
    run_id: str
    answer_text: str
    nuggets: list[tuple[str, str, str]]  # (text, importance, assignment)


@dataclass
class Conversion:
    topics: TopicSet
    gold: GoldStandard
    runs: list[CCLQARun]
    judgments: list[Judgment]
    topic_ids: dict[str, str]  # original qid -> SEPIA topic ID
    run_ids: dict[str, str]  # original run ID -> SEPIA run ID
    partial: float  # the match value written for partial_support (0.5, or the strict ends 0 and 1)
    partial_count: int  # how many assignments were partial_support
    warnings: list[str] = field(default_factory=list)

    def files(self) -> dict[str, bytes]:
        """Every output file by its path relative to the output directory."""
        files = {
            "topics.xml": to_xml(self.topics),
            "gold.xml": to_xml(self.gold),
            "judgments.tsv": judgments_to_tsv(self.judgments).encode("utf-8"),
            "topics.tsv": mapping_tsv(("qid", "topic_id"), self.topic_ids.items()),
            "runs.tsv": mapping_tsv(("original_run_id", "run_id"), self.run_ids.items()),
        }
        for run in self.runs:
            files[f"runs/{run.run_id}.xml"] = to_xml(run)
        return files


def convert_nuggetizer(path: str | Path, partial: float = 0.5, prefix: str = "RAG",
                       year: str | None = None) -> Conversion:
    """Read and check the whole file, then build every output; raises FormatError listing all problems.

    `partial` is the match value of a partial_support: 0.5 (TREC RAG's half credit), or 0 (strict) or 1.
    `year` names the year of qids made of digits only (see `sepia_topic_ids`)."""
    if partial not in (0, 0.5, 1):
        raise ValueError(f"partial must be 0, 0.5 or 1, got {partial!r}")
    check_id_parts(prefix, year)
    records = _read(Path(path))
    topic_ids = sepia_topic_ids([r.qid for r in records], prefix, year)
    run_ids = _run_ids([r.run_id for r in records])
    warnings = numbered_warnings(topic_ids, prefix)
    warnings += [f"run {original!r} becomes {sepia_id} (another run sanitises to the same name)"
                 for original, sepia_id in run_ids.items() if sepia_id != _team(original) + "-EN-EN-01-T"]

    first: dict[str, _Record] = {}  # qid -> its first record, which defines the topic
    for record in records:
        first.setdefault(record.qid, record)
    gold_topics = [_gold_topic(topic_ids[qid], record, warnings) for qid, record in first.items()]
    nugget_ids = {qid: [n.nugget_id for n in topic.nuggets] for qid, topic in zip(first, gold_topics)}

    answers: dict[str, dict[str, str]] = {original: {} for original in run_ids}
    judgments = []
    for record in records:
        answers[record.run_id][record.qid] = record.answer_text
        for nugget_id, (_, _, assignment) in zip(nugget_ids[record.qid], record.nuggets):
            match = {"support": 1.0, "partial_support": float(partial)}.get(assignment, 0.0)
            judgments.append(Judgment(topic_ids[record.qid], run_ids[record.run_id], 1, nugget_id, match, ASSESSOR))
    runs = [CCLQARun(Metadata(run_ids[original], original), [
        CCLQATopic(topic_ids[qid], [Answer(1, answered[qid])]) for qid in first if qid in answered])
        for original, answered in answers.items()]

    topics = TopicSet([Topic(topic_ids[qid], [LangText(LANG, r.query)], answer_type=ANSWER_TYPE, status="completed")
                       for qid, r in first.items()], LANG)
    partial_count = sum(1 for r in records for n in r.nuggets if n[2] == "partial_support")
    return Conversion(topics, GoldStandard(LANG, gold_topics), runs, judgments, topic_ids, run_ids,
                      float(partial), partial_count, warnings)


def _gold_topic(topic_id: str, record: _Record, warnings: list[str]) -> GoldTopic:
    """Nuggets N01, N02, ... with one vote each by `trec` and their pyramid weights."""
    width = max(2, len(str(len(record.nuggets))))
    nuggets = [GoldNugget(f"N{i:0{width}d}", text, votes=[(ASSESSOR, importance == "vital")])
               for i, (text, importance, _) in enumerate(record.nuggets, start=1)]
    weights, notes = nugget_weights(nuggets, "pyramid")
    for nugget, weight in zip(nuggets, weights):
        nugget.weight = weight
    warnings += [f"topic {topic_id} (qid {record.qid}): {note}" for note in notes]
    return GoldTopic(topic_id, ANSWER_TYPE, [LangText(LANG, record.query)], nuggets)


# ---------------------------------------------------------------- IDs

def check_id_parts(prefix: str, year: str | None) -> None:
    if not PREFIX_RE.fullmatch(prefix):
        raise ValueError(f"topic ID prefix {prefix!r} must be letters and digits only")
    if year is not None and not PREFIX_RE.fullmatch(year):
        raise ValueError(f"year {year!r} must be letters and digits only")


def numbered_warnings(topic_ids: dict[str, str], prefix: str) -> list[str]:
    """One warning per qid that got a running number instead of an ID made from the qid."""
    return [f"qid {qid!r} is not of the form LETTERS_OR_DIGITS-DIGITS; its topic ID is {tid}"
            for qid, tid in topic_ids.items() if tid.startswith(f"{prefix}-{LANG}-")]


def sepia_topic_ids(qids: list[str], prefix: str, year: str | None = None) -> dict[str, str]:
    """`2024-142395` -> `RAG2024-EN-142395`; with `year` 2025 a qid of digits only is read as
    `2025-<qid>` (TREC RAG 2025 numbers its topics 1, 2, ...); any other qid gets `RAG-EN-0001`,
    `RAG-EN-0002`, ...

    The two kinds cannot collide: a converted ID always has something after the prefix before its
    first dash, a numbered one has nothing."""
    mapping: dict[str, str] = {}
    numbered = 0
    for qid in dict.fromkeys(qids):
        m = QID_RE.fullmatch(f"{year}-{qid}" if year and qid.isascii() and qid.isdigit() else qid)
        if m:
            mapping[qid] = f"{prefix}{m[1]}-{LANG}-{m[2]}"
        else:
            numbered += 1
            mapping[qid] = f"{prefix}-{LANG}-{numbered:04d}"
    return mapping


def _team(run_id: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", run_id)


def _run_ids(originals: list[str]) -> dict[str, str]:
    """TEAM-EN-EN-01-T with TEAM the sanitised original; _2, _3, ... when two originals sanitise alike."""
    mapping: dict[str, str] = {}
    used: set[str] = set()
    for original in dict.fromkeys(originals):
        team = candidate = _team(original)
        n = 1
        while candidate in used:
            n += 1
            candidate = f"{team}_{n}"
        used.add(candidate)
        mapping[original] = f"{candidate}-{LANG}-{LANG}-01-T"
    return mapping


# ---------------------------------------------------------------- reading and checking

def json_kind(value) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "a list"}.get(
        type(value), "an object")


def _read(path: Path) -> list[_Record]:
    name = str(path)
    problems: list[Problem] = []
    records: list[_Record] = []
    for number, obj in json_lines(path, problems):
        record = _record(obj, name, number, problems)
        if record is not None:
            records.append(record)
    if not records and not problems:
        problems.append(Problem(name, 1, 1, "no records: expected one JSON object a line"))
    problems += _consistency(records, name)
    if problems:
        raise FormatError(problems)
    return records


def _record(obj, name: str, number: int, problems: list[Problem]) -> _Record | None:
    """Check one line's object; report every problem it has."""
    found: list[Problem] = []

    def problem(where, message: str) -> None:
        found.append(Problem(name, number, getattr(where, "column", 1), message))

    if not isinstance(obj, dict):
        problem(None, f"expected a JSON object, got {json_kind(obj)}")
        problems += found
        return None
    for key, kind in FIELDS.items():
        if key not in obj:
            problem(obj, f"missing field {key!r}")
        elif not isinstance(obj[key], kind):
            problem(obj, f"field {key!r} must be {json_kind(kind())}, got {json_kind(obj[key])}")
    for key in ("qid", "run_id"):
        value = obj.get(key)
        if isinstance(value, str) and not value.strip():
            problem(obj, f"field {key!r} is empty")
        elif isinstance(value, str) and re.search(r"[\t\r\n]", value):
            problem(obj, f"field {key!r} contains a tab or line break")
    for key in ("qid", "query", "answer_text", "run_id"):  # a qid goes into topics.tsv
        bad = NOT_XML_RE.search(obj[key]) if isinstance(obj.get(key), str) else None
        if bad:
            problem(obj, f"field {key!r} contains a character XML cannot carry (U+{ord(bad[0]):04X})")
    nuggets: list[tuple] = []  # (text, importance, assignment), as checked above when nothing is found
    given = obj.get("nuggets")
    for i, nugget in enumerate(given if isinstance(given, list) else [], start=1):
        if not isinstance(nugget, dict):
            problem(obj, f"nugget {i} must be an object, got {json_kind(nugget)}")
            continue
        text, importance, assignment = (nugget.get(k) for k in ("text", "importance", "assignment"))
        for key in ("text", "importance", "assignment"):
            if key not in nugget:
                problem(nugget, f"nugget {i}: missing field {key!r}")
        if "text" in nugget and (not isinstance(text, str) or not text.strip()):
            problem(nugget, f"nugget {i}: text must be a non-empty string")
        elif isinstance(text, str) and NOT_XML_RE.search(text):
            problem(nugget, f"nugget {i}: text contains a character XML cannot carry")
        if "importance" in nugget and importance not in IMPORTANCES:
            problem(nugget, f"nugget {i}: importance must be vital or okay, got {json.dumps(importance)}")
        if "assignment" in nugget and assignment not in ASSIGNMENTS:
            problem(nugget, f"nugget {i}: assignment must be support, partial_support or not_support, "
                            f"got {json.dumps(assignment)}")
        nuggets.append((text, importance, assignment))
    if found:
        problems += found
        return None
    return _Record(number, obj["qid"], obj["query"], obj["run_id"], obj["answer_text"], nuggets)


def _consistency(records: list[_Record], name: str) -> list[Problem]:
    """Every record of a qid has the same query and nugget list; a run answers a qid once."""
    problems = []
    first: dict[str, _Record] = {}
    answered: dict[tuple[str, str], int] = {}
    for record in records:
        key = (record.qid, record.run_id)
        if key in answered:
            problems.append(Problem(name, record.line, 1, f"run {record.run_id!r} already answered qid "
                                                          f"{record.qid!r} on line {answered[key]}"))
        answered.setdefault(key, record.line)
        topic = first.setdefault(record.qid, record)
        if topic is record:
            continue
        if record.query != topic.query:
            problems.append(Problem(name, record.line, 1, f"qid {record.qid!r}: query {record.query!r} differs from "
                                                          f"{topic.query!r} on line {topic.line}"))
        difference = _nugget_difference(topic.nuggets, record.nuggets)
        if difference:
            problems.append(Problem(name, record.line, 1, f"qid {record.qid!r}: nugget list differs from the one on "
                                                          f"line {topic.line}: {difference}"))
    return problems


def _nugget_difference(expected: list[tuple], got: list[tuple]) -> str | None:
    for i, ((text, importance, _), (other_text, other_importance, _)) in enumerate(zip(expected, got), start=1):
        if text != other_text:
            return f"nugget {i} is {other_text!r}, expected {text!r}"
        if importance != other_importance:
            return f"nugget {i} ({text!r}) is {other_importance}, expected {importance}"
    if len(expected) != len(got):
        return f"{len(got)} nuggets, expected {len(expected)}"
    return None


# ---------------------------------------------------------------- writing

def mapping_tsv(header: tuple[str, str], rows) -> bytes:
    return "".join("\t".join(row) + "\n" for row in [header, *rows]).encode("utf-8")


def read_mapping(path: str | Path) -> dict[str, str]:
    """A two-column mapping TSV as written above (topics.tsv, runs.tsv), without its header:
    first column -> second; raises FormatError on a line without exactly two columns or a repeated key."""
    name = str(path)
    mapping: dict[str, str] = {}
    problems = []
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise FormatError([Problem(name, 0, 0, f"cannot read file: {exc}")]) from None
    for number, line in enumerate(lines[1:], start=2):
        cells = line.split("\t")
        if len(cells) != 2 or not all(cells):
            problems.append(Problem(name, number, 1, "expected two tab-separated columns"))
        elif cells[0] in mapping:
            problems.append(Problem(name, number, 1, f"{cells[0]!r} is mapped twice"))
        else:
            mapping[cells[0]] = cells[1]
    if problems:
        raise FormatError(problems)
    return mapping


def check_output_dir(out_dir: str | Path, force: bool = False) -> None:
    """Refuse a file, or a directory with something in it unless `force`."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise OutputExists(f"{out} exists and is not a directory")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise OutputExists(f"{out} is not empty; use --force to replace the conversion files in it")


def write_conversion(conv: Conversion, out_dir: str | Path, force: bool = False) -> Path:
    """Write every file into a staging directory next to `out_dir`, then move it into place.

    A new `out_dir` is the staging directory renamed in one step. Into an existing (empty, or with
    `force` non-empty) one, each file moves in one rename and `runs/` is replaced as a whole; other
    files in it are left alone."""
    out = Path(out_dir).resolve()
    check_output_dir(out, force)
    files = conv.files()  # build everything before touching the disk
    out.parent.mkdir(parents=True, exist_ok=True)
    # mkdir, not mkdtemp: the directory may become `out` itself and should get the usual permissions.
    staging = out.parent / f".{out.name}.{secrets.token_hex(6)}.tmp"
    staging.mkdir()
    try:
        for relative, data in files.items():
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        if out.exists():
            _move_into(staging, out)
        else:
            staging.rename(out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out


def _move_into(staging: Path, out: Path) -> None:
    for entry in sorted(staging.iterdir()):
        target = out / entry.name
        if entry.is_dir() and target.is_dir():
            old = out / f".{entry.name}.{secrets.token_hex(6)}.old"
            target.rename(old)
            entry.rename(target)
            shutil.rmtree(old)
        else:
            os.replace(entry, target)
