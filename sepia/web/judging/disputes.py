"""Organisers' disputes: the items assessors judged differently, with the pool's agreement, and the
official judgment an organiser decides for each."""
from __future__ import annotations

from collections import Counter

from flask import abort, current_app, flash, g, redirect, render_template, request, url_for
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from sepia.store import controls, judging
from sepia.store.db import hold
from sepia.store.io import ImportRefused
from sepia.store.models import Nugget, Pool, PoolEntry, Topic
from sepia.web.db import db, get_or_404
from sepia.web.forms import FormError, bounded_text, parse_id, parse_ids
from sepia.web.judging.blueprint import COMMENT_MAX_CHARS, bp
from sepia.web.security import roles_required


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
