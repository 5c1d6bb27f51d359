"""Assessment in the browser: organisers build pools and share them out; assessors judge their queue,
one pooled item at a time, blind (no run or team shown), with the keyboard. Every judgment is saved
when it is made, so a closed tab loses nothing and the screen resumes at the first open item."""
from __future__ import annotations

import dataclasses
import math
from collections import Counter

from flask import Blueprint, abort, current_app, flash, g, redirect, render_template, request, url_for
from sqlalchemy import func, select
from sqlalchemy.orm import selectinload

from sepia.services.documents import get_document
from sepia.store import controls, guidelines, judging
from sepia.store.db import hold
from sepia.store.guidelines import GuidelinesUnread
from sepia.store.errors import ImportRefused
from sepia.store.models import Nugget, Pool, PoolEntry, Run, Topic, User
from sepia.store.pools import DEFAULT_DEPTH, assign_pool, build_pool, pool_size
from sepia.text.plural import counted
from sepia.vocab import LANGUAGES
from sepia.web.db import db, get_or_404
from sepia.web.forms import FormError, bounded_text, parse_id, parse_ids
from sepia.web.item_view import read_item, read_queue
from sepia.web.search_pane import hit_spans, question_query
from sepia.web.security import roles_required
from sepia.web.topic_view import TopicView
from sepia.web.topics import topic_view

PLAN_MATCHERS = ("binarized", "learned")   # estimates page: learned = trained on the plan's judgments, cross-fitted

bp = Blueprint("judging", __name__)
COMMENT_MAX_CHARS = 2_000


# ---------------------------------------------------------------- organisers: pools and assignments

@bp.route("/pools/")
@roles_required("organiser")
def pools():
    rows = db().scalars(select(Pool).order_by(Pool.created_at)).all()
    assessors = db().scalars(select(User.username).where(User.role == "assessor", User.active)
                             .order_by(User.username)).all()
    runs = {(kind, lang): n for kind, lang, n in db().execute(
        select(Run.kind, Run.target_lang, func.count()).group_by(Run.kind, Run.target_lang))}
    return render_template("judging/pools.html", pools=rows, progress=judging.progress(db()), assessors=assessors,
                           languages=LANGUAGES, default_depth=DEFAULT_DEPTH, runs=runs)


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
        replace = form.get("replace") == "1"
        if not replace and db().scalar(select(Pool.id).where(Pool.name == name)) is not None:
            raise FormError(f"A pool named {name} exists: tick “Replace the pool of that name” to build it anew, "
                            "or choose another name.")
        kept = _kept_plan(name) if replace and kind == "cclqa" and not form.get("budget", "").strip() else None
        built = build_pool(db(), name, kind, depth, lang=lang, priorities=priorities, replace=replace)
        built.suggest = kind == "cclqa" and form.get("suggest") == "1"
        plan = _draw_plan(form, name, kind)
        changes = _restore_plan(name, kept) if kept else []
        db().commit()
    except (FormError, ImportRefused) as error:
        db().rollback()
        flash(str(error) if isinstance(error, FormError) else "; ".join(error.reasons), "error")
        return redirect(url_for("judging.pools"))
    size = pool_size(db(), built.id)
    flash(f"Pool {built.name}: {counted(size.items, 'item')} over {counted(size.topics, 'topic')}.",
          "success")
    if plan is not None:
        topics = counted(len(plan.topics), "topic")
        drawn = f"{counted(len(plan.nuggets), 'response and nugget pair')} over {topics}, each response its own " \
            "nuggets" if plan.unit == "items" else topics
        flash(f"Judging plan: {drawn} ({plan.budget}, seed {plan.seed}).", "success")
    _plan_kept(name, kept, changes)
    return redirect(url_for("judging.pools"))


def _kept_plan(name: str) -> dict | None:
    """The judging plan of the pool NAME about to be replaced (`sepia.store.plans.kept_plan`)."""
    from sepia.store.plans import kept_plan

    pool_id = db().scalar(select(Pool.id).where(Pool.name == name))
    return None if pool_id is None else kept_plan(db(), pool_id)


def _restore_plan(name: str, kept: dict) -> list[str]:
    from sepia.store.plans import restore_plan

    return restore_plan(db(), name, kept)


def _plan_kept(name: str, kept: dict | None, changes: list[str]) -> None:
    """Say that a rebuilt pool kept its judging plan, and whether its topics changed since the draw."""
    if kept:
        flash(f"{name}'s judging plan is kept (seed {kept['seed']}, the same topics).", "success")
    if changes:
        flash(f"{name}'s judging plan: {'; '.join(changes)}. Its estimates are refused until a new plan is drawn "
              "(build the pool again with a budget and “Replace” ticked).", "error")


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


@bp.route("/pools/<int:pool_id>/rebuild", methods=["POST"])
@roles_required("organiser")
def rebuild(pool_id: int):
    """The pool built anew with its own settings from the runs stored now (its assignments go; the
    judgments stay, as they belong to the responses and documents, not to the pool) and its judging
    plan kept as it was drawn, so the judgments made for it still count."""
    pool = get_or_404(Pool, pool_id, "pool")
    name, suggest = pool.name, pool.suggest
    priorities = [int(p) for p in (pool.priorities or "").split(",") if p]
    plan = _kept_plan(name)
    try:
        built = build_pool(db(), name, pool.kind, pool.depth, pool.max_priority, replace=True, lang=pool.lang,
                           priorities=priorities)
        built.suggest = suggest
        changes = _restore_plan(name, plan) if plan else []
        db().commit()
    except ImportRefused as error:
        db().rollback()
        flash("; ".join(error.reasons), "error")
        return redirect(url_for("judging.pools"))
    flash(f"Pool {name} rebuilt: {counted(pool_size(db(), built.id).items, 'item')}; assign it again.", "success")
    _plan_kept(name, plan, changes)
    return redirect(url_for("judging.pools"))


@bp.route("/pools/<int:pool_id>/delete", methods=["POST"])
@roles_required("organiser")
def delete(pool_id: int):
    pool = get_or_404(Pool, pool_id, "pool")
    db().delete(pool)
    db().commit()
    flash(f"Pool {pool.name} deleted; the judgments made in it are kept.", "success")
    return redirect(url_for("judging.pools"))


# ---------------------------------------------------------------- assessors: the queue and the screen

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
        suggested = judging.suggestion(topic.nuggets, current.entry.members[0].text)
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
        elif pool.kind == "cclqa":
            query = select(Nugget.id).where(Nugget.topic_id == topic_id).order_by(Nugget.position)
            planned = _planned_labels(pool, topic_id, current.entry)
            if planned is not None:  # an item-level plan: the item's planned nuggets only
                query = query.where(Nugget.label.in_(planned))
            nugget_ids = db().scalars(query).all()
            matched = parse_ids(form.getlist("nugget"), "nugget")
            if not matched <= set(nugget_ids):
                raise FormError("A nugget you ticked is not a nugget of this topic; reload the page.")
            judging.save_nugget_judgment(db(), current, nugget_ids, matched, comment)
        else:
            level = parse_id(form.get("level", ""), "relevance level")
            if level >= current_app.config["RELEVANCE_LEVELS"]:
                raise FormError(f"Level L{level} is not a level of this campaign.")
            judging.save_relevance(db(), current, level, comment)
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
    form = request.form
    if kind == "cclqa":
        nugget_ids = set(db().scalars(select(Nugget.id).where(Nugget.topic_id == topic_id)))
        matched = parse_ids(form.getlist("nugget"), "nugget")
        if not matched <= nugget_ids:
            raise FormError("A nugget you ticked is not a nugget of this topic; reload the page.")
        return controls.nugget_answer(matched)
    level = parse_id(form.get("level", ""), "relevance level")
    if level >= current_app.config["RELEVANCE_LEVELS"]:
        raise FormError(f"Level L{level} is not a level of this campaign.")
    return str(level)


# ---------------------------------------------------------------- organisers: disputes and agreement

def _tie_choices(dispute: judging.Dispute) -> set[int]:
    """The nuggets of a tie the organiser chose as matches; every tie must be chosen (no default)."""
    chosen = {n: request.form.get(f"tie-{n}") for n in dispute.ties()}
    open_ties = [n for n, choice in chosen.items() if choice not in ("1", "0")]
    if open_ties:
        labels = dict(db().execute(select(Nugget.id, Nugget.label).where(Nugget.id.in_(open_ties))).all())
        raise FormError("A tie has no default: choose match or no for " + ", ".join(
            f"{labels[n]} ({dispute.said(n)})" for n in sorted(open_ties, key=labels.__getitem__)) + ".")
    return {n for n, choice in chosen.items() if choice == "1"}


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
    hold(db(), PoolEntry.topic_id, PoolEntry.id == entry_id)  # a second organiser deciding it waits, then is told
    disputed = judging.disputes(db(), pool, entry_id)  # this item alone: not the whole pool's
    if not disputed:
        abort(404, "This item is not disputed.")
    entry = disputed[0].entry
    if request.form.get("seen", "") != disputed[0].decision_token():
        db().rollback()
        flash(f"Item {entry.id} of {entry.topic_id} was decided by another organiser since you opened this page: "
              "nothing of yours was saved. Their decision is shown below; decide again to change it.", "error")
        return redirect(url_for("judging.disputes", pool_id=pool_id) + f"#item-{entry_id}")
    try:
        if pool.kind == "cclqa":
            nugget_ids = db().scalars(select(Nugget.id).where(Nugget.topic_id == entry.topic_id)
                                      .order_by(Nugget.position)).all()
            matched = parse_ids(request.form.getlist("nugget"), "nugget")
            if not matched <= set(nugget_ids):
                raise FormError("A nugget you ticked is not a nugget of this topic.")
            matched = (matched - disputed[0].ties()) | _tie_choices(disputed[0])
            judging.adjudicate(db(), entry, nugget_ids, matched)
        else:
            level = parse_id(request.form.get("level", ""), "relevance level")
            if level >= current_app.config["RELEVANCE_LEVELS"]:
                raise FormError(f"Level L{level} is not a level of this campaign.")
            judging.adjudicate(db(), entry, level=level)
        if request.form.get("control") == "1":
            reason = bounded_text(request.form.get("reason", "").strip(), COMMENT_MAX_CHARS, "A reason")
            db().flush()
            controls.mark_control(db(), entry, reason, g.user.username)
        db().commit()
    except (FormError, ImportRefused) as error:
        db().rollback()
        flash(str(error) if isinstance(error, FormError) else "; ".join(error.reasons), "error")
    else:
        kept = " and a control item" if request.form.get("control") == "1" else ""
        flash(f"Item {entry.id} of {entry.topic_id} decided: that judgment is now the official one{kept}.", "success")
    return redirect(url_for("judging.disputes", pool_id=pool_id) + f"#item-{entry_id}")


# ---------------------------------------------------------------- judging plans (sepia.store.plans)

def _draw_plan(form, name: str, kind: str):
    """The judging plan the pool form asks for (budget, strata, seed, unit), drawn in the pool's
    transaction; None without a budget. A bad budget or seed is a FormError: nothing is stored."""
    from sepia.store.plans import MAX_SEED, make_plan

    budget = form.get("budget", "").strip()
    if not budget:
        return None
    seed = form.get("seed", "").strip() or "0"
    if kind != "cclqa" or not seed.isdigit() or int(seed) > MAX_SEED:
        raise FormError(f"A judging budget is for CCLQA pools, with a seed from 0 to {MAX_SEED}.")
    try:
        return make_plan(db(), name, budget, form.get("strata", "none"), int(seed), form.get("unit", "topics"))
    except ValueError as error:
        raise FormError(str(error)) from None


@bp.route("/pools/<int:pool_id>/plan/add", methods=["POST"])
@roles_required("organiser")
def add_plan_topics(pool_id: int):
    """Draw more topics into the pool's judging plan (`sepia pool plan --add N --seed S`) and, when
    assessors are ticked, share the new topics out to them (`sepia pool assign`: nothing anyone holds
    is handed out again)."""
    from sepia.store.plans import MAX_SEED, add_topics

    pool = get_or_404(Pool, pool_id, "pool")
    count, seed = request.form.get("count", "").strip(), request.form.get("seed", "").strip() or "0"
    assessors = [a for a in request.form.getlist("assessors") if a]
    try:
        if not count.isdigit() or not seed.isdigit() or int(seed) > MAX_SEED:
            raise ValueError(f"give a number of topics to add and a seed from 0 to {MAX_SEED}")
        added = add_topics(db(), pool.name, int(count), int(seed))
        assigned = assign_pool(db(), pool.name, assessors, float(request.form.get("overlap") or 0) / 100) \
            if assessors else 0
        db().commit()
    except (ValueError, ImportRefused) as error:
        db().rollback()
        flash(f"{pool.name}: nothing added: {error}.", "error")
        return redirect(url_for("judging.pools") + f"#pool-{pool_id}")
    shared = f"; {assigned} items assigned to {', '.join(assessors)}" if assessors else \
        "; assign them with the Assign button"
    flash(f"{pool.name}: {len(added)} topics added to the judging plan (seed {seed}): {', '.join(added)}{shared}.",
          "success")
    return redirect(url_for("judging.pools") + f"#pool-{pool_id}")


@bp.route("/pools/<int:pool_id>/plan/wave", methods=["POST"])
@roles_required("organiser")
def add_plan_wave(pool_id: int):
    """Draw the next wave of the pool's item-level plan (`sepia pool plan NAME --add N --seed S`)."""
    from sepia.services.plan_waves import draw_wave
    from sepia.store.plans import MAX_SEED
    from sepia.web.db import store

    pool = get_or_404(Pool, pool_id, "pool")
    name, count, seed = pool.name, request.form.get("count", "").strip(), request.form.get("seed", "").strip() or "0"
    back = redirect(url_for("judging.pools") + f"#pool-{pool_id}")
    if not count.isdigit() or int(count) < 1 or not seed.isdigit() or int(seed) > MAX_SEED:
        flash(f"{name}: nothing drawn: give a number of pairs of at least 1 and a seed from 0 to {MAX_SEED}.", "error")
        return back
    db().close()  # the draw reads and writes the store in its own transactions
    try:
        wave = draw_wave(store(), name, int(count), int(seed))
    except ImportRefused as error:
        flash("; ".join(error.reasons) + ".", "error")
        return back
    flash(f"{name}: wave {wave.wave} of the judging plan: {wave.drawn} (response, nugget) pairs drawn for "
          f"{counted(wave.responses, 'response')} ({wave.expected} expected, seed {seed}); "
          f"{counted(wave.reopened, 'judged item')} {'is' if wave.reopened == 1 else 'are'} back in the assessors' queues.",
          "success")
    return back


@bp.app_template_global()
def judging_plans(progress) -> dict:
    """Pool ID -> its judging plan, for the pools page (a few queries for all pools)."""
    from sepia.store.plans import plans_overview

    return plans_overview(db(), progress)


@bp.app_template_global()
def no_interval(group: dict) -> str | None:
    """`sepia.services.plan_estimates.no_interval`, for the estimates shown on the pools and results pages."""
    from sepia.services.plan_estimates import no_interval as why

    return why(group)


@bp.route("/pools/<int:pool_id>/estimates")
@roles_required("organiser")
def estimates(pool_id: int):
    """The runs' human F3 as last estimated from the plan's judged topics (PPI++ on BINARIZED), with
    95% intervals and the width projected for the whole plan; exact once every topic is judged.
    Shown as stored: scoring every run on each request would not stay bounded."""
    from sepia.store.plans import saved_estimates

    pool = get_or_404(Pool, pool_id, "pool")
    saved = saved_estimates(db()).get(pool_id)
    return render_template("judging/estimates.html", pool_name=pool.name, saved=saved,
                           report=saved and saved["report"], warnings=saved["warnings"] if saved else [])


@bp.route("/pools/<int:pool_id>/estimates", methods=["POST"])
@roles_required("organiser")
def estimate(pool_id: int):
    """Estimate again from the judgments stored now and keep the result (or why it was refused)."""
    from sepia.services.plan_estimates import estimate_plan
    from sepia.services.scores import NothingToScore
    from sepia.scoring.evaluate import Settings
    from sepia.store.plans import save_estimate
    from sepia.web.db import store

    name = get_or_404(Pool, pool_id, "pool").name
    matcher = request.form.get("matcher", "binarized")
    if matcher not in PLAN_MATCHERS:
        abort(400, f"estimates come from {' or '.join(PLAN_MATCHERS)}, not {matcher!r}")
    db().close()  # the estimate reads the store in its own transaction
    try:
        report, warnings = estimate_plan(store(), Settings(matcher), name)
    except (ImportRefused, NothingToScore) as problem:
        report, warnings = None, [str(problem)]
    try:
        with store().transaction() as session:
            save_estimate(session, name, report, warnings)
    except ImportRefused as problem:     # the plan went while the runs were being scored
        flash("; ".join(problem.reasons), "error")
        return redirect(url_for("judging.pools"))
    flash(f"{name}: estimated{' (refused: see below)' if report is None else ''}.", "success")
    return redirect(url_for("judging.estimates", pool_id=pool_id))
