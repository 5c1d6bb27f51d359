"""What participants may download, and when: a topic set's topics once its first window opens; every
team's Question Analysis and IR4QA runs once their window closes (the inputs of embedded evaluation);
CCLQA runs, the gold standard and the judgments only once the CCLQA results are released.
Organisers may download everything at any time."""
from __future__ import annotations

import csv
import io as stdio
import tempfile
import zipfile
from dataclasses import dataclass, field
from datetime import datetime
from typing import Sequence

from flask import Blueprint, Response, abort, g, send_file
from sepia.campaign import release, schedule, topic_sets
from sepia.formats.judgments import judgments_to_tsv
from sepia.formats.write import to_xml
from sepia.store.exchange.gold import export_gold
from sepia.store.exchange.judgments import export_judgments
from sepia.services.clock import as_utc, utcnow
from sepia.vocab import language_pair_of
from sepia.web.db import db
from sepia.web.security import roles_required

bp = Blueprint("downloads", __name__, url_prefix="/downloads")
READERS = ("participant", "organiser")
MANIFEST_COLUMNS = ("run_id", "team", "task", "language_pair", "file", "sha256", "bytes", "topics", "items",
                    "submitted_at")


@dataclass
class Offer:
    label: str
    endpoint: str
    args: dict
    files: list[tuple[str, int]] = field(default_factory=list)  # (run ID, submission) one by one


def offers(session, sets: Sequence, now: datetime) -> list[Offer]:
    """The downloads open to participants now, for the home page."""
    found = []
    shared = [(s, w) for s in sets for w in s.windows if schedule.runs_shared(w, now)]
    files: dict[tuple[int | None, str], list[tuple[str, int]]] = {}  # an imported run may be of no set
    if shared:
        for set_id, kind, run_id, submission_id in topic_sets.current_runs(session):
            files.setdefault((set_id, kind), []).append((run_id, submission_id))
    for topic_set in sets:
        if schedule.topics_available(topic_set.windows, now):
            found.append(Offer(f"Topics of {topic_set.name}", "downloads.topics", {"set_id": topic_set.id}))
        for window in topic_set.windows:
            if schedule.runs_shared(window, now):
                found.append(Offer(f"All {schedule.TASK_LABELS[window.task]} runs of {topic_set.name} (zip)",
                                   "downloads.runs", {"set_id": topic_set.id, "task": window.task},
                                   files.get((topic_set.id, window.task), [])))
        if schedule.released(topic_set.windows, "cclqa", now):
            found.append(Offer(f"Gold standard of {topic_set.name}", "downloads.gold", {"set_id": topic_set.id}))
            found.append(Offer(f"Nugget judgments of {topic_set.name}", "downloads.judgments",
                               {"set_id": topic_set.id}))
    return found


def file_response(data: bytes | str, filename: str, mimetype: str) -> Response:
    return Response(data, mimetype=mimetype, headers={"Content-Disposition": f'attachment; filename="{filename}"'})


def _topic_set(set_id: int):
    found = topic_sets.topic_set_with_windows(db(), set_id)
    if found is None:
        abort(404, "No such topic set.")
    return found


def _allow(allowed: bool) -> None:
    """Organisers always; participants when the schedule says so (404, not 403: not yet there)."""
    if g.user.role != "organiser" and not allowed:
        abort(404, "This is not available yet; the schedule on your home page says when it will be.")


def _topic_ids(topic_set) -> list[str]:
    return topic_sets.set_topic_ids(db(), topic_set.id)


def _slug(name: str) -> str:
    return "".join(c if c.isascii() and c.isalnum() else "-" for c in name).strip("-") or "topics"


@bp.route("/topics/<int:set_id>.xml")
@roles_required(*READERS)
def topics(set_id: int):
    topic_set = _topic_set(set_id)
    _allow(schedule.topics_available(topic_set.windows, utcnow()))
    return file_response(release.topics_file(db(), topic_set.id), f"topics-{_slug(topic_set.name)}.xml", "application/xml")


@bp.route("/runs/<int:set_id>/<task>.zip")
@roles_required(*READERS)
def runs(set_id: int, task: str):
    """Every team's current runs of one task, as submitted byte for byte, with a manifest."""
    topic_set = _topic_set(set_id)
    window = next((w for w in topic_set.windows if w.task == task), None)
    if window is None:
        abort(404, "This topic set has no such task.")
    _allow(schedule.runs_shared(window, utcnow()))
    # Spooled: memory holds one run at a time, the archive itself goes to disk when large.
    archive = tempfile.SpooledTemporaryFile(max_size=16 * 1024 * 1024)
    manifest = stdio.StringIO()
    writer = csv.writer(manifest, delimiter="\t", lineterminator="\n")
    writer.writerow(MANIFEST_COLUMNS)
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as bundle:
        for row in topic_sets.current_submissions(db(), set_id, task):
            name = run_file_name(row.run_id, row.content)
            bundle.writestr(name, row.content)
            writer.writerow([row.run_id, row.team, task, language_pair_of(row.run_id), name, row.sha256, row.size, row.topics, row.items,
                             as_utc(row.submitted_at).isoformat()])  # SQLite gives it back without its zone
        bundle.writestr("MANIFEST.tsv", manifest.getvalue())
    archive.seek(0)
    return send_file(archive, mimetype="application/zip", as_attachment=True,
                     download_name=f"{task}-runs-{_slug(topic_set.name)}.zip")


@bp.route("/runs/file/<int:submission_id>")
@roles_required(*READERS)
def run_file(submission_id: int):
    """One current run, as submitted, under the same rule as the zip of its window."""
    row = topic_sets.submission(db(), submission_id)
    if row is None or row.superseded_at is not None or row.topic_set_id is None:
        abort(404, "No such run.")
    window = next((w for w in _topic_set(row.topic_set_id).windows if w.task == row.kind), None)
    _allow(window is not None and schedule.runs_shared(window, utcnow()))
    name = run_file_name(row.run_id, row.content)
    return file_response(row.content, name, "application/x-ndjson" if name.endswith(".jsonl") else "application/xml")


def run_file_name(run_id: str, content: bytes) -> str:
    """A run's file as submitted: XML, or a TREC RAG answer file in JSON lines (sepia.campaign.rag_upload)."""
    from sepia.campaign.rag_upload import is_answer_file

    return f"{run_id}.jsonl" if is_answer_file(content) else f"{run_id}.xml"


@bp.route("/gold/<int:set_id>.xml")
@roles_required(*READERS)
def gold(set_id: int):
    topic_set = _topic_set(set_id)
    _allow(schedule.released(topic_set.windows, "cclqa", utcnow()))
    data = to_xml(export_gold(db(), topic_ids=_topic_ids(topic_set)))
    return file_response(data, f"gold-{_slug(topic_set.name)}.xml", "application/xml")


@bp.route("/judgments/<int:set_id>.tsv")
@roles_required(*READERS)
def judgments(set_id: int):
    topic_set = _topic_set(set_id)
    _allow(schedule.released(topic_set.windows, "cclqa", utcnow()))
    rows = export_judgments(db(), topic_ids=_topic_ids(topic_set))
    return file_response(judgments_to_tsv(rows), f"judgments-{_slug(topic_set.name)}.tsv",
                         "text/tab-separated-values; charset=utf-8")
