"""Organisers' pools: built (with a judging plan drawn, or kept when one is rebuilt), shared out
to assessors, rebuilt from the runs stored now, deleted."""
from __future__ import annotations

from flask import flash, redirect, render_template, request, url_for
from sqlalchemy import func, select

from sepia.store import judging
from sepia.store.io import ImportRefused
from sepia.store.models import Pool, Run, User
from sepia.store.pools import DEFAULT_DEPTH, assign_pool, build_pool, pool_size
from sepia.vocab import LANGUAGES
from sepia.web.db import db, get_or_404
from sepia.web.forms import FormError, bounded_text, parse_id, parse_ids
from sepia.web.judging.blueprint import bp
from sepia.web.security import roles_required


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
    flash(f"Pool {built.name}: {size.items} items over {size.topics} topics.",
          "success")
    if plan is not None:
        drawn = f"{len(plan.nuggets)} response and nugget pairs over {len(plan.topics)} topics, each response its " \
            "own nuggets" if plan.unit == "items" else f"{len(plan.topics)} topics"
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
    flash(f"Pool {name} rebuilt: {pool_size(db(), built.id).items} items; assign it again.", "success")
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
