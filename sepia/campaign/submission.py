"""Accepting a team's run: the checks `sepia validate` makes, then the campaign's rules (the team's
own run ID, an open window, the limit of runs), then the run and its exact bytes into the store."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import cast

from sqlalchemy import and_, select, update
from sqlalchemy.orm import Session

from sepia import vocab
from sepia.campaign import schedule
from sepia.formats import model
from sepia.formats.docids import unknown_docid_warnings_in_tree
from sepia.formats.errors import FormatError, Problem
from sepia.formats.registry import detect_format, named, run_kind
from sepia.formats.validate import validate_bytes
from sepia.formats.xmlsafe import parse_xml
from sepia.limits import too_large
from sepia.services.documents import missing_in
from sepia.store.bulk import fill_large_binary, large_binary
from sepia.store.exchange.runs import import_run
from sepia.store.models import Run, Submission, TaskWindow, Topic, as_utc, utcnow

IMPORTED_BY = "sepia import"  # the submitter of runs an organiser imports


class SubmissionRefused(Exception):
    """A run that was not accepted; `problems` lists every reason (file problems as LINE:COLUMN)."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


@dataclass
class Receipt:
    run_id: str
    kind: str
    language_pair: str
    priority: int
    filename: str
    submitted_at: datetime
    sha256: str
    size: int
    topics: int
    items: int
    replaced: bool
    warnings: list[str] = field(default_factory=list)
    submission_id: int | None = None  # the stored submission, once stored

    @property
    def item_name(self) -> str:
        return str(named(self.kind).items)

    def as_dict(self) -> dict:
        return {"run_id": self.run_id, "task": self.kind, "language_pair": self.language_pair,
                "priority": self.priority, "filename": self.filename,
                "submitted_at": self.submitted_at.isoformat(), "sha256": self.sha256, "bytes": self.size,
                "topics": self.topics, self.item_name.replace(" ", "_"): self.items, "replaced": self.replaced,
                "warnings": self.warnings}


def receipt_of(row: Submission) -> Receipt:
    parsed = vocab.parse_run_id(row.run_id)
    return Receipt(row.run_id, row.kind, parsed.language_pair if parsed else "?", parsed.priority if parsed else 0,
                   row.filename, row.submitted_at, row.sha256, row.size, row.topics, row.items, replaced=False,
                   submission_id=row.id)


@dataclass
class RunFacts:
    """What the campaign's rules look at: the run ID, the task and the topics, read from a valid run
    or, when the file has errors, from its XML as far as it goes."""
    run_id: str
    kind: str | None
    topic_ids: list[str]


def submit_run(session: Session, team: str | None, username: str, filename: str, data: bytes,
               max_bytes: int, now: datetime | None = None) -> Receipt:
    """Check and store one run file for `team`; the caller commits. Raises SubmissionRefused with
    every problem found in one pass: the file's (warnings included) and the campaign's rules."""
    now = now or utcnow()
    if team is None:
        raise SubmissionRefused(["Your account belongs to no team: ask an organiser to put it in one."])
    if len(data) > max_bytes:
        raise SubmissionRefused([f"The {too_large(max_bytes)}."])
    xml, notes = _run_xml(session, team, filename, data)
    missing = missing_in(session)
    run, problems = validate_bytes(xml, filename, missing=missing)
    valid = run is not None and not any(p.severity == "error" for p in problems)
    if valid and run_kind(run) is None:
        raise SubmissionRefused([f"This is a {type(run).__name__} file, not a run."])
    if valid:
        run = cast(model.QARun | model.IR4QARun | model.CCLQARun, run)  # what run_kind names
        facts: RunFacts | None = RunFacts(run.metadata.run_id, run_kind(run), [t.topic_id for t in run.topics])
    else:
        facts, more = _tree_facts(xml, filename, missing)
        problems = sorted(problems + more, key=lambda p: (p.line, p.column))
    window, refusals = _campaign_checks(session, team, facts, now) if facts else (None, [])
    if not valid or refusals or window is None:
        raise SubmissionRefused(notes + [_located(p) for p in problems] + refusals or ["The file is not valid."])
    assert facts is not None and facts.kind is not None
    replaced = _is_current(session, facts)
    stored = import_run(session, run, submitted_by=username, replace=True)
    receipt = receipt_of(keep_file(session, run, stored, window.topic_set_id, filename, data, username, now))
    receipt.replaced = replaced
    receipt.warnings = notes + [_located(p) for p in problems]
    return receipt


def _tree_facts(xml: bytes, filename: str, missing) -> tuple[RunFacts | None, list[Problem]]:
    """The facts of a run file with errors, and its unknown DOCIDs; nothing when it is not XML."""
    try:
        loaded = parse_xml(xml, filename)
        root = loaded.root
    except FormatError:
        return None, []
    run_id = (root.findtext("METADATA/RUNID") or "").strip()
    kind = detect_format(root)
    parsed = vocab.parse_run_id(run_id)
    facts = RunFacts(run_id, kind if kind in schedule.TASKS else None,
                     [t.get("ID", "") for t in root.iterfind("TOPIC") if t.get("ID")])
    return facts, unknown_docid_warnings_in_tree(loaded, parsed.target_lang if parsed else None, missing)


def _run_xml(session: Session, team: str, filename: str, data: bytes) -> tuple[bytes, list[str]]:
    """The run file's XML, and what the receipt must say of it: a TREC RAG answer file (JSON lines)
    becomes the CCLQA run it stands for."""
    from sepia.campaign import rag_upload

    if not rag_upload.is_answer_file(data):
        return data, []
    try:
        return rag_upload.answer_file_xml(session, team, filename, data)
    except FormatError as exc:
        raise SubmissionRefused([_located(p) for p in exc.problems]) from None


def import_run_file(session: Session, run, filename: str, data: bytes, replace: bool, now: datetime | None = None):
    """An organiser's import of a run file (`sepia import`, the demo): stored as a run, and its
    bytes as its team's current submission, so that it can be downloaded and its team sees its
    results as for a run the team uploaded; the windows and limits that bind teams do not apply.
    The caller commits; ImportRefused when the run is stored already and not `replace`."""
    row = import_run(session, run, submitted_by=IMPORTED_BY, replace=replace)
    set_ids = set(_topic_sets(session, [t.topic_id for t in run.topics]).values())
    keep_file(session, run, row, set_ids.pop() if len(set_ids) == 1 else None, filename, data, IMPORTED_BY,
              now or utcnow())
    return row


def keep_file(session: Session, run, stored: Run, topic_set_id: int | None, filename: str, data: bytes,
              submitted_by: str, now: datetime) -> Submission:
    """The run file's exact bytes as the current submission of its run ID (`stored`, as import_run
    stored it); an earlier one is kept, superseded (without reading its bytes)."""
    kind = stored.kind
    session.execute(update(Submission).where(_current(stored.run_id, kind)).values(superseded_at=now))
    row = Submission(run_id=stored.run_id, kind=kind, team=stored.team,
                     topic_set_id=topic_set_id, filename=filename[:255], sha256=hashlib.sha256(data).hexdigest(),
                     size=len(data), content=large_binary(session, data), topics=len(run.topics),
                     items=_items(run, kind), submitted_by=submitted_by, submitted_at=now)
    session.add(row)
    session.flush()
    fill_large_binary(session, row, "content", data)
    return row


def _current(run_id: str, kind: str):
    """Where a submission is the current one of this run."""
    return and_(Submission.run_id == run_id, Submission.kind == kind, Submission.superseded_at.is_(None))


def _located(problem) -> str:
    return f"{problem.line}:{problem.column}: {problem.message}"


def _items(run, kind: str) -> int:
    if kind == "cclqa":
        return sum(len(t.answers) for t in run.topics)
    if kind == "ir4qa":
        return sum(len(t.documents) for t in run.topics)
    return sum(len(t.answer_types) for t in run.topics)


def _campaign_checks(session: Session, team: str, facts: RunFacts, now: datetime) -> tuple[TaskWindow | None, list[str]]:
    """The campaign's rules, every one that can be checked: the team's own run ID, topics of the
    campaign and of one topic set, that set's window open, the limit of runs. Returns the window
    (None when there is none to submit to) and the rules broken."""
    refusals = []
    parsed = vocab.parse_run_id(facts.run_id)
    if parsed and parsed.team != team:
        refusals.append(f"The run ID {facts.run_id} names team {parsed.team}; you submit for team {team}. "
                        "Runs are named TEAM-SRC-TGT-NN-X.")
    window = _window(session, facts, now, refusals)
    if window is not None and parsed and not _is_current(session, facts):
        refusals += _over_limit(session, team, window, parsed.language_pair)
    return window, refusals


def _is_current(session: Session, facts: RunFacts) -> bool:
    """Whether the run ID has a current submission (an upload then replaces it)."""
    return facts.kind is not None and session.scalar(
        select(Submission.id).where(_current(facts.run_id, facts.kind))) is not None


def _window(session: Session, facts: RunFacts, now: datetime, refusals: list[str]) -> TaskWindow | None:
    """The open window of the run's topic set for its task; what is wrong goes to `refusals`."""
    sets = _topic_sets(session, facts.topic_ids)
    unknown = [t for t in facts.topic_ids if t not in sets]
    if unknown:
        shown = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        refusals.append(f"Not topics of this campaign: {shown}.")
    set_ids = set(sets.values())
    if len(set_ids) > 1 or None in set_ids or not facts.topic_ids:
        refusals.append("A run answers the topics of one topic set; this one names topics of "
                        f"{'no' if not set_ids or None in set_ids else len(set_ids)} topic set(s).")
        return None
    if not set_ids or facts.kind is None:
        return None
    window = session.scalar(select(TaskWindow).where(TaskWindow.topic_set_id == set_ids.pop(),
                                                     TaskWindow.task == facts.kind))
    label = schedule.TASK_LABELS[facts.kind]
    if window is None:
        refusals.append(f"This topic set takes no {label} runs.")
        return None
    current = schedule.phase(window, now)
    if current == schedule.UPCOMING:
        refusals.append(f"{label} submissions open at {_utc(window.opens_at)}.")
    elif current != schedule.OPEN:
        refusals.append(f"{label} submissions closed at {_utc(window.closes_at)}: the deadline has passed.")
    return window if current == schedule.OPEN else None


def stored_topics(session: Session, topic_ids) -> set[str]:
    """Which of `topic_ids` are topics of the campaign (in the store)."""
    return set(_topic_sets(session, list(topic_ids)))


def _topic_sets(session: Session, topic_ids: list[str]) -> dict[str, int | None]:
    """Topic ID -> its topic set, for the IDs that are topics of the campaign."""
    if not topic_ids:
        return {}
    return dict(session.execute(select(Topic.id, Topic.topic_set_id).where(Topic.id.in_(topic_ids))).all())


def _over_limit(session: Session, team: str, window: TaskWindow, pair: str) -> list[str]:
    current = session.scalars(select(Submission.run_id).where(
        Submission.team == team, Submission.kind == window.task, Submission.topic_set_id == window.topic_set_id,
        Submission.superseded_at.is_(None))).all()
    same_pair = [r for r in current if vocab.language_pair_of(r) == pair]
    if len(same_pair) < window.max_runs:
        return []
    return [f"Team {team} has {len(same_pair)} {schedule.TASK_LABELS[window.task]} runs for {pair} already "
            f"({', '.join(sorted(same_pair))}), the most a team may submit. To change one, upload it again "
            "with the same run ID."]


def _utc(moment: datetime) -> str:
    return as_utc(moment).strftime("%Y-%m-%d %H:%M UTC")
