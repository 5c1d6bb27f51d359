"""Organisers set the campaign's schedule: topic sets, their topics, and per task a submission window
and a release moment; they see every submission as it comes in."""
from __future__ import annotations

import fnmatch
from datetime import datetime, timezone

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from sepia.campaign import release, schedule, topic_sets
from sepia.services.clock import as_utc, utcnow
from sepia.web.db import db, found_or_404
from sepia.web import results
from sepia.web.forms import FormError, bounded_text, parse_id
from sepia.web.security import roles_required

bp = Blueprint("schedule", __name__, url_prefix="/campaign")
TIME_FORMAT = "%Y-%m-%dT%H:%M"  # what <input type="datetime-local"> sends; SEPIA reads it as UTC


def parse_utc(value: str, what: str) -> datetime | None:
    value = (value or "").strip()
    if not value:
        return None
    try:
        return datetime.strptime(value[:16], TIME_FORMAT).replace(tzinfo=timezone.utc)
    except ValueError:
        raise FormError(f"{what}: {value[:30]!r} is not a date and time like 2026-12-01T09:00.") from None


def _topic_set(set_id: int):
    return found_or_404(topic_sets.topic_set(db(), set_id), "topic set")


@bp.route("/schedule")
@roles_required("organiser")
def index():
    sets = topic_sets.topic_sets(db())
    counts, languages = topic_sets.topic_counts(db())
    now = utcnow()
    # Topics reopened after they joined a set: its topics file leaves them out.
    left = {set_id: [f"Not completed, so not in the topics file: {release.named(ids)}."]
            for set_id, ids in release.unfinished(db()).items()}
    return render_template("campaign/schedule.html", sets=sets, counts=counts, languages=languages,
                           unassigned=counts.get(None, 0), now=now, phase=schedule.phase,
                           warnings={s.id: schedule.warnings(s.windows) + left.get(s.id, []) for s in sets},
                           tasks=schedule.TASKS, task_labels=schedule.TASK_LABELS)


@bp.route("/schedule", methods=["POST"])
@roles_required("organiser")
def add_set():
    name = " ".join(request.form.get("name", "").split())
    if not name or len(name) > 100:
        flash("A topic set needs a name of at most 100 characters.", "error")
        return redirect(url_for("schedule.index"))
    if not topic_sets.add_topic_set(db(), name, request.form.get("description", "").strip()[:2000]):
        flash(f"There is a topic set called {name!r} already.", "error")
        return redirect(url_for("schedule.index"))
    db().commit()
    flash(f"Topic set {name!r} created: give it topics and windows below.", "success")
    return redirect(url_for("schedule.index"))


@bp.route("/schedule/<int:set_id>/windows", methods=["POST"])
@roles_required("organiser")
def save_windows(set_id: int):
    """All three tasks' windows of a topic set at once; a task left without times has no window."""
    topic_set = _topic_set(set_id)
    try:
        windows = {task: _window(request.form, task) for task in schedule.TASKS}
    except FormError as error:
        db().rollback()
        flash(str(error), "error")
        return redirect(url_for("schedule.index") + f"#set-{set_id}")
    topic_sets.set_windows(topic_set, windows)
    db().commit()
    flash(f"Schedule of {topic_set.name!r} saved.", "success")
    for warning in schedule.warnings(topic_set.windows):
        flash(warning, "warning")
    return redirect(url_for("schedule.index") + f"#set-{set_id}")


def _window(form, task: str) -> topic_sets.Window | None:
    """A task's window as the form gives it; None for no window."""
    label = schedule.TASK_LABELS[task]
    opens = parse_utc(form.get(f"{task}_opens", ""), f"{label} opens")
    closes = parse_utc(form.get(f"{task}_closes", ""), f"{label} closes")
    release_at = parse_utc(form.get(f"{task}_release", ""), f"{label} release")
    if opens is None and closes is None:
        return None
    if opens is None or closes is None:
        raise FormError(f"{label}: give both the opening and the closing time, or neither.")
    return topic_sets.Window(opens, closes, release_at,
                             parse_id(form.get(f"{task}_max_runs", "5") or "5", f"{label} run limit"),
                             form.get(f"{task}_publish") == "1")


@bp.route("/schedule/<int:set_id>/topics", methods=["POST"])
@roles_required("organiser")
def assign_topics(set_id: int):
    """Put topics into the set: IDs or patterns (ACLIA2-CS-*), separated by spaces or lines."""
    topic_set = _topic_set(set_id)
    try:
        patterns = bounded_text(request.form.get("topics", ""), 100_000, "The list of topics").split()
    except FormError as error:
        abort(400, str(error))
    ids = topic_sets.topic_ids(db())
    chosen = sorted({topic_id for topic_id in ids for p in patterns if fnmatch.fnmatchcase(topic_id, p)})
    ready, unfinished = release.split_releasable(db(), chosen)
    if unfinished:  # teams would download them without a question: a topics file that does not validate
        flash(f"Left out, not completed (or without a question): {release.named(unfinished)}. Complete them "
              "in Topics, then add them again.", "warning" if ready else "error")
    if not chosen:
        flash("No topic matches what you gave.", "error")
    if not ready:
        return redirect(url_for("schedule.index") + f"#set-{set_id}")
    topic_sets.put_topics(db(), topic_set.id, ready)
    db().commit()
    flash(f"{len(ready)} topic(s) now belong to {topic_set.name!r}.", "success")
    return redirect(url_for("schedule.index") + f"#set-{set_id}")


@bp.route("/schedule/<int:set_id>/release/<task>", methods=["POST"])
@roles_required("organiser")
def release_now(set_id: int, task: str):
    """Release a task's results of the set at this moment (its window must have closed)."""
    topic_set = _topic_set(set_id)
    window = next((w for w in topic_set.windows if w.task == task), None)
    if window is None:
        abort(404, "This topic set has no such task.")
    label, now = schedule.TASK_LABELS[task], utcnow()
    if schedule.phase(window, now) in (schedule.UPCOMING, schedule.OPEN):
        flash(f"{label} of {topic_set.name!r} is still open for runs (it closes at {as_utc(window.closes_at):%Y-%m-%d %H:%M} "
              "UTC): results go out only after the deadline.", "error")
    elif schedule.phase(window, now) == schedule.RELEASED:
        flash(f"{label} results of {topic_set.name!r} are out already.", "warning")
    else:
        window.release_at = now
        db().commit()
        flash(f"{label} results of {topic_set.name!r} released now: each team sees them on its Results page.", "success")
    return redirect(url_for("schedule.index") + f"#set-{set_id}")


@bp.route("/schedule/<int:set_id>/preview")
@roles_required("organiser")
def preview(set_id: int):
    """What the teams receive: the set's topics file as they download it, and each team's Results
    page as it will be once the set's results are released (as it is, for tasks released already)."""
    topic_set = _topic_set(set_id)
    teams = topic_sets.teams_of(db(), set_id)
    releasing = frozenset({set_id})
    return render_template("campaign/preview.html", topic_set=topic_set,
                           topics_file=release.topics_file(db(), set_id).decode("utf-8"),
                           left_out=release.unfinished(db()).get(set_id, []),
                           teams=results.teams_results(list(teams), releasing),
                           labels=schedule.TASK_LABELS)


@bp.route("/submissions")
@roles_required("organiser")
def submissions():
    rows = topic_sets.all_submissions(db())
    return render_template("campaign/submissions.html", rows=rows, task_labels=schedule.TASK_LABELS)
