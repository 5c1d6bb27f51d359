"""Rubric judging in the browser. The organiser sets the campaign's rubric (TOML, every save a new
version), sees the assessors' agreement and disputes per dimension and the scores per run, and moves
grades in and out as TSV. Assessors grade each CCLQA run's answer to a topic, blind (no run shown),
one grade per dimension chosen with the keyboard, beside the topic and the rubric task's guidelines."""
from __future__ import annotations

import math

from flask import Blueprint, Response, abort, flash, g, redirect, render_template, request, url_for

from sepia.formats.errors import FormatError
from sepia.formats.rubric import RubricError, grades_tsv, parse_grades
from sepia.limits import too_large
from sepia.metaeval.rubric_agreement import TOLERANCE, agreement
from sepia.scoring.rubric import answer_scores, run_scores
from sepia.services.accounts import active_assessors
from sepia.store import guidelines
from sepia.store import rubric as store_rubric
from sepia.services.topics import topic_by_id
from sepia.store.guidelines import GuidelinesUnread
from sepia.text.plural import counted
from sepia.web.db import db
from sepia.web.security import roles_required
from sepia.web.uploads import file_limit

bp = Blueprint("rubric", __name__, url_prefix="/rubric")
FIELD = "grade:"          # a form field grade:DIMENSION holds that dimension's grade
SHOWN_PROBLEMS = 5
DISPUTES_SHOWN = 50


@bp.app_template_filter("rubric_number")
def rubric_number(value: float, digits: int = 3) -> str:
    """A share, alpha or kappa to DIGITS places; a dash where it is not defined (NaN)."""
    return f"{value:.{digits}f}" if math.isfinite(value) else "—"


@bp.route("/")
@roles_required("organiser")
def index():
    found = store_rubric.current(db())
    report, shared = None, []
    if found is not None:
        shared = store_rubric.progress(db(), found.rubric)
        rubric, grades = found.rubric, store_rubric.grades(db())
        answers, incomplete = answer_scores(rubric, grades)
        agreed = agreement(rubric, grades)
        report = {"grades": len(grades), "agreement": agreed.dimensions, "score": agreed.score,
                  "pairs": agreed.pairs, "disputes": agreed.disputes[:DISPUTES_SHOWN],
                  "runs": run_scores(rubric, answers), "incomplete": incomplete}
    return render_template("rubric/index.html", current=found, report=report, tolerance=TOLERANCE,
                           assessors=active_assessors(db()), shared=shared)


@bp.route("/", methods=["POST"])
@roles_required("organiser")
def save():
    try:
        version = store_rubric.set_rubric(db(), request.form.get("text", "").replace("\r\n", "\n"), g.user.username)
        db().commit()
    except RubricError as error:
        db().rollback()
        flash(f"The rubric was not saved: {error}.", "error")
        return redirect(url_for("rubric.index"))
    flash(f"The rubric saved as version {version}.", "success")
    return redirect(url_for("rubric.index"))


@bp.route("/assign", methods=["POST"])
@roles_required("organiser")
def assign():
    """Share the answers out to the assessors ticked, as a pool's items are (sepia.store.sharing)."""
    assessors = [a for a in request.form.getlist("assessors") if a]
    try:
        overlap = float(request.form.get("overlap", "0") or 0) / 100
        added = store_rubric.assign_answers(db(), assessors, overlap)
        db().commit()
    except ValueError as error:
        db().rollback()
        flash(f"The answers were not shared out: {error}.", "error")
        return redirect(url_for("rubric.index") + "#rubric-assign")
    flash(f"{counted(added, 'answer')} assigned to {', '.join(assessors)}.", "success")
    return redirect(url_for("rubric.index") + "#rubric-assign")


@bp.route("/grades.tsv")
@roles_required("organiser")
def export():
    return Response(grades_tsv(store_rubric.grades(db())), mimetype="text/tab-separated-values",
                    headers={"Content-Disposition": 'attachment; filename="rubric-grades.tsv"'})


@bp.route("/grades", methods=["POST"])
@roles_required("organiser")
def import_grades():
    upload = request.files.get("grades")
    if upload is None or not upload.filename:
        flash("Choose a grades TSV to import.", "error")
        return redirect(url_for("rubric.index"))
    limit = file_limit()
    data = upload.read(limit + 1)
    try:
        if len(data) > limit:
            raise RubricError(f"the {too_large(limit)}")
        text = data.decode("utf-8")
        found = parse_grades(text, store_rubric.require(db()), upload.filename)
        stored = store_rubric.import_grades(db(), found)
        db().commit()
    except UnicodeDecodeError:
        flash(f"{upload.filename} was not imported: it is not UTF-8 text.", "error")
    except FormatError as error:
        db().rollback()
        more = len(error.problems) - SHOWN_PROBLEMS
        flash(f"{upload.filename} was not imported, nothing of it stored: "
              + "; ".join(str(p) for p in error.problems[:SHOWN_PROBLEMS])
              + (f"; and {more} more problems" if more > 0 else ""), "error")
    except RubricError as error:
        db().rollback()
        flash(f"{upload.filename} was not imported, nothing of it stored: {error}.", "error")
    else:
        flash(f"{stored} grades imported from {upload.filename}.", "success")
    return redirect(url_for("rubric.index"))


# ---------------------------------------------------------------- grading

@bp.route("/judge")
@roles_required("assessor", "organiser")
def judge():
    """How many answers this user graded and has left, and the way to the next; once the answers are
    shared out, an organiser (who grades none then) sees each assessor's, as on the Pools page."""
    try:
        rubric = store_rubric.require(db())
    except RubricError:
        return render_template("rubric/queue.html", rubric=None, todo=[], done=0)
    if g.user.role == "organiser" and store_rubric.shared_out(db()):
        return render_template("rubric/queue.html", rubric=rubric, shared=store_rubric.progress(db(), rubric))
    todo, done = store_rubric.queue(db(), g.user.username, rubric)
    return render_template("rubric/queue.html", rubric=rubric, todo=todo, done=done)


def _may_grade(run_topic_id: int) -> None:
    """Once the answers are shared out, grading follows the assignments as a pool's judging does: an
    assessor opens and saves only the answers assigned to them (another's: 404, as a pool item not in
    their queue), and an organiser none (403, as organisers are refused the judging screens). Before,
    every assessor and organiser grades every answer."""
    if not store_rubric.shared_out(db()):
        return
    if g.user.role != "assessor":
        abort(403)
    if not store_rubric.is_assigned(db(), run_topic_id, g.user.username):
        abort(404, "This answer is not in your queue.")


def _screen(run_topic_id: int, given: dict[str, int] | None = None, status: int = 200):
    try:
        rubric = store_rubric.require(db())
    except RubricError:
        abort(404, "The organiser has not set a rubric yet.")
    todo, done = store_rubric.queue(db(), g.user.username, rubric)
    answer = store_rubric.answer(db(), run_topic_id, g.user.username)
    if answer is None:
        abort(404, "No such answer to grade.")
    return render_template("rubric/judge.html", rubric=rubric, answer=answer, topic=topic_by_id(db(), answer.topic_id),
                           given=answer.grades if given is None else given, done=done, left=len(todo),
                           field=FIELD), status


@bp.route("/judge/<int:run_topic_id>")
@roles_required("assessor", "organiser")
def screen(run_topic_id: int):
    _may_grade(run_topic_id)
    return _screen(run_topic_id)


@bp.route("/judge/<int:run_topic_id>", methods=["POST"])
@roles_required("assessor", "organiser")
def grade(run_topic_id: int):
    given = {key[len(FIELD):]: int(value) for key, value in request.form.items()
             if key.startswith(FIELD) and value.isascii() and value.isdigit() and len(value) == 1}
    _may_grade(run_topic_id)
    if not store_rubric.is_answer(db(), run_topic_id):
        abort(404, "No such answer to grade.")
    try:
        if g.user.role == "assessor":  # the task's current guidelines acknowledged first
            guidelines.require_read(db(), "rubric", g.user.username, request.form.get("guidelines_read"))
        store_rubric.save_answer(db(), run_topic_id, g.user.username, given)
        db().commit()
    except GuidelinesUnread as error:  # nothing saved; the screen again with the grades as they were sent
        db().rollback()
        flash(str(error), "error")
        return _screen(run_topic_id, given, 409)
    except (RubricError, ValueError) as error:
        db().rollback()
        flash(f"Not saved: {error}.", "error")
        return _screen(run_topic_id, given, 422)
    flash("Grades saved.", "success")
    todo, _ = store_rubric.queue(db(), g.user.username, store_rubric.require(db()))
    return redirect(url_for("rubric.screen", run_topic_id=todo[0]) if todo else url_for("rubric.judge"))
