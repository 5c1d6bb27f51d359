"""A pool's judging plan (sepia.store.plans) grown after it was drawn (more topics, the next wave of
an item-level plan) and its estimates of the runs' human F3."""
from __future__ import annotations

from flask import abort, flash, redirect, render_template, request, url_for

from sepia.services.pools import pool_by_id
from sepia.store.errors import ImportRefused
from sepia.store.pools import assign_pool
from sepia.text.plural import counted
from sepia.web.db import db, found_or_404
from sepia.web.judging.blueprint import bp
from sepia.web.security import roles_required

PLAN_MATCHERS = ("binarized", "learned")   # estimates page: learned = trained on the plan's judgments, cross-fitted


@bp.route("/pools/<int:pool_id>/plan/add", methods=["POST"])
@roles_required("organiser")
def add_plan_topics(pool_id: int):
    """Draw more topics into the pool's judging plan (`sepia pool plan --add N --seed S`) and, when
    assessors are ticked, share the new topics out to them (`sepia pool assign`: nothing anyone holds
    is handed out again)."""
    from sepia.store.plans import MAX_SEED, add_topics

    pool = found_or_404(pool_by_id(db(), pool_id), "pool")
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

    pool = found_or_404(pool_by_id(db(), pool_id), "pool")
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

    pool = found_or_404(pool_by_id(db(), pool_id), "pool")
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

    name = found_or_404(pool_by_id(db(), pool_id), "pool").name
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
