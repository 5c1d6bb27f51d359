"""Topic development: the topic list, the edit form beside the search pane, and answer texts."""
from __future__ import annotations

from flask import Blueprint, abort, flash, g, jsonify, redirect, render_template, request, url_for
from sepia.services import topic_edit, topics
from sepia.services.documents import collection_languages, get_document
from sepia.services.topics import EVERYTHING, load_topic, read_topic_lang, read_topic_view, reread
from sepia.services.writes import Conflict, commit
from sepia.vocab import ANSWER_TYPES, LANGUAGE_NAMES, LANGUAGES
from sepia.web import search_pane
from sepia.web.db import db
from sepia.web.forms import FormError, parse_id
from sepia.web.security import roles_required
from sepia.store.topic_view import TopicView

bp = Blueprint("topics", __name__, url_prefix="/topics")
EDITORS = ("organiser", "topic_developer")


def get_topic(topic_id: str, loaded=EVERYTHING):
    """The topic, to change, with what `loaded` names already loaded; 404 when there is none."""
    topic = load_topic(db(), topic_id, loaded)
    if topic is None:
        abort(404, f"No topic {topic_id}.")
    return topic


def topic_view(topic_id: str, **parts: bool) -> TopicView:
    """The topic as a page shows it, with the parts sepia.store.topic_view.read_topic names; 404
    when there is none."""
    topic = read_topic_view(db(), topic_id, **parts)
    if topic is None:
        abort(404, f"No topic {topic_id}.")
    return topic


def topic_rows(lang: str | None = None, completed_only: bool = False) -> list[dict]:
    """The topics with their counts of answer texts and nuggets, for the lists of every screen."""
    return topics.topic_rows(db(), lang, completed_only)


@bp.route("/")
@roles_required(*EDITORS)
def index():
    lang = request.args.get("lang") or None
    if lang not in (None, *LANGUAGES):
        abort(404, f"Unknown language {lang}.")
    # A new topic is written beside the search of its collection: offer the languages that have one.
    collected = [code for code in LANGUAGES if code in collection_languages(db())]
    return render_template("topics/index.html", rows=topic_rows(lang), lang=lang,
                           languages=LANGUAGES, new_languages=collected or list(LANGUAGES),
                           language_names=LANGUAGE_NAMES,
                           suggested={code: topic_edit.next_topic_id(db(), code) for code in LANGUAGES})


@bp.route("/", methods=["POST"])
@roles_required(*EDITORS)
def create():
    try:
        topic = topic_edit.create_topic(db(), request.form.get("lang", ""), request.form.get("topic_id", ""),
                                        g.user.username)
        db().commit()
    except topic_edit.TopicError as error:
        db().rollback()
        flash(str(error), "error")
        return redirect(url_for("topics.index"))
    flash(f"Topic {topic.id} created.", "success")
    return redirect(url_for("topics.edit", topic_id=topic.id))


def _render_edit(topic, values: dict, version: int, status: int = 200):
    return render_template("topics/edit.html", topic=topic, values=values, version=version,
                           answer_types=ANSWER_TYPES, language_names=LANGUAGE_NAMES), status


@bp.route("/<topic_id>")
@roles_required(*EDITORS)
def edit(topic_id: str):
    topic = topic_view(topic_id, answers=True, nuggets=True)
    return _render_edit(topic, topic_edit.values_of(topic), topic.version)


@bp.route("/<topic_id>", methods=["POST"])
@roles_required(*EDITORS)
def save(topic_id: str):
    topic = get_topic(topic_id)
    mine = topic_edit.values_from_form(request.form, topic.lang)
    try:
        loaded_version = parse_id(request.form.get("version", ""), "version")
    except FormError as error:
        abort(400, str(error))
    if loaded_version != topic.version:
        return _conflict(topic, mine)
    try:
        topic_edit.apply(topic, mine, g.user.username)
        commit(db())
    except topic_edit.TopicError as error:
        db().rollback()
        flash(str(error), "error")
        return _render_edit(get_topic(topic_id), mine, loaded_version, 422)
    except Conflict:
        # Someone saved between our read and our write: the version check in the UPDATE caught it.
        return _conflict(get_topic(topic_id), mine)
    flash(f"Topic {topic.id} saved.", "success")
    return redirect(url_for("topics.edit", topic_id=topic.id))


def _conflict(topic, mine: dict):
    theirs = topic_edit.values_of(reread(db(), topic))
    flash("Someone else saved this topic after you opened it. Nothing was overwritten: "
          "compare the two versions and choose.", "error")
    return render_template("topics/conflict.html", topic=topic, mine=mine, theirs=theirs,
                           diffs=topic_edit.differences(mine, theirs)), 409


@bp.route("/<topic_id>/remove", methods=["POST"])
@roles_required("organiser")
def remove(topic_id: str):
    """Delete a topic nobody has built on yet; retire one with nuggets (they and their votes stay)."""
    topic = get_topic(topic_id)
    if topics.remove_topic(db(), topic):
        message = f"Topic {topic.id} retired: its nuggets and votes are kept; it no longer appears in lists and queues."
    else:
        message = f"Topic {topic.id} deleted."
    db().commit()
    flash(message, "success")
    return redirect(url_for("topics.index"))


# ---------------------------------------------------------------- search pane

def _topic_lang(topic_id: str):
    """The topic's ID and language, all the search pane needs of it; 404 when there is none."""
    row = read_topic_lang(db(), topic_id)
    if row is None:
        abort(404, f"No topic {topic_id}.")
    return row


@bp.route("/<topic_id>/search")
@roles_required(*EDITORS)
def search(topic_id: str):
    topic = _topic_lang(topic_id)
    query = request.args.get("q", "").strip()
    page = max(request.args.get("page", 1, type=int) or 1, 1)
    if not query:
        return render_template("topics/_results.html", topic=topic, query="", result=None, error=None)
    try:
        result = search_pane.search(topic.lang, query, page)
        error = None
    except search_pane.SearchUnavailable as problem:
        result, error = None, str(problem)
    return render_template("topics/_results.html", topic=topic, query=query, result=result, error=error)


@bp.route("/<topic_id>/generate-query", methods=["POST"])
@roles_required(*EDITORS)
def generate_query(topic_id: str):
    topic = _topic_lang(topic_id)
    payload = request.get_json(silent=True) or request.form
    raw = payload.get("key_terms", "")
    terms = raw if isinstance(raw, list) else str(raw).replace("，", ",").replace("、", ",").split(",")
    terms = [str(term).strip() for term in terms if str(term).strip()]
    if not terms:
        return jsonify(error="Enter one or more key terms, separated by commas."), 422
    try:
        return jsonify(query=search_pane.generate_query(topic.lang, terms))
    except search_pane.SearchUnavailable as problem:
        return jsonify(error=str(problem)), 503


@bp.route("/<topic_id>/documents/<path:docid>")
@roles_required(*EDITORS)
def document(topic_id: str, docid: str):
    """The full document as JSON: its stored text and the query's hits as code-point offsets.
    The browser builds the view from text nodes, so what it selects maps back to these offsets."""
    topic = _topic_lang(topic_id)
    doc = get_document(db(), docid)
    if doc is None or doc.lang != topic.lang:
        return jsonify(error=f"No document {docid} in the {topic.lang} collection."), 404
    spans = search_pane.hit_spans(topic.lang, docid, request.args.get("q"), len(doc.text))
    return jsonify(docid=doc.docid, title=doc.title, date=doc.date or "", text=doc.text,
                   hits=[list(span) for span in spans])


# ---------------------------------------------------------------- answer texts

def answer_json(answer) -> dict:
    return {"id": answer.id, "docid": answer.docid, "start": answer.start, "end": answer.end,
            "text": answer.text, "created_by": answer.created_by,
            "delete_url": url_for("topics.delete_answer", topic_id=answer.topic_id, answer_id=answer.id)}


@bp.route("/<topic_id>/answers", methods=["POST"])
@roles_required(*EDITORS)
def add_answer(topic_id: str):
    topic = get_topic(topic_id)
    payload = request.get_json(silent=True) if request.is_json else request.form
    wants_json = request.is_json
    try:
        if payload is None:
            raise topic_edit.TopicError("The request carries no passage.")
        passage = topic_edit.Passage(
            docid=str(payload.get("docid", "")).strip(),
            start=topic_edit.parse_offset(payload.get("start")),
            end=topic_edit.parse_offset(payload.get("end")),
            text=str(payload.get("text", "")),
        )
        answer = topics.add_answer_text(db(), topic, passage, g.user.username)
        db().commit()
    except topic_edit.TopicError as error:
        db().rollback()
        if wants_json:
            return jsonify(error=str(error)), 422
        flash(str(error), "error")
        return redirect(url_for("topics.edit", topic_id=topic_id))
    if wants_json:
        return jsonify(answer=answer_json(answer)), 201
    flash(f"Answer text saved from {answer.docid}.", "success")
    return redirect(url_for("topics.edit", topic_id=topic_id))


@bp.route("/<topic_id>/answers/<int:answer_id>/delete", methods=["POST"])
@roles_required(*EDITORS)
def delete_answer(topic_id: str, answer_id: int):
    answer = topics.answer_text(db(), topic_id, answer_id)
    if answer is None:
        abort(404, "No such answer text.")
    linked = topics.delete_answer_text(db(), answer)
    db().commit()
    message = f"Answer text {answer_id} deleted."
    if linked:
        message += f" It was linked to {linked} nugget(s); they keep their text."
    if request.is_json:
        return jsonify(deleted=answer_id, message=message)
    flash(message, "success")
    return redirect(url_for("topics.edit", topic_id=topic_id))
