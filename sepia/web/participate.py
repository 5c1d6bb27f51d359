"""Participants: the schedule, run submission (browser and `sepia submit`), receipts, API tokens."""
from __future__ import annotations

import re
from datetime import datetime, timezone

from flask import (Blueprint, abort, flash, g, jsonify, redirect, render_template, request,
                   url_for)
from markupsafe import Markup, escape

from sepia.campaign import schedule, topic_sets
from sepia.campaign.submission import SubmissionRefused, receipt_of, submit_run
from sepia.services import logins
from sepia.services.clock import utcnow
from sepia.services.writes import Conflict, conflicts
from sepia.web import downloads
from sepia.web.db import db
from sepia.web.forms import FormError, bounded_text
from sepia.web.security import roles_required, token_required
from sepia.web.uploads import run_limit

bp = Blueprint("participate", __name__)
WARNINGS_SHOWN = 20  # each a message in the session cookie; `sepia validate` lists every one
UTC_MOMENT = re.compile(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC")


@bp.app_template_filter("local_times")
def local_times(message: str) -> Markup:
    """A message with each UTC moment in it (`2026-05-01 12:00 UTC`) marked up as the `when` filter
    does, so that the reader sees it in their own time zone."""
    from sepia.web.app import when

    out, at = Markup(), 0
    for moment in UTC_MOMENT.finditer(message):
        parsed = datetime.strptime(moment.group(), "%Y-%m-%d %H:%M UTC").replace(tzinfo=timezone.utc)
        out += escape(message[at:moment.start()]) + when(parsed)
        at = moment.end()
    return out + escape(message[at:])


def _flash_warnings(filename: str, warnings: list[str]) -> None:
    """The run's warnings, as `sepia submit` prints them (FILE:LINE:COLUMN: message)."""
    for warning in warnings[:WARNINGS_SHOWN]:  # LINE:COLUMN: message, or a sentence about the whole file
        flash(f"{filename}:{warning}" if warning[:1].isdigit() else f"{filename}: {warning}", "warning")
    if len(warnings) > WARNINGS_SHOWN:
        flash(f"{filename}: {len(warnings) - WARNINGS_SHOWN:,} more warnings; `sepia validate {filename}` lists "
              "every one.", "warning")


def team_name() -> str | None:
    return g.user.team


def _home(status: int = 200, refused: dict | None = None, new_token: str | None = None):
    now = utcnow()
    sets = topic_sets.topic_sets(db())
    mine = topic_sets.team_submissions(db(), team_name() or "")
    tokens = logins.user_tokens(db(), g.user.id)
    open_tasks = [(s, w) for s in sets for w in s.windows if schedule.phase(w, now) == schedule.OPEN]
    return render_template("participate/home.html", sets=sets, now=now, phase=schedule.phase, mine=mine,
                           tokens=tokens, open_tasks=open_tasks, refused=refused, new_token=new_token,
                           task_labels=schedule.TASK_LABELS, offers=downloads.offers(db(), sets, now),
                           max_upload=run_limit()), status


@bp.route("/me")
@roles_required("participant")
def home():
    return _home()


@bp.route("/me/runs", methods=["POST"])
@roles_required("participant")
def upload():
    upload = request.files.get("run")
    if upload is None or not upload.filename:
        flash("Choose a run file to upload.", "error")
        return _home(422)
    data = upload.read(run_limit() + 1)
    try:
        with conflicts(db()):
            receipt = submit_run(db(), team_name(), g.user.username, upload.filename, data,
                                 run_limit())
            db().commit()
    except SubmissionRefused as refusal:
        db().rollback()
        return _home(422, refused={"filename": upload.filename, "problems": refusal.problems})
    except Conflict:
        return _home(409, refused={"filename": upload.filename, "problems": [
            "The same run was being stored by another upload at this moment; look at your submissions below "
            "and upload again if it is not there."]})
    flash(f"{receipt.run_id} {'replaced' if receipt.replaced else 'accepted'}"
          + (f", with {len(receipt.warnings):,} warning{'s' if len(receipt.warnings) != 1 else ''}." if receipt.warnings
             else "."), "success")
    _flash_warnings(upload.filename, receipt.warnings)
    return redirect(url_for("participate.receipt", submission_id=receipt.submission_id))


def _own_submission(submission_id: int):
    row = topic_sets.team_submission(db(), submission_id, team_name())
    if row is None:
        abort(404, "No such submission of your team.")
    return row


@bp.route("/me/submissions/<int:submission_id>")
@roles_required("participant")
def receipt(submission_id: int):
    row = _own_submission(submission_id)
    return render_template("participate/receipt.html", row=row, receipt=receipt_of(row),
                           task_labels=schedule.TASK_LABELS)


@bp.route("/me/submissions/<int:submission_id>/file")
@roles_required("participant")
def own_file(submission_id: int):
    row = _own_submission(submission_id)
    return downloads.file_response(row.content, row.filename, "application/xml")


# ---------------------------------------------------------------- API tokens and `sepia submit`

@bp.route("/me/tokens", methods=["POST"])
@roles_required("participant")
def create_token():
    try:
        name = bounded_text(" ".join(request.form.get("name", "").split()), 100, "A token's name") or "sepia submit"
    except FormError as error:
        abort(400, str(error))
    token = logins.create_token(db(), g.user.id, name)
    db().commit()
    flash(f"Token {name!r} created. Copy it now: it is shown only once.", "success")
    return _home(new_token=token)


@bp.route("/me/tokens/<int:token_id>/revoke", methods=["POST"])
@roles_required("participant")
def revoke_token(token_id: int):
    token = logins.user_token(db(), token_id, g.user.id)
    if token is None:
        abort(404, "No such token of yours.")
    logins.revoke_token(db(), token)
    db().commit()
    flash(f"Token {token.name!r} revoked: it no longer works.", "success")
    return redirect(url_for("participate.home") + "#tokens")


@bp.route("/api/runs", methods=["POST"])
@token_required("participant")
def api_submit():
    """`sepia submit`: the run file as the request body, the personal token as a Bearer token."""
    filename = (request.headers.get("X-Filename") or "run.xml").rsplit("/", 1)[-1]
    limit = run_limit()
    data = request.get_data(cache=False)[: limit + 1]
    try:
        with conflicts(db()):
            receipt = submit_run(db(), team_name(), g.user.username, filename, data, limit)
            db().commit()
    except SubmissionRefused as refusal:
        db().rollback()
        return jsonify(accepted=False, problems=refusal.problems), 422
    except Conflict:
        return jsonify(accepted=False, problems=["The same run was being stored by another upload at this "
                                                 "moment; send it again."]), 409
    return jsonify(accepted=True, receipt=receipt.as_dict()), 201

