"""Results: organisers score the stored runs on demand and see the overview's tables at any time;
after release a team sees its own runs beside the mean and the best of their language pair."""
from __future__ import annotations

from flask import Blueprint, Response, abort, flash, g, redirect, render_template, url_for
from sqlalchemy import func, select

from sepia.campaign import results, schedule
from sepia.scoring.campaign import NothingToScore, score_stored_runs
from sepia.store.models import NuggetJudgment, Run, RunTopic, Submission, TaskWindow, Topic, utcnow
from sepia.web.db import db, store
from sepia.web.downloads import file_response
from sepia.web.participate import team_name
from sepia.web.security import roles_required

bp = Blueprint("results", __name__, url_prefix="/results")


def _all_results() -> dict[str, list[results.RunResult]]:
    return {m: results.load_results(db(), m) for m in results.MATCHERS}


def _campaign_tables(scores: dict[str, list[results.RunResult]]) -> list:
    """The tables beside the language pairs': runs by team and pair, and the IR4QA x CCLQA matrices."""
    return results.runs_by_team(db()) + [
        t for m in results.MATCHERS if (t := results.collaboration(db(), scores[m], m)) is not None]


@bp.route("/")
@roles_required("organiser")
def overview():
    scores = _all_results()
    return render_template("results/overview.html", sections=results.pair_sections(scores),
                           tables=_campaign_tables(scores), scored=any(scores.values()))


@bp.route("/score", methods=["POST"])
@roles_required("organiser")
def score():
    """Score every stored CCLQA run with the automatic matcher and, when judgments exist, the human one."""
    matchers = ["binarized"]
    if db().scalar(select(func.count()).select_from(NuggetJudgment)):
        matchers.insert(0, "human")
    db().close()  # scoring opens its own transactions
    try:
        for matcher in matchers:
            scored = score_stored_runs(store(), {"matcher": matcher}, save=True)
    except NothingToScore as problem:
        flash(f"Nothing scored: {problem}.", "error")
        return redirect(url_for("results.overview"))
    flash(f"{len(scored)} CCLQA runs scored ({', '.join(results.MATCHER_LABELS[m] for m in matchers)}).", "success")
    return redirect(url_for("results.overview"))


def _table(key: str):
    found = results.find_table(db(), key)
    if found is None:
        abort(404, "No such table: score the runs first.")
    return found


@bp.route("/tables/<key>.csv")
@roles_required("organiser")
def table_csv(key: str):
    return file_response(_table(key).to_csv(), f"{key}.csv", "text/csv; charset=utf-8")


@bp.route("/tables/<key>.tex")
@roles_required("organiser")
def table_latex(key: str):
    return file_response(_table(key).to_latex(), f"{key}.tex", "application/x-tex; charset=utf-8")


@bp.route("/charts/<pair>.svg")
@roles_required("organiser", "participant")
def chart(pair: str):
    scores = _all_results()
    if g.user.role == "participant":
        own, _, public = _team_view(team_name() or "")
        if not own & public:
            abort(404, "The organisers have not published the full table.")
        scores = _only(scores, public)
    if not any(r.pair == pair for runs in scores.values() for r in runs):
        abort(404, "No scored runs of that language pair.")
    return Response(results.bar_chart_svg(scores, pair), mimetype="image/svg+xml")


def _visible_runs() -> tuple[set[str], set[str]]:
    """CCLQA run IDs whose scores participants may see: (released, also in the public full table).
    A run belongs to the topic sets of the topics it answers; it is released when every one of them
    has released its CCLQA results, so a run of a formal run stays hidden while only the dry run's
    results are out, also from the pair's mean and best."""
    now = utcnow()
    windows = {w.topic_set_id: w for w in db().scalars(select(TaskWindow).where(TaskWindow.task == "cclqa"))}
    sets: dict[str, set] = {}
    for run_id, set_id in db().execute(select(Run.run_id, Topic.topic_set_id).distinct()
                                       .join(RunTopic, RunTopic.run_id == Run.id)
                                       .join(Topic, Topic.id == RunTopic.topic_id).where(Run.kind == "cclqa")):
        sets.setdefault(run_id, set()).add(set_id)
    released = {run_id for run_id, ids in sets.items()
                if all(i in windows and schedule.phase(windows[i], now) == schedule.RELEASED for i in ids)}
    return released, {r for r in released if all(windows[i].publish_full_table for i in sets[r])}


def _team_view(team: str) -> tuple[set[str], set[str], set[str]]:
    """What a team may see: (its own current CCLQA runs that are released, every released run, the
    runs of the public full table)."""
    released, public = _visible_runs()
    own = set(db().scalars(select(Submission.run_id).where(
        Submission.team == team, Submission.kind == "cclqa", Submission.superseded_at.is_(None))))
    return own & released, released, public


def _only(scores: dict[str, list[results.RunResult]], run_ids: set[str]) -> dict[str, list[results.RunResult]]:
    return {m: [r for r in runs if r.run_id in run_ids] for m, runs in scores.items()}


@bp.route("/mine")
@roles_required("participant")
def mine():
    run_ids, released, public = _team_view(team_name() or "")
    scores = _all_results() if run_ids else {m: [] for m in results.MATCHERS}
    rows = {m: results.team_rows(_only(scores, released)[m], run_ids) for m in results.MATCHERS}
    return render_template("results/mine.html", rows=rows, labels=results.MATCHER_LABELS, released=bool(run_ids),
                           sections=results.pair_sections(_only(scores, public)) if run_ids & public else [],
                           types={m: results.answer_types([r.run for r in rows[m]]) for m in rows})
