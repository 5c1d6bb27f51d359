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
from sepia.formats.registry import named, run_kind
from sepia.formats.validate import validate_bytes
from sepia.services.documents import missing_in
from sepia.store import io
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


def submit_run(session: Session, team: str | None, username: str, filename: str, data: bytes,
               max_bytes: int, now: datetime | None = None) -> Receipt:
    """Check and store one run file for `team`; the caller commits. Raises SubmissionRefused."""
    now = now or utcnow()
    if team is None:
        raise SubmissionRefused(["Your account belongs to no team: ask an organiser to put it in one."])
    if len(data) > max_bytes:
        raise SubmissionRefused([f"The file has {len(data):,} bytes; runs of at most {max_bytes:,} bytes are accepted."])
    xml, notes = _run_xml(session, team, filename, data)
    run, problems = validate_bytes(xml, filename, missing=missing_in(session))
    errors = [p for p in problems if p.severity == "error"]
    if errors or run is None:
        raise SubmissionRefused([_located(p) for p in errors] or ["The file is not valid."])
    kind = run_kind(run)
    if kind is None:
        raise SubmissionRefused([f"This is a {type(run).__name__} file, not a run."])
    run = cast(model.QARun | model.IR4QARun | model.CCLQARun, run)  # what run_kind names
    parsed = vocab.parse_run_id(run.metadata.run_id)
    assert parsed is not None, "the checks refuse a run ID not of the form TEAM-SRC-TGT-NN-X"
    if parsed.team != team:
        raise SubmissionRefused([f"The run ID {run.metadata.run_id} names team {parsed.team}; you submit for "
                                 f"team {team}. Runs are named TEAM-SRC-TGT-NN-X."])
    window = _window(session, run, kind, now)
    replaced = session.scalar(select(Submission.id).where(_current(run.metadata.run_id, kind))) is not None
    if not replaced:
        _check_limit(session, team, kind, parsed.language_pair, window)
    stored = io.import_run(session, run, submitted_by=username, replace=True)
    receipt = receipt_of(keep_file(session, run, stored, window.topic_set_id, filename, data, username, now))
    receipt.replaced = replaced
    receipt.warnings = notes + [_located(p) for p in problems if p.severity != "error"]
    return receipt


def _run_xml(session: Session, team: str, filename: str, data: bytes) -> tuple[bytes, list[str]]:
    """The run file's XML, and what the receipt must say of it: a TREC RAG answer file (JSON lines)
    becomes the CCLQA run it stands for."""
    from sepia.campaign import rag_upload
    from sepia.formats.errors import FormatError

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
    The caller commits; io.ImportRefused when the run is stored already and not `replace`."""
    row = io.import_run(session, run, submitted_by=IMPORTED_BY, replace=replace)
    set_ids = set(_topic_sets(session, [t.topic_id for t in run.topics]).values())
    keep_file(session, run, row, set_ids.pop() if len(set_ids) == 1 else None, filename, data, IMPORTED_BY,
              now or utcnow())
    return row


def keep_file(session: Session, run, stored: Run, topic_set_id: int | None, filename: str, data: bytes,
              submitted_by: str, now: datetime) -> Submission:
    """The run file's exact bytes as the current submission of its run ID (`stored`, as io.import_run
    stored it); an earlier one is kept, superseded (without reading its bytes)."""
    kind = stored.kind
    session.execute(update(Submission).where(_current(stored.run_id, kind)).values(superseded_at=now))
    row = Submission(run_id=stored.run_id, kind=kind, team=stored.team,
                     topic_set_id=topic_set_id, filename=filename[:255], sha256=hashlib.sha256(data).hexdigest(),
                     size=len(data), content=io.large_binary(session, data), topics=len(run.topics),
                     items=_items(run, kind), submitted_by=submitted_by, submitted_at=now)
    session.add(row)
    session.flush()
    io.fill_large_binary(session, row, "content", data)
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


def _window(session: Session, run, kind: str, now: datetime) -> TaskWindow:
    """The open window of the run's topic set for its task."""
    topic_ids = [t.topic_id for t in run.topics]
    sets = _topic_sets(session, topic_ids)
    unknown = [t for t in topic_ids if t not in sets]
    if unknown:
        shown = ", ".join(unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        raise SubmissionRefused([f"Not topics of this campaign: {shown}."])
    set_ids = set(sets.values())
    if not topic_ids or None in set_ids or len(set_ids) != 1:
        raise SubmissionRefused(["A run answers the topics of one topic set; this one names topics of "
                                 f"{'no' if not set_ids or None in set_ids else len(set_ids)} topic set(s)."])
    set_id = set_ids.pop()
    window = session.scalar(select(TaskWindow).where(TaskWindow.topic_set_id == set_id, TaskWindow.task == kind))
    label = schedule.TASK_LABELS[kind]
    if window is None:
        raise SubmissionRefused([f"This topic set takes no {label} runs."])
    current = schedule.phase(window, now)
    if current == schedule.UPCOMING:
        raise SubmissionRefused([f"{label} submissions open at {_utc(window.opens_at)}."])
    if current != schedule.OPEN:
        raise SubmissionRefused([f"{label} submissions closed at {_utc(window.closes_at)}: the deadline has passed."])
    return window


def stored_topics(session: Session, topic_ids) -> set[str]:
    """Which of `topic_ids` are topics of the campaign (in the store)."""
    return set(_topic_sets(session, list(topic_ids)))


def _topic_sets(session: Session, topic_ids: list[str]) -> dict[str, int | None]:
    """Topic ID -> its topic set, for the IDs that are topics of the campaign."""
    if not topic_ids:
        return {}
    return dict(session.execute(select(Topic.id, Topic.topic_set_id).where(Topic.id.in_(topic_ids))).all())


def _check_limit(session: Session, team: str, kind: str, pair: str, window: TaskWindow) -> None:
    current = session.scalars(select(Submission.run_id).where(
        Submission.team == team, Submission.kind == kind, Submission.topic_set_id == window.topic_set_id,
        Submission.superseded_at.is_(None))).all()
    same_pair = [r for r in current if vocab.language_pair_of(r) == pair]
    if len(same_pair) >= window.max_runs:
        raise SubmissionRefused([
            f"Team {team} has {len(same_pair)} {schedule.TASK_LABELS[kind]} runs for {pair} already "
            f"({', '.join(sorted(same_pair))}), the most a team may submit. To change one, upload it again "
            "with the same run ID."])


def _utc(moment: datetime) -> str:
    return as_utc(moment).strftime("%Y-%m-%d %H:%M UTC")
