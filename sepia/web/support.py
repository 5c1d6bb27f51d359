"""Citation support judging in the browser (TREC RAG): an assessor reads each answer sentence of a
topic beside the segment it cites and says full, partial or no support; the whole topic is saved at
once. Blind, as nugget judging is: no run or team is shown. An assessor judges the citations of the
responses in their CCLQA queues (what the organiser assigned them through pools); an organiser may
judge any."""
from __future__ import annotations

from flask import Blueprint, abort, flash, g, redirect, render_template, request, url_for

from sepia.store import support
from sepia.store.models import Topic
from sepia.web.db import db, get_or_404
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
    topic = get_or_404(Topic, topic_id, "topic")
    rows = _citations(topic_id)
    return render_template("judging/support.html", topic=topic, rows=rows, field=FIELD)


@bp.route("/judge/support/<topic_id>", methods=["POST"])
@roles_required("assessor", "organiser")
def save(topic_id: str):
    get_or_404(Topic, topic_id, "topic")
    cited = {(c.response_id, c.docid) for c in _citations(topic_id)}
    values = {}
    try:
        for key, value in request.form.items():
            if not key.startswith(FIELD):
                continue
            response_id, _, docid = key[len(FIELD):].partition(":")
            pair = (int(response_id) if response_id.isdigit() else -1, docid)
            if pair not in cited or value not in support.LEVELS:
                raise FormError("A judgment is not of a citation of this topic or not full, partial or none; "
                                "reload the page.")
            values[pair] = support.LEVELS[value]
        saved = support.save_support(db(), g.user.username, values)
        db().commit()
    except FormError as error:
        db().rollback()
        flash(str(error), "error")
        return redirect(url_for("support.screen", topic_id=topic_id))
    flash(f"{saved} citation judgments saved; {len(cited) - saved} left open." if saved < len(cited)
          else f"All {saved} citations of {topic_id} judged.", "success")
    return redirect(url_for("support.screen", topic_id=topic_id))
