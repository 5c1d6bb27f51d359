"""Organisers set the campaign's schedule: topic sets, their topics, and per task a submission window
and a release moment; they see every submission as it comes in."""
from __future__ import annotations

import fnmatch
from datetime import datetime, timezone

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from sqlalchemy import func, select, update
from sqlalchemy.orm import selectinload

from sepia.campaign import release, schedule
from sepia.store.models import Submission, TaskWindow, Topic, TopicSet, as_utc, utcnow
from sepia.web.db import db, get_or_404
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


def topic_sets() -> list[TopicSet]:
    return list(db().scalars(select(TopicSet).options(selectinload(TopicSet.windows)).order_by(TopicSet.id)))


@bp.route("/schedule")
@roles_required("organiser")
def index():
    sets = topic_sets()
    counts = dict(db().execute(select(Topic.topic_set_id, func.count()).group_by(Topic.topic_set_id)).all())
    languages: dict[int | None, dict[str, int]] = {}
    for set_id, lang, count in db().execute(
            select(Topic.topic_set_id, Topic.lang, func.count()).group_by(Topic.topic_set_id, Topic.lang)):
        languages.setdefault(set_id, {})[lang] = count
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
    if db().scalar(select(TopicSet).where(TopicSet.name == name)) is not None:
        flash(f"There is a topic set called {name!r} already.", "error")
        return redirect(url_for("schedule.index"))
    db().add(TopicSet(name=name, description=request.form.get("description", "").strip()[:2000]))
    db().commit()
    flash(f"Topic set {name!r} created: give it topics and windows below.", "success")
    return redirect(url_for("schedule.index"))


@bp.route("/schedule/<int:set_id>/windows", methods=["POST"])
@roles_required("organiser")
def save_windows(set_id: int):
    """All three tasks' windows of a topic set at once; a task left without times has no window."""
    topic_set = get_or_404(TopicSet, set_id, "topic set")
    form = request.form
    existing = {w.task: w for w in topic_set.windows}
    try:
        for task in schedule.TASKS:
            label = schedule.TASK_LABELS[task]
            opens = parse_utc(form.get(f"{task}_opens", ""), f"{label} opens")
            closes = parse_utc(form.get(f"{task}_closes", ""), f"{label} closes")
            release_at = parse_utc(form.get(f"{task}_release", ""), f"{label} release")
            if opens is None and closes is None:
                if task in existing:
                    topic_set.windows.remove(existing[task])
                continue
            if opens is None or closes is None:
                raise FormError(f"{label}: give both the opening and the closing time, or neither.")
            window = existing.get(task) or TaskWindow(task=task)
            window.opens_at, window.closes_at, window.release_at = opens, closes, release_at
            window.max_runs = parse_id(form.get(f"{task}_max_runs", "5") or "5", f"{label} run limit")
            window.publish_full_table = form.get(f"{task}_publish") == "1"
            if task not in existing:
                topic_set.windows.append(window)
    except FormError as error:
        db().rollback()
        flash(str(error), "error")
        return redirect(url_for("schedule.index") + f"#set-{set_id}")
    db().commit()
    flash(f"Schedule of {topic_set.name!r} saved.", "success")
    for warning in schedule.warnings(topic_set.windows):
        flash(warning, "warning")
    return redirect(url_for("schedule.index") + f"#set-{set_id}")


@bp.route("/schedule/<int:set_id>/topics", methods=["POST"])
@roles_required("organiser")
def assign_topics(set_id: int):
    """Put topics into the set: IDs or patterns (ACLIA2-CS-*), separated by spaces or lines."""
    topic_set = get_or_404(TopicSet, set_id, "topic set")
    try:
        patterns = bounded_text(request.form.get("topics", ""), 100_000, "The list of topics").split()
    except FormError as error:
        abort(400, str(error))
    ids = db().scalars(select(Topic.id)).all()
    chosen = sorted({topic_id for topic_id in ids for p in patterns if fnmatch.fnmatchcase(topic_id, p)})
    ready, unfinished = release.split_releasable(db(), chosen)
    if unfinished:  # teams would download them without a question: a topics file that does not validate
        flash(f"Left out, not completed (or without a question): {release.named(unfinished)}. Complete them "
              "in Topics, then add them again.", "warning" if ready else "error")
    if not chosen:
        flash("No topic matches what you gave.", "error")
    if not ready:
        return redirect(url_for("schedule.index") + f"#set-{set_id}")
    db().execute(update(Topic).where(Topic.id.in_(ready)).values(topic_set_id=topic_set.id)
                 .execution_options(synchronize_session=False))
    db().commit()
    flash(f"{len(ready)} topic(s) now belong to {topic_set.name!r}.", "success")
    return redirect(url_for("schedule.index") + f"#set-{set_id}")


@bp.route("/schedule/<int:set_id>/release/<task>", methods=["POST"])
@roles_required("organiser")
def release_now(set_id: int, task: str):
    """Release a task's results of the set at this moment (its window must have closed)."""
    topic_set = get_or_404(TopicSet, set_id, "topic set")
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
    topic_set = get_or_404(TopicSet, set_id, "topic set")
    teams = db().scalars(select(Submission.team).distinct().where(
        Submission.topic_set_id == set_id, Submission.superseded_at.is_(None)).order_by(Submission.team)).all()
    releasing = frozenset({set_id})
    return render_template("campaign/preview.html", topic_set=topic_set,
                           topics_file=release.topics_file(db(), set_id).decode("utf-8"),
                           left_out=release.unfinished(db()).get(set_id, []),
                           teams=results.teams_results(list(teams), releasing),
                           labels=schedule.TASK_LABELS)


@bp.route("/submissions")
@roles_required("organiser")
def submissions():
    rows = db().execute(
        select(Submission.id, Submission.run_id, Submission.kind, Submission.team, Submission.filename,
               Submission.sha256, Submission.size, Submission.topics, Submission.items, Submission.submitted_by,
               Submission.submitted_at, Submission.superseded_at, TopicSet.name.label("topic_set"))
        .outerjoin(TopicSet, TopicSet.id == Submission.topic_set_id)
        .order_by(Submission.kind, Submission.run_id, Submission.submitted_at)).all()
    return render_template("campaign/submissions.html", rows=rows, task_labels=schedule.TASK_LABELS)
