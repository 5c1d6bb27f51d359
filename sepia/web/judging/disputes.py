"""Organisers' disputes: the items assessors judged differently, with the pool's agreement, and the
official judgment an organiser decides for each."""
from __future__ import annotations

from flask import abort, current_app, flash, g, redirect, render_template, request, url_for

from sepia.services.disputes import decide, disputes_page, held_dispute
from sepia.services.judging import nugget_labels, topic_nugget_ids
from sepia.services.pools import pool_by_id
from sepia.store.errors import ImportRefused
from sepia.store.disputes import Dispute
from sepia.web.db import db, found_or_404
from sepia.web.forms import FormError, bounded_text
from sepia.web.judging.answers import relevance_level, ticked_nuggets
from sepia.web.judging.blueprint import COMMENT_MAX_CHARS, bp
from sepia.web.security import roles_required


def _tie_choices(dispute: Dispute) -> set[int]:
    """The nuggets of a tie the organiser chose as matches; every tie must be chosen (no default)."""
    chosen = {n: request.form.get(f"tie-{n}") for n in dispute.ties()}
    open_ties = [n for n, choice in chosen.items() if choice not in ("1", "0")]
    if open_ties:
        labels = nugget_labels(db(), open_ties)
        raise FormError("A tie has no default: choose match or no for " + ", ".join(
            f"{labels[n]} ({dispute.said(n)})" for n in sorted(open_ties, key=labels.__getitem__)) + ".")
    return {n for n, choice in chosen.items() if choice == "1"}


@bp.route("/pools/<int:pool_id>/disputes")
@roles_required("organiser")
def disputes(pool_id: int):
    """Items the assessors judged differently, most disputed first; the organiser's decision is official."""
    pool = found_or_404(pool_by_id(db(), pool_id), "pool")
    page = disputes_page(db(), pool)
    return render_template("judging/disputes.html", pool=pool, disputes=page.disputes, topics=page.topics,
                           agreement=page.agreement, followed=page.followed, by_assessor=page.by_assessor,
                           levels=range(current_app.config["RELEVANCE_LEVELS"]))


@bp.route("/pools/<int:pool_id>/disputes/<int:entry_id>", methods=["POST"])
@roles_required("organiser")
def adjudicate(pool_id: int, entry_id: int):
    pool = found_or_404(pool_by_id(db(), pool_id), "pool")
    disputed = held_dispute(db(), pool, entry_id)  # a second organiser deciding it waits, then is told
    if disputed is None:
        abort(404, "This item is not disputed.")
    entry = disputed.entry
    if request.form.get("seen", "") != disputed.decision_token():
        db().rollback()
        flash(f"Item {entry.id} of {entry.topic_id} was decided by another organiser since you opened this page: "
              "nothing of yours was saved. Their decision is shown below; decide again to change it.", "error")
        return redirect(url_for("judging.disputes", pool_id=pool_id) + f"#item-{entry_id}")
    control = request.form.get("control") == "1"
    try:
        nugget_ids, matched, level = None, None, None
        if pool.kind == "cclqa":
            nugget_ids = topic_nugget_ids(db(), entry.topic_id)
            matched = (ticked_nuggets(request.form, nugget_ids, then="") - disputed.ties()) | _tie_choices(disputed)
        else:
            level = relevance_level(request.form)
        reason = bounded_text(request.form.get("reason", "").strip(), COMMENT_MAX_CHARS, "A reason") \
            if control else None
        decide(db(), entry, nugget_ids=nugget_ids, matched=matched, level=level, control_reason=reason,
               organiser=g.user.username)
        db().commit()
    except (FormError, ImportRefused) as error:
        db().rollback()
        flash(str(error) if isinstance(error, FormError) else "; ".join(error.reasons), "error")
    else:
        kept = " and a control item" if control else ""
        flash(f"Item {entry.id} of {entry.topic_id} decided: that judgment is now the official one{kept}.", "success")
    return redirect(url_for("judging.disputes", pool_id=pool_id) + f"#item-{entry_id}")
