"""Results: organisers score the stored runs on demand (CCLQA, IR4QA and Question Analysis, as the
`--store` commands do) and see the overview's tables at any time; after a topic set's release of a
task a team sees its own runs of that task beside the mean and the best of their language pair."""
from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from flask import Blueprint, Response, abort, flash, g, redirect, render_template, request, url_for
from markupsafe import Markup
from sepia.campaign import charts, matcher_settings, results, results_store, schedule, task_results
from sepia.campaign.schedule import TASK_LABELS
from sepia.ir4qa.evaluate import stored_measures
from sepia.ir4qa.registry import ndcg_note, parse_measures
from sepia.services.qa_scores import score_stored_qa
from sepia.services.scores import NothingToScore, score_stored_ir4qa, score_stored_runs, score_stored_support
from sepia.services.clock import utcnow
from sepia.web.db import db, store
from sepia.web.downloads import file_response
from sepia.web.kept import kept
from sepia.web.participate import team_name
from sepia.web.security import roles_required

bp = Blueprint("results", __name__, url_prefix="/results")

TASK_ORDER = ("cclqa", "ir4qa", "qa")  # as the pages show them


def _all_results() -> dict[str, list[results.RunResult]]:
    return {m: results.load_results(db(), m) for m in results.MATCHERS}


def _task_results() -> dict[str, task_results.TaskResults | None]:
    return {task: task_results.load(db(), task) for task in task_results.TASKS}


def _campaign_tables(scores: dict[str, list[results.RunResult]]) -> list:
    """The tables beside the language pairs': runs by team and pair, and the IR4QA x CCLQA matrices."""
    return results.runs_by_team(db()) + [
        t for m in results.MATCHERS if (t := results.collaboration(db(), scores[m], m)) is not None]


def _plans() -> list[dict]:
    """Every pool with a judging plan and its estimates as last saved (None before the first)."""
    from sepia.store.plans import saved_estimates

    pools = results_store.planned_pools(db())
    saved = saved_estimates(db()) if pools else {}
    return [{"pool_id": pool_id, "name": name, "saved": saved.get(pool_id)} for pool_id, name in pools]


@dataclass(frozen=True)
class Scored:
    """The overview's part made from the scores: kept until they change (`sepia.web.kept`)."""
    any: bool
    measures: str
    ir4qa_settings: dict | None
    pairs: Markup  # the links to the language pairs and their sections
    tables: Markup  # runs by team, the IR4QA x CCLQA matrices


def _scored() -> Scored:
    scores, others = _all_results(), _task_results()
    ir4qa, tables = others["ir4qa"], _campaign_tables(scores)
    return Scored(any(scores.values()) or any(others.values()),
                  ",".join(ir4qa.measures if ir4qa else stored_measures(())), ir4qa.settings if ir4qa else None,
                  Markup(render_template("results/_pairs.html", sections=results.pair_sections(scores, others),
                                         tables=tables)),
                  Markup(render_template("results/_campaign_tables.html", tables=tables)))


@bp.route("/")
@roles_required("organiser")
def overview():
    scored = kept("results", lambda: (*results_store.scores_state(db()), request.script_root), _scored)
    return render_template("results/overview.html", scored=scored, plans=_plans(), can_learn=_judged())


def _judged() -> bool:
    return results_store.any_judged(db())


def _score_cclqa(learned: bool = False) -> str:
    """Every stored CCLQA run with the automatic matcher and, when judgments exist, the human one and,
    if asked, the learned one (each run scored by a model of the other runs' judgments)."""
    matchers = ["binarized"]
    if _judged():
        matchers = ["human", *matchers, *(["learned"] if learned else [])]
    db().close()  # scoring opens its own transactions
    for matcher in matchers:
        scored = score_stored_runs(store(), {"matcher": matcher}, save=True)
    return f"{len(scored)} CCLQA runs scored ({', '.join(results.MATCHER_LABELS[m] for m in matchers)})."


def _score_ir4qa(measures: tuple[str, ...], gains: str | None) -> str:
    scored = score_stored_ir4qa(store(), gains, measures=measures, save=True)
    return f"{len(scored.runs)} IR4QA runs scored ({', '.join(scored.measures)}; gains {scored.settings['gains']})."


def _score_qa() -> str:
    return f"{len(score_stored_qa(store(), save=True))} Question Analysis runs scored."


@bp.route("/score", methods=["POST"])
@roles_required("organiser")
def score():
    """Each task that has stored runs, as `sepia evaluate --store`, `sepia evaluate-ir4qa --store
    --measures ...` and `sepia evaluate-qa --store` do; a task that lacks what it needs says so."""
    try:
        measures = stored_measures(parse_measures(request.form.get("measures", "").strip() or None))
    except ValueError as problem:
        flash(f"Nothing scored: {problem}.", "error")
        return redirect(url_for("results.overview"))
    gains = request.form.get("gains", "").strip() or None
    note = ndcg_note(measures)  # nDCG meant NTCIREVAL's until 2026-11-28
    if note:
        flash(note[0].upper() + note[1:] + ".", "info")
    kinds = results_store.stored_kinds(db())
    db().close()  # scoring opens its own transactions
    learned = request.form.get("learned") == "1"
    scorers = {"cclqa": lambda: _score_cclqa(learned), "ir4qa": lambda: _score_ir4qa(measures, gains), "qa": _score_qa}
    for task in (t for t in TASK_ORDER if t in kinds):
        try:
            flash(scorers[task](), "success")
        except (NothingToScore, ValueError) as problem:
            flash(f"{TASK_LABELS[task]}: nothing scored: {problem}.", "error")
    if not kinds:
        flash("Nothing scored: the store holds no runs.", "error")
    return redirect(url_for("results.overview"))


@bp.route("/settings", methods=["GET", "POST"])
@roles_required("organiser")
def settings():
    """The CCLQA runs' scores under the matcher and options chosen (`sepia.campaign.matcher_settings`):
    those stored, shown; POST with action "score" scores every stored run with them first, as `sepia
    evaluate --store` does (any other POST shows them)."""
    form = request.form if request.method == "POST" else request.args
    chosen, sections, label = None, [], ""
    if form.get("matcher"):
        try:
            chosen = matcher_settings.settings_from(form)
        except ValueError as problem:
            flash(f"Nothing shown: {problem}.", "error")
    if chosen is not None and request.method == "POST" and request.form.get("action") == "score":
        db().close()  # scoring opens its own transactions
        try:
            flash(f"{len(score_stored_runs(store(), chosen, save=True))} CCLQA runs scored "
                  f"({matcher_settings.label(chosen)}).", "success")
        except (NothingToScore, ValueError) as problem:
            flash(f"Nothing scored: {problem}.", "error")
    if chosen is not None and request.form.get("action") in ("release", "withdraw"):
        _release(chosen, request.form["action"] == "release")
    if chosen is not None and request.method == "POST":
        return redirect(f"{url_for('results.settings')}?{urlencode(matcher_settings.query_of(chosen))}")
    if chosen is not None:
        label = matcher_settings.label(chosen)
        runs = results.load_results(db(), chosen.matcher, settings=chosen, label=label)
        by_pair = {pair: [r for r in runs if r.pair == pair] for pair in sorted({r.pair for r in runs}, key=results.pair_order)}
        sections = [t for pair, shown in by_pair.items()
                    for t in (results.pair_table(pair, shown, "settings", label),
                              results.rag_table(pair, shown, "settings", label)) if t is not None]
    return render_template("results/settings.html", offered=matcher_settings.offered(), chosen=chosen,
                           values=matcher_settings.query_of(chosen) if chosen else {}, tables=sections,
                           label=label, released=chosen is not None and _released_row(chosen) is not None)


@bp.route("/support")
@roles_required("organiser")
def support():
    """TREC RAG's citation support precision and recall of the stored CCLQA runs, computed from the
    stored support judgments when the page is asked for (as `sepia evaluate-support` on the files)."""
    db().close()  # scoring opens its own transactions
    try:
        scores, problem = score_stored_support(store()), None
    except NothingToScore as nothing:
        scores, problem = [], str(nothing)
    return render_template("results/support.html", scores=scores, problem=problem)


def _released_row(chosen):
    return results_store.released(db(), chosen)


def _release(chosen, release: bool) -> None:
    """Release the scores of these settings to the teams (beside the defaults'), or withdraw them."""
    row = _released_row(chosen)
    if release and row is None:
        results_store.release(db(), chosen, matcher_settings.label(chosen), g.user.username)
    elif not release and row is not None:
        results_store.withdraw(db(), row)
    db().commit()
    flash(f"{'Released to' if release else 'Withdrawn from'} the teams: {matcher_settings.label(chosen)}.", "success")


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


@bp.route("/charts/<pair>.svg", defaults={"task": "cclqa"})
@bp.route("/charts/<task>/<pair>.svg")
@roles_required("organiser", "participant")
def chart(task: str, pair: str):
    if task not in TASK_ORDER:
        abort(404)
    public = None
    if g.user.role == "participant":
        own, _, public = _team_view(team_name() or "", task)
        if not own & public:
            abort(404, "The organisers have not published the full table.")
    if task == "cclqa":
        scores = _all_results()
        if public is not None:
            scores = _only(scores, public)
        if not any(r.pair == pair for runs in scores.values() for r in runs):
            abort(404, "No scored runs of that language pair.")
        return svg_response(results.bar_chart_svg(scores, pair))
    found = task_results.load(db(), task)
    if found is not None and public is not None:
        found = found.only(public)
    if found is None or pair not in found.pairs():
        abort(404, "No scored runs of that language pair.")
    return svg_response(found.chart_svg(pair))


def svg_response(svg: str) -> Response:
    return Response(svg, mimetype="image/svg+xml", headers={"Content-Security-Policy": charts.SVG_POLICY})


def _visible_runs(task: str, releasing: frozenset[int] = frozenset()) -> tuple[set[str], set[str]]:
    """Run IDs of a task whose scores participants may see: (released, also in the public full table).
    A run belongs to the topic sets of the topics it answers; it is released when every one of them
    has released that task's results, so a run of a formal run stays hidden while only the dry run's
    results are out, also from the pair's mean and best. The topic sets `releasing` count as released
    (the organiser's preview of a release)."""
    now = utcnow()
    windows = results_store.windows_of(db(), task)
    sets = results_store.run_topic_sets(db(), task)
    released = {run_id for run_id, ids in sets.items()
                if all(i in releasing or (i in windows and schedule.phase(windows[i], now) == schedule.RELEASED)
                       for i in ids)}
    return released, {r for r in released if all(i in windows and windows[i].publish_full_table for i in sets[r])}


def _team_view(team: str, task: str) -> tuple[set[str], set[str], set[str]]:
    """What a team may see of a task: (its own current runs that are released, every released run,
    the runs of the public full table)."""
    released, public = _visible_runs(task)
    own = results_store.current_run_ids(db(), [team], task).get(team, set())
    return own & released, released, public


def _only(scores: dict[str, list[results.RunResult]], run_ids: set[str]) -> dict[str, list[results.RunResult]]:
    return {m: [r for r in runs if r.run_id in run_ids] for m, runs in scores.items()}


def _sections(own: set[str], task: str, released: set[str], public: set[str], found) -> tuple[list, list, list]:
    """A team's view of one task, given its released runs `own` and the task's stored scores `found`:
    (its tables, per pair with the pair's mean and best; its runs' per-topic tables; the public full
    table's sections), each empty when nothing is released."""
    if not own or found is None:
        return [], [], []
    if task == "cclqa":
        visible = _only(found, released)
        # each pair's F3 tables, then the TREC RAG scores of the settings released (never the others')
        mine = [t for s in results.pair_sections(visible) for t in [*s.tables, *_released_rag(visible, s.pair)]]
        topics = [results.topic_table(r) for runs in found.values() for r in runs if r.run_id in own]
        full = results.pair_sections(_only(found, public)) if own & public else []
    else:
        visible = found.only(released)
        mine = [t for p in visible.pairs() if (t := visible.table(p)) is not None]
        topics = [found.topic_table(r) for r in found.runs if r.run_id in own]
        full = results.pair_sections({}, {task: found.only(public)}) if own & public else []
    return [t for table in mine if (t := results.team_table(table, own)) is not None], topics, full


def _released_rag(scores: dict[str, list[results.RunResult]], pair: str) -> list:
    """A pair's TREC RAG tables under each of the settings released to the teams."""
    return [table for key, runs in scores.items() if key.startswith("released-")
            if (table := results.rag_table(pair, [r for r in runs if r.pair == pair], key)) is not None]


def teams_results(teams: list[str], releasing: frozenset[int] = frozenset()) -> dict[str, dict[str, tuple]]:
    """Everything each team's Results page shows, per task (as if the topic sets `releasing` were
    released): the schedule, the submissions and the scores are read once for all the teams."""
    pages: dict[str, dict[str, tuple]] = {team: {} for team in teams}
    for task in TASK_ORDER:
        released, public = _visible_runs(task, releasing)
        owned = results_store.current_run_ids(db(), teams, task)
        found = None
        if any(owned.get(team, set()) & released for team in teams):
            found = {**_all_results(), **results.load_released(db())} if task == "cclqa" else task_results.load(db(), task)
        for team in teams:
            pages[team][task] = _sections(owned.get(team, set()) & released, task, released, public, found)
    return pages


@bp.route("/mine")
@roles_required("participant")
def mine():
    team = team_name() or ""
    tasks = teams_results([team])[team]
    return render_template("results/mine.html", tasks=tasks, labels=TASK_LABELS,
                           released=any(tables for tables, _, _ in tasks.values()))
