"""Pyramid voting for assessors; the vote matrix, weights, agreement and gold export for organisers."""
from __future__ import annotations

from typing import AbstractSet

from flask import Blueprint, Response, abort, flash, g, redirect, render_template, request, url_for

from sepia.vocab import LANGUAGES, TOPIC_COMPLETED
from sepia.services import vote_analysis, voting
from sepia.services.writes import Conflict, conflicts
from sepia.web.db import db
from sepia.services.first_steps import first_steps
from sepia.web.forms import FormError, parse_ids
from sepia.services.gold import gold_xml
from sepia.web.security import roles_required
from sepia.services.topics import VOTING
from sepia.web.topics import get_topic, topic_view

bp = Blueprint("votes", __name__, url_prefix="/votes")


@bp.route("/")
@roles_required("assessor")
def index():
    views = [voting.assessor_view(t, g.user.username) for t in voting.votable_topics(db(), _languages())]
    done = sum(1 for v in views if v.submitted)
    return render_template("votes/index.html", views=views, done=done)


def _votable(topic):
    """The topic (mapped or a view with its nuggets and votes), if it can be voted on; else 404."""
    if topic.status != TOPIC_COMPLETED or not topic.nuggets:
        abort(404, f"Topic {topic.id} has no nuggets to vote on yet.")
    return topic


def _render_topic(topic, ticked: AbstractSet[int] = frozenset(), highlight: AbstractSet[int] = frozenset(),
                  status: int = 200):
    view = voting.assessor_view(topic, g.user.username)
    # The tally of everyone's votes appears only once this assessor's own are all in.
    tallies = {n.id: voting.tally(n) for n in view.topic.nuggets} if view.submitted else None
    shown = voting.open_nuggets(topic.nuggets, g.user.username)
    return render_template("votes/topic.html", view=view, tallies=tallies, stamp=voting.form_stamp(shown),
                           ticked=ticked, highlight=highlight), status


@bp.route("/<topic_id>")
@roles_required("assessor")
def topic(topic_id: str):
    return _render_topic(_votable(topic_view(topic_id, nuggets=True, votes=True)))


@bp.route("/<topic_id>", methods=["POST"])
@roles_required("assessor")
def submit(topic_id: str):
    topic = _votable(get_topic(topic_id, VOTING))
    try:
        vital_ids = parse_ids(request.form.getlist("vital"), "nugget")
    except FormError as error:
        abort(400, str(error))
    try:
        with conflicts(db()):
            cast = voting.submit(topic, g.user.username, request.form.get("shown", ""), vital_ids)
            db().commit()
    except voting.NuggetsChanged as change:
        db().rollback()
        flash(f"The nuggets of {topic.id} changed while your form was open: {change}. Nothing was "
              "recorded. Your ticks are kept: check the marked nuggets and submit again.", "error")
        return _render_topic(topic, vital_ids, {n.id for n in change.added + change.edited}, 409)
    except Conflict:
        # Another request wrote at the same moment: usually this same form sent twice.
        if voting.open_nuggets(topic.nuggets, g.user.username):
            flash(f"The nuggets of {topic.id} changed at the moment you submitted. Nothing was recorded: "
                  "check them and submit again.", "error")
            return _render_topic(topic, vital_ids, status=409)
        cast = 0
    if cast:
        flash(f"{cast} vote(s) recorded for {topic.id}: {sum(1 for n in topic.nuggets if n.id in vital_ids)} "
              "vital.", "success")
    else:
        flash(f"Your votes on {topic.id} were already in; nothing changed.", "info")
    # The next topic to vote on, in this topic's language first (an assessor reads one language at a time).
    queue = sorted(voting.votable_topics(db(), _languages()), key=lambda t: t.lang != topic.lang)
    following = next((t for t in queue if not voting.assessor_view(t, g.user.username).submitted), None)
    if following is not None and request.form.get("next") == "1":
        return redirect(url_for("votes.topic", topic_id=following.id))
    return redirect(url_for("votes.topic", topic_id=topic.id))


def _languages() -> list[str] | None:
    """The languages the assessor works in (their account says), or None for all."""
    return g.user.languages.split() if g.user.languages else None


# ---------------------------------------------------------------- organisers

@bp.route("/overview")
@roles_required("organiser")
def overview():
    """Agreement per language over all the topics chosen; the vote matrices a page at a time."""
    lang = request.args.get("lang") or None
    status = request.args.get("status") or None
    if lang not in (None, *LANGUAGES) or status not in (None, *STATUSES):
        abort(404, "Unknown language or status.")
    topics = [t for t in voting.votable_topics(db()) if lang in (None, t.lang)
              and status in (None, _status(t))]
    by_lang: dict[str, list] = {}
    for topic in topics:
        by_lang.setdefault(topic.lang, []).append(topic)
    pages = max(1, -(-len(topics) // MATRICES_PER_PAGE))
    page = min(max(request.args.get("page", 1, type=int) or 1, 1), pages)
    problems: list[str] = []
    matrices = []
    for topic in topics[(page - 1) * MATRICES_PER_PAGE: page * MATRICES_PER_PAGE]:
        weights, warnings = vote_analysis.topic_weights(topic)
        problems += [f"{topic.id}: {warning}" for warning in warnings]
        rows = [{"nugget": n, "votes": {v.assessor: v.vital for v in n.votes}, "tally": voting.tally(n),
                 "weights": {s: weights[s][i] for s in vote_analysis.SCHEMES}}
                for i, n in enumerate(topic.nuggets)]
        matrices.append({"topic": topic, "assessors": voting.assessors_of([topic]), "rows": rows})
    agreement = {code: vote_analysis.vote_agreement(group) for code, group in by_lang.items()}
    return render_template("votes/overview.html", matrices=matrices, agreement=agreement, lang=lang,
                           languages=LANGUAGES, schemes=vote_analysis.SCHEMES, notes=problems, status=status,
                           statuses=STATUSES, page=page, pages=pages, shown=len(topics),
                           steps=first_steps(db()) if not topics and not lang and not status else None)


MATRICES_PER_PAGE = 20
# "voted": every nugget has the two votes agreement needs; "needs votes": some nugget has fewer.
STATUSES = ("needs votes", "voted")


def _status(topic) -> str:
    return STATUSES[all(len(n.votes) >= 2 for n in topic.nuggets)]


@bp.route("/<topic_id>/reopen", methods=["POST"])
@roles_required("organiser")
def reopen(topic_id: str):
    topic = get_topic(topic_id)
    assessor = request.form.get("assessor", "")
    removed = voting.reopen(topic, assessor)
    db().commit()
    flash(f"Removed {removed} vote(s) of {assessor} on {topic.id}; they can vote on it again.", "success")
    return redirect(url_for("votes.overview") + f"#matrix-{topic.id}")


@bp.route("/gold.xml")
@roles_required("organiser")
def export_gold():
    lang = request.args.get("lang") or None
    if lang not in (None, *LANGUAGES):
        abort(404, f"Unknown language {lang}.")
    data = gold_xml(db(), lang)
    name = f"gold-{lang or 'all'}.xml"
    return Response(data, mimetype="application/xml",
                    headers={"Content-Disposition": f'attachment; filename="{name}"'})
