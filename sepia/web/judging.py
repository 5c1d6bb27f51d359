"""Assessment in the browser: organisers build pools and share them out; assessors judge their queue,
one pooled item at a time, blind (no run or team shown), with the keyboard. Every judgment is saved
when it is made, so a closed tab loses nothing and the screen resumes at the first open item."""
from __future__ import annotations

from collections import Counter

from flask import Blueprint, abort, current_app, flash, g, redirect, render_template, request, url_for
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from sepia.corpus.lookup import get_document
from sepia.store import judging
from sepia.store.io import ImportRefused
from sepia.store.models import Nugget, Pool, Topic, User
from sepia.store.pools import DEFAULT_DEPTH, assign_pool, build_pool
from sepia.vocab import LANGUAGES
from sepia.web.db import db, get_or_404
from sepia.web.forms import FormError, bounded_text, parse_id, parse_ids
from sepia.web.search_pane import hit_spans, question_query
from sepia.web.security import roles_required

bp = Blueprint("judging", __name__)
COMMENT_MAX_CHARS = 2_000


# ---------------------------------------------------------------- organisers: pools and assignments

@bp.route("/pools/")
@roles_required("organiser")
def pools():
    rows = db().scalars(select(Pool).order_by(Pool.created_at)).all()
    assessors = db().scalars(select(User.username).where(User.role == "assessor", User.active)
                             .order_by(User.username)).all()
    return render_template("judging/pools.html", pools=rows, progress=judging.progress(db()), assessors=assessors,
                           languages=LANGUAGES, default_depth=DEFAULT_DEPTH)


@bp.route("/pools/", methods=["POST"])
@roles_required("organiser")
def build():
    form = request.form
    kind = form.get("kind", "")
    lang = form.get("lang") or None
    try:
        name = bounded_text(" ".join(form.get("name", "").split()), 100, "A pool's name")
        priorities = parse_ids([p for p in form.get("priorities", "").replace(",", " ").split()], "priority")
        depth = parse_id(form.get("depth") or str(DEFAULT_DEPTH.get(kind, 30)), "depth")
        if not name or kind not in DEFAULT_DEPTH or lang not in (None, *LANGUAGES) or depth < 1:
            raise FormError("Give the pool a name, a task, a language and a depth of at least 1.")
        built = build_pool(db(), name, kind, depth, lang=lang, priorities=priorities)
        built.suggest = kind == "cclqa" and form.get("suggest") == "1"
        db().commit()
    except (FormError, ImportRefused) as error:
        db().rollback()
        flash(str(error) if isinstance(error, FormError) else "; ".join(error.reasons), "error")
        return redirect(url_for("judging.pools"))
    flash(f"Pool {built.name}: {len(built.entries)} items over {len({e.topic_id for e in built.entries})} topics.",
          "success")
    return redirect(url_for("judging.pools"))


@bp.route("/pools/<int:pool_id>/assign", methods=["POST"])
@roles_required("organiser")
def assign(pool_id: int):
    pool = get_or_404(Pool, pool_id, "pool")
    assessors = [a for a in request.form.getlist("assessors") if a]
    try:
        overlap = float(request.form.get("overlap", "0") or 0) / 100
        added = assign_pool(db(), pool.name, assessors, overlap)
        db().commit()
    except ValueError as error:
        db().rollback()
        flash(f"{pool.name}: {error}.", "error")
        return redirect(url_for("judging.pools"))
    flash(f"{pool.name}: {added} items assigned to {', '.join(assessors)}.", "success")
    return redirect(url_for("judging.pools"))


# ---------------------------------------------------------------- assessors: the queue and the screen

@bp.route("/judge/")
@roles_required("assessor")
def queue():
    return render_template("judging/queue.html", progress=judging.progress(db(), g.user.username))


def _topic(topic_id: str) -> Topic:
    topic = db().scalar(select(Topic).where(Topic.id == topic_id).options(
        selectinload(Topic.texts), selectinload(Topic.nuggets)))
    if topic is None:
        abort(404, f"No topic {topic_id}.")
    return topic


def _queue(pool_id: int, topic_id: str):
    pool = db().get(Pool, pool_id)
    items = judging.topic_queue(db(), g.user.username, pool_id, topic_id) if pool else []
    if not items:
        abort(404, "Nothing of this topic is in your queue.")
    return pool, items


@bp.route("/judge/<int:pool_id>/<topic_id>")
@roles_required("assessor")
def screen(pool_id: int, topic_id: str):
    pool, items = _queue(pool_id, topic_id)
    wanted = request.args.get("item", type=int)
    current = next((a for a in items if a.id == wanted), None) or judging.next_open(items)
    topic = _topic(topic_id)
    if current is None:
        return render_template("judging/done.html", pool=pool, topic=topic, items=items)
    document, pieces = None, []
    if pool.kind == "ir4qa":
        document = get_document(db(), current.entry.docid)
        if document is not None:
            pieces = _marked(document.text, hit_spans(topic.lang, document.docid, _question_words(topic),
                                                      len(document.text)))
    marked = judging.nugget_matches(db(), current) if pool.kind == "cclqa" else {}
    suggested = set()
    if pool.kind == "cclqa" and pool.suggest and current.judged_at is None:
        suggested = judging.suggestion(topic.nuggets, current.entry.members[0].text)
        marked = {n: 1.0 for n in suggested}
    level = judging.relevance_level(db(), current) if pool.kind == "ir4qa" else None
    return render_template("judging/screen.html", pool=pool, topic=topic, items=items, current=current,
                           index=items.index(current), marked=marked, suggested=suggested, level=level,
                           document=document, pieces=pieces,
                           levels=range(current_app.config["RELEVANCE_LEVELS"]))


def _question_words(topic: Topic) -> str:
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
    current = next((a for a in items if a.id == assignment_id), None)
    if current is None:
        abort(404, "This item is not in your queue.")
    form = request.form
    try:
        comment = bounded_text(form.get("comment", "").strip(), COMMENT_MAX_CHARS, "A comment")
        if form.get("action") == "skip":
            judging.skip(current, comment)
        elif pool.kind == "cclqa":
            nugget_ids = db().scalars(select(Nugget.id).where(Nugget.topic_id == topic_id)
                                      .order_by(Nugget.position)).all()
            matched = parse_ids(form.getlist("nugget"), "nugget")
            if not matched <= set(nugget_ids):
                raise FormError("A nugget you ticked is not a nugget of this topic; reload the page.")
            judging.save_nugget_judgment(db(), current, nugget_ids, matched, comment)
        else:
            level = parse_id(form.get("level", ""), "relevance level")
            if level >= current_app.config["RELEVANCE_LEVELS"]:
                raise FormError(f"Level L{level} is not a level of this campaign.")
            judging.save_relevance(db(), current, level, comment)
        db().commit()
    except FormError as error:
        db().rollback()
        flash(str(error), "error")
        return redirect(url_for("judging.screen", pool_id=pool_id, topic_id=topic_id, item=assignment_id))
    following = judging.next_open(items, items.index(current))
    target = {"item": following.id} if following is not None else {}
    return redirect(url_for("judging.screen", pool_id=pool_id, topic_id=topic_id, **target))


# ---------------------------------------------------------------- organisers: disputes and agreement

@bp.route("/pools/<int:pool_id>/disputes")
@roles_required("organiser")
def disputes(pool_id: int):
    """Items the assessors judged differently, most disputed first; the organiser's decision is official."""
    pool = get_or_404(Pool, pool_id, "pool")
    found = judging.disputes(db(), pool)
    topics = {t.id: t for t in db().scalars(select(Topic).where(Topic.id.in_({d.entry.topic_id for d in found}))
                                             .options(selectinload(Topic.nuggets)))}
    followed = judging.suggestion_agreement(db(), pool) if pool.suggest else None
    by_assessor = Counter(a for d in found for a in d.marks)
    return render_template("judging/disputes.html", pool=pool, disputes=found, topics=topics,
                           agreement=judging.agreement(db(), pool), followed=followed, by_assessor=by_assessor,
                           levels=range(current_app.config["RELEVANCE_LEVELS"]))


@bp.route("/pools/<int:pool_id>/disputes/<int:entry_id>", methods=["POST"])
@roles_required("organiser")
def adjudicate(pool_id: int, entry_id: int):
    pool = get_or_404(Pool, pool_id, "pool")
    disputed = judging.disputes(db(), pool, entry_id)  # this item alone: not the whole pool's
    if not disputed:
        abort(404, "This item is not disputed.")
    entry = disputed[0].entry
    try:
        if pool.kind == "cclqa":
            nugget_ids = db().scalars(select(Nugget.id).where(Nugget.topic_id == entry.topic_id)
                                      .order_by(Nugget.position)).all()
            matched = parse_ids(request.form.getlist("nugget"), "nugget")
            if not matched <= set(nugget_ids):
                raise FormError("A nugget you ticked is not a nugget of this topic.")
            judging.adjudicate(db(), entry, nugget_ids, matched)
        else:
            level = parse_id(request.form.get("level", ""), "relevance level")
            if level >= current_app.config["RELEVANCE_LEVELS"]:
                raise FormError(f"Level L{level} is not a level of this campaign.")
            judging.adjudicate(db(), entry, level=level)
        db().commit()
    except FormError as error:
        db().rollback()
        flash(str(error), "error")
    else:
        flash(f"Item {entry.id} of {entry.topic_id} decided: that judgment is now the official one.", "success")
    return redirect(url_for("judging.disputes", pool_id=pool_id) + f"#item-{entry_id}")
