"""PPI++ estimates of the stored CCLQA runs' human F3 from a pool's judging plan: the automatic scores
of every topic of the plan's population and the human judgments of the planned topics judged so far
(`sepia evaluate --store --plan`, the web tool's estimates page). Runs are read one at a time."""
from __future__ import annotations

from dataclasses import replace

from sepia.metaeval.calibrate import calibrate, run_topic_scores
from sepia.metaeval.item_estimates import estimate_items
from sepia.metaeval.ppi import projected_width
from sepia.metaeval.render import json_ready
from sepia.matchers.base import Matcher
from sepia.scoring.evaluate import Evaluator, Settings
from sepia.scoring.learned import cross_fitted, fits_on_plan
from sepia.services.scores import NothingToScore, stored_run_ids
from sepia.store import io
from sepia.store.db import Store
from sepia.store.plans import get_plan, judged_item_plan, judged_plan_topics


def estimate_plan(store: Store, settings: Settings, pool_name: str, level: float = 0.95) -> tuple[dict, list[str]]:
    """(the `calibrate` report, JSON-ready, with "matcher" and "pool"; warnings). Raises ImportRefused
    for a plan without judged topics or a changed population, and
    NothingToScore when the store holds no CCLQA runs or none of them is of the plan's languages."""
    with store.transaction() as session:
        items = get_plan(session, pool_name).unit == "items"
    if items:
        return estimate_item_plan(store, settings, pool_name, level)
    with store.transaction() as session:
        strata, planned, judged, warnings = judged_plan_topics(session, pool_name)
        population = set(strata)
        ids = stored_run_ids(session, "cclqa")
        if len(judged) < len(planned):
            warnings.append(f"{len(judged)} of the {len(planned)} planned topics are judged for every run; "
                            "the estimates use those")
        gold = io.export_gold(session)
        try:  # a learned matcher: trained on the judged topics, cross-fitted, or a model fixed before the plan
            if fits_on_plan(settings):
                runs = [io.export_run(session, run_id, "cclqa") for run_id in ids]
                plan_judgments = [j for j in io.export_judgments(session) if j.topic_id in judged]
                automatic = Evaluator(gold, settings, None, cross_fitted(gold, runs, plan_judgments, "topic"))
            else:
                automatic = Evaluator(gold, settings)
            if automatic.learns:
                automatic.learn([io.export_run(session, run_id, "cclqa") for run_id in ids])
        except ValueError as exc:
            raise NothingToScore(f"the {settings.matcher} matcher: {exc}") from None
        human = Evaluator(gold, replace(settings, matcher="human", matcher_options={}), [])
        scores = []
        for run_id in ids:
            run = io.export_run(session, run_id, "cclqa")
            scores.append(run_topic_scores(automatic, human, run, judged, io.export_judgments(session, run_id),
                                           population))
            session.expunge_all()
    stratified = any("/" in s for s in strata.values())      # "CS/DEFINITION": drawn within answer types
    report = json_ready(calibrate(scores, level, strata if stratified else None))
    if not report["language_pairs"]:
        raise NothingToScore(f"pool {pool_name}: no judged topic of the plan belongs to the stored runs' "
                             "language pairs")
    topics_of = {s.language_pair: set(s.automatic) for s in scores}
    for group in report["language_pairs"]:
        group["planned"] = len(planned & topics_of[group["language_pair"]])
        group.update(projection(group, level))
    return {**report, "matcher": automatic.settings.matcher, "pool": pool_name}, warnings


def projection(group: dict, level: float) -> dict:
    """The mean interval width of the runs now, and as projected once every planned topic is judged."""
    widths = [r["raw_high"] - r["raw_low"] for r in group["runs"] if r["raw_low"] is not None]
    if not widths:
        return {"mean_width": None, "projected_width": None}
    now = sum(widths) / len(widths)
    return {"mean_width": now, "projected_width": json_ready(
        projected_width(now, group["judged"], group["planned"], group["topics"], level))}


def estimate_item_plan(store, settings, pool_name: str, level: float = 0.95) -> tuple[dict, list[str]]:
    """`estimate_plan` for an item-level plan: (the report, JSON-ready, with "matcher" and "pool";
    warnings). ImportRefused until every topic's planned nuggets are judged for every run."""
    with store.transaction() as session:
        topics, planned, warnings = judged_item_plan(session, pool_name)
        gold = io.export_gold(session)
        runs = [io.export_run(session, run_id, "cclqa") for run_id in stored_run_ids(session, "cclqa")]
        judgments = io.export_judgments(session)
    matcher: Matcher | None = None
    try:  # a learned matcher: trained on the planned items, cross-fitted, or a model fixed before the plan
        if fits_on_plan(settings):
            planned_judgments = [j for j in judgments if j.nugget_id in planned.get(j.topic_id, ())]
            matcher = cross_fitted(gold, runs, planned_judgments, "item")
        else:
            automatic = Evaluator(gold, settings)
            if automatic.learns:
                automatic.learn(runs)
                matcher = automatic.matcher
    except ValueError as exc:
        raise NothingToScore(f"the {settings.matcher} matcher: {exc}") from None
    report = json_ready(estimate_items(gold, runs, judgments, settings, {t: planned.get(t, set()) for t in topics},
                                       level, matcher, tuned=fits_on_plan(settings)))
    if not report["language_pairs"]:
        raise NothingToScore(f"pool {pool_name}: no topic of the plan belongs to the stored runs' language pairs")
    for group in report["language_pairs"]:
        group.update(planned=group["topics"], mean_width=None, projected_width=None)
    return {**report, "matcher": settings.matcher, "pool": pool_name}, warnings
