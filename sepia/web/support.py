"""Citation support judging in the browser (TREC RAG): an assessor reads each answer sentence of a
topic beside the segment it cites and says full, partial or no support; the whole topic is saved at
once. Blind, as nugget judging is: no run or team is shown. An assessor judges the citations of the
responses in their CCLQA queues (what the organiser assigned them through pools); an organiser may
judge any. Citations the assessors judged differently are the organiser's to decide, as nugget
matches are: the decision is the official support, the assessors' own stay for agreement."""
from __future__ import annotations

import dataclasses

from flask import Blueprint, abort, flash, g, redirect, render_template, request, url_for

from sepia.metaeval.support_agreement import support_agreement
from sepia.store import guidelines, support
from sepia.store.guidelines import GuidelinesUnread
from sepia.services.topics import hold_topic, topic_by_id
from sepia.web.db import db, found_or_404
from sepia.web.forms import FormError
from sepia.web.security import roles_required

bp = Blueprint("support", __name__)
FIELD = "support:"  # a form field support:RESPONSE_ID:DOCID holds that citation's level


def _citations(topic_id: str) -> list[support.Citation]:
    """The citations this user judges: an assessor's assigned ones (404 when there are none), or all."""
    assessor = g.user.role != "organiser"
    rows = support.citations(db(), topic_id, g.user.username, assigned_only=assessor)
    if assessor and not rows:
        abort(404, "No citation of this topic is in your queue.")
    return rows


@bp.route("/judge/support/<topic_id>")
@roles_required("assessor", "organiser")
def screen(topic_id: str):
    topic = found_or_404(topic_by_id(db(), topic_id), "topic")
    rows = _citations(topic_id)
    return render_template("judging/support.html", topic=topic, rows=rows, field=FIELD)


@bp.route("/judge/support/<topic_id>", methods=["POST"])
@roles_required("assessor", "organiser")
def save(topic_id: str):
    topic = found_or_404(topic_by_id(db(), topic_id), "topic")
    rows = _citations(topic_id)
    cited = {(c.response_id, c.docid) for c in rows}
    try:
        levels = _levels(request.form, cited)
        if g.user.role == "assessor":  # the task's current guidelines acknowledged first
            guidelines.require_read(db(), "support", g.user.username, request.form.get("guidelines_read"))
        saved = support.save_support(db(), g.user.username, levels)
        db().commit()
    except GuidelinesUnread as error:  # nothing saved; the screen again with the levels as they were sent
        db().rollback()
        flash(str(error), "error")
        kept = [dataclasses.replace(c, support=levels.get((c.response_id, c.docid), c.support)) for c in rows]
        return render_template("judging/support.html", topic=topic, rows=kept, field=FIELD), 409
    except FormError as error:
        db().rollback()
        flash(str(error), "error")
        return redirect(url_for("support.screen", topic_id=topic_id))
    flash(f"{saved} citation judgments saved; {len(cited) - saved} left open." if saved < len(cited)
          else f"All {saved} citations of {topic_id} judged.", "success")
    return redirect(url_for("support.screen", topic_id=topic_id))


def _levels(form, allowed: set[tuple[int, str]]) -> dict[tuple[int, str], float]:
    """The form's support:RESPONSE_ID:DOCID levels; FormError for a citation not in `allowed`."""
    values = {}
    for key, value in form.items():
        if not key.startswith(FIELD):
            continue
        response_id, _, docid = key[len(FIELD):].partition(":")
        pair = (int(response_id) if response_id.isdigit() else -1, docid)
        if pair not in allowed or value not in support.LEVELS:
            raise FormError("A judgment is not of a citation of this topic or not full, partial or none; "
                            "reload the page.")
        values[pair] = support.LEVELS[value]
    return values


@bp.route("/judge/support")
@roles_required("organiser")
def overview():
    """Every topic's citation support: judged, disputed, decided; and the campaign's agreement."""
    return render_template("judging/support_overview.html", topics=support.support_overview(db()),
                           agreement=support_agreement(support.support_judgments(db(), individual=True)))


@bp.route("/judge/support/<topic_id>/disputes")
@roles_required("organiser")
def disputes(topic_id: str):
    topic = found_or_404(topic_by_id(db(), topic_id), "topic")
    found = support.support_disputes(db(), topic_id)
    agreement = support_agreement([j for j in support.support_judgments(db(), individual=True) if j.topic_id == topic_id])
    return render_template("judging/support_disputes.html", topic=topic, disputes=found, agreement=agreement,
                           field=FIELD, seen=support.decisions_token(found))


@bp.route("/judge/support/<topic_id>/disputes", methods=["POST"])
@roles_required("organiser")
def adjudicate(topic_id: str):
    found_or_404(topic_by_id(db(), topic_id), "topic")
    hold_topic(db(), topic_id)  # a second organiser deciding the topic waits, then is told
    found = support.support_disputes(db(), topic_id)
    if request.form.get("seen", "") != support.decisions_token(found):
        db().rollback()
        flash(f"Citations of {topic_id} were decided by another organiser since you opened this page: nothing of "
              "yours was saved. Their decisions are shown below; decide again to change them.", "error")
        return redirect(url_for("support.disputes", topic_id=topic_id))
    disputed = {(d.response_id, d.docid) for d in found}
    try:
        decided = support.adjudicate_support(db(), _levels(request.form, disputed))
        db().commit()
    except FormError as error:
        db().rollback()
        flash(str(error), "error")
    else:
        flash(f"Decided {decided} disputed citation(s) of {topic_id}: those judgments are now the official ones.",
              "success")
    return redirect(url_for("support.disputes", topic_id=topic_id))
