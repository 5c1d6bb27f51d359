"""Nugget extraction: from a completed topic's answer texts, add, edit and delete nuggets."""
from __future__ import annotations

import re

from flask import Blueprint, abort, current_app, flash, g, redirect, render_template, request, url_for

from sepia.store import nugget_copies
from sepia.services import nuggets
from sepia.services.writes import Conflict, commit, conflicts
from sepia.vocab import TOPIC_COMPLETED
from sepia.web.db import db, store
from sepia.limits import NUGGET_MAX_CHARS
from sepia.web.forms import FormError, bounded_text, parse_id, parse_ids
from sepia.web.security import roles_required
from sepia.services.topics import NUGGETS
from sepia.web.topics import get_topic, topic_rows, topic_view

bp = Blueprint("nuggets", __name__, url_prefix="/nuggets")
EDITORS = ("organiser", "topic_developer")
LABEL_RE = re.compile(r"^N(\d+)$")


class NuggetError(ValueError):
    pass


def next_label(topic) -> str:
    numbers = [int(m.group(1)) for n in topic.nuggets if (m := LABEL_RE.match(n.label))]
    return f"N{max(numbers, default=0) + 1:03d}"


def _linked_answers(topic, form) -> list:
    try:
        wanted = parse_ids(form.getlist("answer_ids"), "answer text")
    except FormError as error:
        raise NuggetError(str(error)) from error
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
    try:
        return bounded_text(text, NUGGET_MAX_CHARS, "A nugget")
    except FormError as error:
        raise NuggetError(str(error)) from error


def _not_a_copy(topic, form, but: int | None = None) -> None:
    """Refuse a text that is already one of the topic's nuggets (after NFKC and white-space folding)."""
    first = nugget_copies.same_text(topic.nuggets, _text(form), but)
    if first is not None:
        raise NuggetError(f"{first.label} says this already (\u201c{first.text}\u201d): a topic's nuggets are "
                          "unique, so it was not saved. Edit that nugget instead.")


def _completed(topic):
    """The topic (mapped, or as the page shows it), if nuggets may come from it; else 409."""
    if topic.status != TOPIC_COMPLETED:
        abort(409, f"Topic {topic.id} is still in development; nuggets come from completed topics.")
    return topic


def _completed_topic(topic_id: str):
    return _completed(get_topic(topic_id, NUGGETS))


def _page(topic_id: str, form, editing: dict, suggested=()) -> str:
    """The topic's nugget page; answer texts are numbered A1, A2, ... in the order they were saved;
    `suggested`: the LLM's suggestions, each to accept (as is or edited) or discard."""
    topic = _completed(topic_view(topic_id, answers=True, nuggets=True, votes=True, links=True))
    numbers = {answer.id: number for number, answer in enumerate(topic.answer_texts, 1)}
    return render_template("nuggets/topic.html", topic=topic, numbers=numbers, form=form, editing=editing,
                           suggested=suggested, can_suggest=bool(current_app.config.get("LLM_OPTIONS")))


@bp.route("/<topic_id>/suggest", methods=["POST"])
@roles_required(*EDITORS)
def suggest(topic_id: str):
    """The LLM's nugget suggestions from the topic's saved answer texts, shown beside the form; nothing
    is stored until the nugget creator adds one."""
    from sepia.services.nugget_suggestions import suggestions

    topic = _completed_topic(topic_id)
    answer_ids = [a.id for a in sorted(topic.answer_texts, key=lambda a: a.id)]
    db().close()  # the model may take a while: no transaction is held open meanwhile
    try:
        found, _ = suggestions(store(), topic_id, current_app.config.get("LLM_OPTIONS") or {})
    except ValueError as error:
        return _refuse(topic_id, f"No suggestions: {error}", 502)
    suggested = [{"text": s.text, "docids": s.docids, "answer_ids": [str(answer_ids[i]) for i in s.passages]}
                 for s in found]
    flash(f"{len(suggested)} nuggets suggested: add the ones you keep, edited if need be.", "info")
    return _page(topic_id, {}, {}, suggested)


@bp.route("/")
@roles_required(*EDITORS)
def index():
    copies = nugget_copies.find_copies(db()) if g.user.role == "organiser" else []
    return render_template("nuggets/index.html", rows=topic_rows(completed_only=True), copies=copies)


@bp.route("/<topic_id>/merge", methods=["POST"])
@roles_required("organiser")
def merge(topic_id: str):
    """Merge a topic's copies of one nugget into the first of each, keeping every vote and judgment."""
    merged = nugget_copies.merge_all(db(), [topic_id])
    db().commit()
    if not merged:
        flash(f"{topic_id} has no copies of a nugget (any more).", "warning")
    for copies, moved in merged:
        flash(f"{topic_id}: {', '.join(n.label for n in copies.others)} merged into {copies.keep.label} "
              f"({moved['votes']} vote(s) and {moved['judgments']} judgment(s) moved or folded).", "success")
    return redirect(url_for("nuggets.index") + "#copies")


@bp.route("/<topic_id>")
@roles_required(*EDITORS)
def topic(topic_id: str):
    return _page(topic_id, {}, {})


# Two people adding a nugget to one topic at once may pick the same label: the unique constraint
# refuses the second, which then takes the next label.
ADD_ATTEMPTS = 3


@bp.route("/<topic_id>", methods=["POST"])
@roles_required(*EDITORS)
def add(topic_id: str):
    for _attempt in range(ADD_ATTEMPTS):
        topic = _completed_topic(topic_id)
        try:
            with conflicts(db()):
                _not_a_copy(topic, request.form)
                nugget = nuggets.add_nugget(topic, next_label(topic), _text(request.form), g.user.username,
                                            _linked_answers(topic, request.form))
                db().commit()
            break
        except NuggetError as error:
            return _refuse(topic_id, str(error), 422)
        except Conflict:
            pass
    else:
        return _refuse(topic_id, "Others are adding nuggets to this topic right now; yours was not saved. "
                       "It is still in the form: add it again.", 409)
    flash(f"Nugget {nugget.label} added ({len(nugget.text)} characters).", "success")
    return redirect(url_for("nuggets.topic", topic_id=topic_id) + "#new-nugget")


def _refuse(topic_id: str, message: str, status: int, editing: dict | None = None):
    """The topic's page again with the message, and the user's input still in its form."""
    db().rollback()
    flash(message, "error")
    form = request.form if editing is None else {}
    return _page(topic_id, form, editing or {}), status


def _nugget(topic, nugget_id: int):
    nugget = nuggets.nugget_by_id(db(), nugget_id, topic.id)
    if nugget is None:
        abort(404, "No such nugget.")
    return nugget


def _loaded_version(nugget) -> int:
    try:
        return parse_id(request.form.get("version", ""), "version")
    except FormError as error:
        abort(400, f"{nugget.label}: {error}")


@bp.route("/<topic_id>/<int:nugget_id>", methods=["POST"])
@roles_required(*EDITORS)
def update(topic_id: str, nugget_id: int):
    topic = _completed_topic(topic_id)
    nugget = _nugget(topic, nugget_id)
    mine = {"id": nugget.id, "text": request.form.get("text", ""),
            "answer_ids": request.form.getlist("answer_ids")}
    try:
        text = _text(request.form)
        _not_a_copy(topic, request.form, but=nugget.id)
        answers = _linked_answers(topic, request.form)
    except NuggetError as error:
        return _refuse(topic_id, f"{nugget.label}: {error}", 422, mine)
    if _loaded_version(nugget) != nugget.version:
        return _edit_conflict(topic_id, nugget, mine)
    changed = nuggets.edit_nugget(nugget, text, answers)
    try:
        commit(db())
    except Conflict:  # saved by someone else between our read and our write
        return _edit_conflict(topic_id, nugget, mine)
    message = f"Nugget {nugget.label} saved."
    if changed and nugget.votes:
        message += f" Note: {len(nugget.votes)} vote(s) were cast on its earlier text."
    flash(message, "success")
    return redirect(url_for("nuggets.topic", topic_id=topic_id) + f"#nugget-{nugget.id}")


def _edit_conflict(topic_id: str, nugget, mine: dict):
    db().rollback()
    current = nuggets.nugget_by_id(db(), nugget.id)
    if current is None:
        return _refuse(topic_id, "Someone deleted this nugget while you edited it. Your text is below: "
                       "add it as a new nugget if it is still wanted.", 409)
    return _refuse(topic_id, f"Someone else saved {current.label} after you opened it: it now reads "
                   f"\u201c{current.text}\u201d. Nothing was overwritten; your text is in its form below: "
                   "save it again to replace theirs.", 409, mine)


@bp.route("/<topic_id>/<int:nugget_id>/delete", methods=["POST"])
@roles_required(*EDITORS)
def delete(topic_id: str, nugget_id: int):
    topic = _completed_topic(topic_id)
    nugget = _nugget(topic, nugget_id)
    label, votes = nugget.label, len(nugget.votes)
    if _loaded_version(nugget) != nugget.version:
        return _refuse(topic_id, f"Someone changed {label} after you opened the page; it was not deleted. "
                       "Look at it again and delete it if you still want to.", 409)
    nuggets.delete_nugget(topic, nugget)
    try:
        commit(db())
    except Conflict:
        return _refuse(topic_id, f"Someone changed {label} at the same moment; it was not deleted.", 409)
    flash(f"Nugget {label} deleted" + (f" with its {votes} vote(s)." if votes else "."), "success")
    return redirect(url_for("nuggets.topic", topic_id=topic_id))
