"""Assessors' queues and the judging screen: one pooled item at a time, blind, with the keyboard;
each judgment (a CCLQA item's nugget matches, an IR4QA item's relevance level, a control item's
answer) saved when it is made."""
from __future__ import annotations

import dataclasses
import math

from flask import abort, current_app, flash, g, redirect, render_template, request, url_for

from sepia.services.documents import get_document
from sepia.services.judging import topic_nugget_ids
from sepia.store import controls, guidelines, judging
from sepia.store.guidelines import GuidelinesUnread
from sepia.store.suggestion import suggestion
from sepia.web.db import db
from sepia.web.forms import FormError, bounded_text
from sepia.store.item_view import read_item, read_queue
from sepia.web.judging.answers import relevance_level, ticked_nuggets
from sepia.web.judging.blueprint import COMMENT_MAX_CHARS, bp
from sepia.web.search_pane import hit_spans, question_query
from sepia.web.security import roles_required
from sepia.store.topic_view import TopicView
from sepia.web.topics import topic_view


@bp.route("/judge/")
@roles_required("assessor")
def queue():
    return render_template("judging/queue.html", progress=judging.progress(db(), g.user.username))


def _queue(pool_id: int, topic_id: str):
    pool, items = read_queue(db().connection(), g.user.username, pool_id, topic_id)
    if not items:
        abort(404, "Nothing of this topic is in your queue.")
    return pool, items


@bp.route("/judge/<int:pool_id>/<topic_id>")
@roles_required("assessor")
def screen(pool_id: int, topic_id: str):
    pool, items = _queue(pool_id, topic_id)
    wanted = request.args.get("item", type=int)
    return _screen(pool, topic_id, items, next((a for a in items if a.id == wanted), None) or judging.next_open(items))


def _screen(pool, topic_id: str, items, row, kept=None):
    """The judging screen at ROW; KEPT: a refused save's form, whose marks, level and comment it shows."""
    topic = topic_view(topic_id, nuggets=pool.kind == "cclqa")  # a CCLQA item is judged against them
    current = read_item(db().connection(), row.id, pool.kind) if row is not None else None
    if row is not None and current is None:  # gone since the queue was read (the pool rebuilt)
        abort(404, "This item is not in your queue.")
    planned, all_nuggets = _planned_labels(pool, topic_id, current and current.entry), len(topic.nuggets)
    if planned is not None:  # an item-level plan: only the item's planned nuggets are judged, numbered 1, 2, ...
        topic = dataclasses.replace(topic, nuggets=[n for n in topic.nuggets if n.label in planned])
    shown = request.args.get("feedback", type=int)
    told = controls.feedback(db(), shown, g.user.username) if shown and pool.training else None
    if current is None:
        return render_template("judging/done.html", pool=pool, topic=topic, items=items, feedback=told)
    document, pieces = current.document, []  # an IR4QA item's
    if document is not None:
        pieces = _marked(document.text, hit_spans(topic.lang, document.docid, _question_words(topic),
                                                  len(document.text)))
    marked = judging.nugget_matches(db(), current.entry.response_id, current.assessor) if pool.kind == "cclqa" else {}
    suggested = set()
    if pool.kind == "cclqa" and pool.suggest and current.judged_at is None:
        suggested = suggestion(topic.nuggets, current.entry.members[0].text)
        marked = {n: 1.0 for n in suggested}
    level = current.level
    if kept is not None:  # the refused save's judgment, as the assessor left it
        marked = {int(n): 1.0 for n in kept.getlist("nugget") if n.isdigit()}
        level = int(kept["level"]) if kept.get("level", "").isdigit() else None
        current.comment = kept.get("comment", "")[:COMMENT_MAX_CHARS]
    return render_template("judging/screen.html", pool=pool, topic=topic, items=items, current=current,
                           index=items.index(row), marked=marked, suggested=suggested, level=level,
                           document=document, pieces=pieces, feedback=told,
                           planned=None if planned is None else all_nuggets,
                           levels=range(current_app.config["RELEVANCE_LEVELS"]))


def _planned_labels(pool, topic_id: str, entry=None) -> set[str] | None:
    """The topic's nuggets the pool's item-level plan judges for the item `entry` (those planned for
    the responses it stands for; for a control item, or without an item, those planned for any
    response); None: all of them."""
    from sepia.store.planned import item_plan_labels

    if pool.kind != "cclqa":
        return None
    return item_plan_labels(db(), pool.id, topic_id, entry.id if entry is not None and entry.control_id is None else None)


def _question_words(topic: TopicView) -> str:
    """The topic's question as a query: the hits of its terms are marked in the document judged.
    Read as words, never as query syntax: a CS, CT or JA question is then any of its content words
    (sepia.search.natural), not one phrase that no document contains."""
    return question_query(" ".join(t.text for t in topic.texts if t.kind == "question" and t.lang == topic.lang))


def _marked(text: str, spans: list[tuple[int, int]]) -> list[tuple[str, bool]]:
    """The text cut into (piece, marked) at the spans, for the template to escape and mark."""
    pieces, at = [], 0
    for start, end in spans:
        pieces += [(text[at:start], False), (text[start:end], True)]
        at = end
    return pieces + [(text[at:], False)]


@bp.route("/judge/documents/<path:docid>")
@roles_required("assessor", "organiser")
def document(docid: str):
    """A document a response cites, to check the response against its source."""
    found = get_document(db(), docid)
    if found is None:
        abort(404, f"No document {docid} in the stored collections.")
    return render_template("judging/document.html", document=found)


@bp.route("/judge/<int:pool_id>/<topic_id>/<int:assignment_id>", methods=["POST"])
@roles_required("assessor")
def save(pool_id: int, topic_id: str, assignment_id: int):
    pool, items = _queue(pool_id, topic_id)
    row = next((a for a in items if a.id == assignment_id), None)
    if row is None:
        abort(404, "This item is not in your queue.")
    current = judging.queue_item(db(), row.id, responses=pool.kind == "cclqa")
    form = request.form
    answered = None
    try:
        comment = bounded_text(form.get("comment", "").strip(), COMMENT_MAX_CHARS, "A comment")
        if form.get("action") != "skip":  # a judgment: the task's current guidelines acknowledged first
            guidelines.require_read(db(), guidelines.POOL_TASK[pool.kind], g.user.username,
                                    form.get("guidelines_read"))
        if form.get("action") == "skip":
            judging.skip(current, comment)
        elif current.entry.control_id is not None:
            answered = controls.answer_control(db(), current, _control_answer(pool.kind, topic_id), comment)
        elif pool.kind == "cclqa":  # with an item-level plan, the item's planned nuggets only
            nugget_ids = topic_nugget_ids(db(), topic_id, _planned_labels(pool, topic_id, current.entry))
            judging.save_nugget_judgment(db(), current, nugget_ids, ticked_nuggets(form, nugget_ids), comment)
        else:
            judging.save_relevance(db(), current, relevance_level(form), comment)
        if form.get("action") != "skip":
            judging.add_seconds(current, _seconds(form.get("seconds")))
        db().commit()
    except GuidelinesUnread as error:  # nothing saved; the screen again with the form as it was sent
        db().rollback()
        flash(str(error), "error")
        return _screen(pool, topic_id, items, row, kept=form), 409
    except FormError as error:
        db().rollback()
        flash(str(error), "error")
        return redirect(url_for("judging.screen", pool_id=pool_id, topic_id=topic_id, item=assignment_id))
    # The queue as saved: this item's row read before the save, so its new state is the object's.
    saved = [current if a.id == current.id else a for a in items]
    following = judging.next_open(saved, items.index(row))
    target = {"item": following.id} if following is not None else {}
    if answered is not None and pool.training:
        target["feedback"] = answered.id
    return redirect(url_for("judging.screen", pool_id=pool_id, topic_id=topic_id, **target))


def _seconds(value: str | None) -> float | None:
    """The screen's timing of an item, sent with the save; missing or malformed: not timed."""
    try:
        seconds = float(value or "")
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) else None


def _control_answer(kind: str, topic_id: str) -> str:
    """A control item's answer from the form, in the form its expected answer is kept."""
    if kind == "cclqa":
        return controls.nugget_answer(ticked_nuggets(request.form, topic_nugget_ids(db(), topic_id)))
    return str(relevance_level(request.form))
