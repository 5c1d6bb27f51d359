"""Nugget extraction: from a completed topic's answer texts, add, edit and delete nuggets."""
from __future__ import annotations

import re

from flask import Blueprint, abort, flash, g, redirect, render_template, request, url_for

from sepia.store.models import AnswerText, Nugget, Topic
from sepia.web.db import db
from sepia.web.security import roles_required
from sepia.web.topics import get_topic, topic_rows

bp = Blueprint("nuggets", __name__, url_prefix="/nuggets")
EDITORS = ("organiser", "topic_developer")
LABEL_RE = re.compile(r"^N(\d+)$")


class NuggetError(ValueError):
    pass


def next_label(topic: Topic) -> str:
    numbers = [int(m.group(1)) for n in topic.nuggets if (m := LABEL_RE.match(n.label))]
    return f"N{max(numbers, default=0) + 1:03d}"


def _linked_answers(topic: Topic, form) -> list[AnswerText]:
    wanted = set()
    for value in form.getlist("answer_ids"):
        if not value.isdigit():
            raise NuggetError(f"{value!r} is not an answer text.")
        wanted.add(int(value))
    answers = [a for a in topic.answer_texts if a.id in wanted]
    if len(answers) != len(wanted):
        raise NuggetError("An answer text you linked no longer belongs to this topic; reload the page.")
    if not answers:
        raise NuggetError("Link the nugget to at least one answer text it comes from.")
    return answers


def _text(form) -> str:
    text = " ".join((form.get("text") or "").split())
    if not text:
        raise NuggetError("A nugget needs a text.")
    return text


def _completed_topic(topic_id: str) -> Topic:
    topic = get_topic(topic_id)
    if topic.status != "completed":
        abort(409, f"Topic {topic_id} is still in development; nuggets come from completed topics.")
    return topic


@bp.route("/")
@roles_required(*EDITORS)
def index():
    return render_template("nuggets/index.html", rows=topic_rows(completed_only=True))


@bp.route("/<topic_id>")
@roles_required(*EDITORS)
def topic(topic_id: str):
    return render_template("nuggets/topic.html", topic=_completed_topic(topic_id), form={})


@bp.route("/<topic_id>", methods=["POST"])
@roles_required(*EDITORS)
def add(topic_id: str):
    topic = _completed_topic(topic_id)
    try:
        nugget = Nugget(topic_id=topic.id, label=next_label(topic), text=_text(request.form),
                        position=len(topic.nuggets), created_by=g.user.username)
        nugget.answer_texts = _linked_answers(topic, request.form)
        topic.nuggets.append(nugget)
        db().commit()
    except NuggetError as error:
        db().rollback()
        flash(str(error), "error")
        return render_template("nuggets/topic.html", topic=_completed_topic(topic_id), form=request.form), 422
    flash(f"Nugget {nugget.label} added ({len(nugget.text)} characters).", "success")
    return redirect(url_for("nuggets.topic", topic_id=topic_id) + "#new-nugget")


def _nugget(topic: Topic, nugget_id: int) -> Nugget:
    nugget = db().get(Nugget, nugget_id)
    if nugget is None or nugget.topic_id != topic.id:
        abort(404, "No such nugget.")
    return nugget


@bp.route("/<topic_id>/<int:nugget_id>", methods=["POST"])
@roles_required(*EDITORS)
def update(topic_id: str, nugget_id: int):
    topic = _completed_topic(topic_id)
    nugget = _nugget(topic, nugget_id)
    try:
        text = _text(request.form)
        answers = _linked_answers(topic, request.form)
    except NuggetError as error:
        flash(f"{nugget.label}: {error}", "error")
        return render_template("nuggets/topic.html", topic=topic, form={}), 422
    changed = text != nugget.text
    nugget.text = text
    nugget.answer_texts = answers
    db().commit()
    message = f"Nugget {nugget.label} saved."
    if changed and nugget.votes:
        message += f" Note: {len(nugget.votes)} vote(s) were cast on its earlier text."
    flash(message, "success")
    return redirect(url_for("nuggets.topic", topic_id=topic_id) + f"#nugget-{nugget.id}")


@bp.route("/<topic_id>/<int:nugget_id>/delete", methods=["POST"])
@roles_required(*EDITORS)
def delete(topic_id: str, nugget_id: int):
    topic = _completed_topic(topic_id)
    nugget = _nugget(topic, nugget_id)
    label, votes = nugget.label, len(nugget.votes)
    topic.nuggets.remove(nugget)
    db().commit()
    flash(f"Nugget {label} deleted" + (f" with its {votes} vote(s)." if votes else "."), "success")
    return redirect(url_for("nuggets.topic", topic_id=topic_id))
