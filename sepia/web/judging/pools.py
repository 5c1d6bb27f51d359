"""Organisers' pools: built (with a judging plan drawn, or kept when one is rebuilt), shared out
to assessors, rebuilt from the runs stored now, deleted."""
from __future__ import annotations

from flask import flash, redirect, render_template, request, url_for

from sepia.services import pools as service
from sepia.store.errors import ImportRefused
from sepia.store.pools import DEFAULT_DEPTH, assign_pool, pool_size
from sepia.text.plural import counted
from sepia.vocab import LANGUAGES
from sepia.web.db import db, found_or_404
from sepia.web.forms import FormError, bounded_text, parse_id, parse_ids
from sepia.web.judging.blueprint import bp
from sepia.web.security import roles_required


@bp.route("/pools/")
@roles_required("organiser")
def pools():
    page = service.pools_page(db())
    return render_template("judging/pools.html", pools=page.pools, progress=page.progress, assessors=page.assessors,
                           languages=LANGUAGES, default_depth=DEFAULT_DEPTH, runs=page.runs)


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
        if not replace and service.pool_exists(db(), name):
            raise FormError(f"A pool named {name} exists: tick “Replace the pool of that name” to build it anew, "
                            "or choose another name.")
        budget = form.get("budget", "").strip()
        asked = service.PlanAsked(budget, form.get("strata", "none"), form.get("seed", "").strip(),
                                  form.get("unit", "topics")) if budget else None
        built = service.build(db(), name, kind, depth, lang=lang, priorities=priorities, replace=replace,
                              suggest=form.get("suggest") == "1", plan=asked)
        db().commit()
    except (FormError, service.PlanRefused, ImportRefused) as error:
        db().rollback()
        flash("; ".join(error.reasons) if isinstance(error, ImportRefused) else str(error), "error")
        return redirect(url_for("judging.pools"))
    size = pool_size(db(), built.pool.id)
    flash(f"Pool {built.pool.name}: {counted(size.items, 'item')} over {counted(size.topics, 'topic')}.",
          "success")
    plan = built.plan
    if plan is not None:
        topics = counted(len(plan.topics), "topic")
        drawn = f"{counted(len(plan.nuggets), 'response and nugget pair')} over {topics}, each response its own " \
            "nuggets" if plan.unit == "items" else topics
        flash(f"Judging plan: {drawn} ({plan.budget}, seed {plan.seed}).", "success")
    _plan_kept(name, built)
    return redirect(url_for("judging.pools"))


def _plan_kept(name: str, built: service.Built) -> None:
    """Say that a rebuilt pool kept its judging plan, and whether its topics changed since the draw."""
    if built.kept:
        flash(f"{name}'s judging plan is kept (seed {built.kept['seed']}, the same topics).", "success")
    if built.changes:
        flash(f"{name}'s judging plan: {'; '.join(built.changes)}. Its estimates are refused until a new plan is "
              "drawn (build the pool again with a budget and “Replace” ticked).", "error")


@bp.route("/pools/<int:pool_id>/assign", methods=["POST"])
@roles_required("organiser")
def assign(pool_id: int):
    pool = found_or_404(service.pool_by_id(db(), pool_id), "pool")
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
    pool = found_or_404(service.pool_by_id(db(), pool_id), "pool")
    name = pool.name
    try:
        built = service.rebuild(db(), pool)
        db().commit()
    except ImportRefused as error:
        db().rollback()
        flash("; ".join(error.reasons), "error")
        return redirect(url_for("judging.pools"))
    flash(f"Pool {name} rebuilt: {counted(pool_size(db(), built.pool.id).items, 'item')}; assign it again.", "success")
    _plan_kept(name, built)
    return redirect(url_for("judging.pools"))


@bp.route("/pools/<int:pool_id>/delete", methods=["POST"])
@roles_required("organiser")
def delete(pool_id: int):
    pool = found_or_404(service.pool_by_id(db(), pool_id), "pool")
    service.delete(db(), pool)
    db().commit()
    flash(f"Pool {pool.name} deleted; the judgments made in it are kept.", "success")
    return redirect(url_for("judging.pools"))
