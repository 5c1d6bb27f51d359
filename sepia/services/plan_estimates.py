"""PPI++ estimates of the stored CCLQA runs' human F3 from a pool's judging plan: the automatic scores
of every topic of the plan's population and the human judgments of the planned topics judged so far
(`sepia evaluate --store --plan`, the web tool's estimates page). Runs are read one at a time."""
from __future__ import annotations

import math
import statistics
from dataclasses import replace

from sepia.metaeval.calibrate import calibrate, run_topic_scores
from sepia.metaeval.item_estimates import Sample, estimate_items, planned_for
from sepia.metaeval.ppi import projected_width
from sepia.metaeval.render import json_ready
from sepia.matchers.base import Matcher
from sepia.scoring.evaluate import Evaluator, Settings
from sepia.matchers.learned import cross_fitted, fits_on_plan, held_out_runs, refitted
from sepia.matchers.learned.crossfit import CrossFitError
from sepia.matchers.learned.matcher import LearnedMatcher
from sepia.services.scores import NothingToScore, stored_run_ids
from sepia.store.exchange.gold import export_gold
from sepia.store.exchange.judgments import export_judgments
from sepia.store.exchange.runs import export_run
from sepia.store.db import Store
from sepia.store.item_plans import judged_item_plan
from sepia.store.plans import get_plan, items_to_judge, judged_plan_topics


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
        left = items_to_judge(session, pool_name)
        ids = stored_run_ids(session, "cclqa")
        if len(judged) < len(planned):
            warnings.append(f"{len(judged)} of the {len(planned)} planned topics {'is' if len(judged) == 1 else 'are'} "
                            f"judged for every run; the estimates use {'it' if len(judged) == 1 else 'those'}")
        gold = export_gold(session)
        loaded = None  # every run, when a matcher has to see them all first; else read one at a time below
        try:  # a learned matcher: trained on the judged topics, cross-fitted, or a model fixed before the plan
            if fits_on_plan(settings):
                loaded = [export_run(session, run_id, "cclqa") for run_id in ids]
                plan_judgments = [j for j in export_judgments(session) if j.topic_id in judged]
                automatic = Evaluator(gold, settings, None, cross_fitted(gold, loaded, plan_judgments, "topic"))
            else:
                automatic = Evaluator(gold, settings)
            if automatic.learns:
                if loaded is None:
                    loaded = [export_run(session, run_id, "cclqa") for run_id in ids]
                automatic.learn(loaded)
        except ValueError as exc:
            raise NothingToScore(f"the {settings.matcher} matcher: {exc}") from None
        human = Evaluator(gold, replace(settings, matcher="human", matcher_options={}), [])
        scores = []
        for index, run_id in enumerate(ids):
            run = loaded[index] if loaded is not None else export_run(session, run_id, "cclqa")
            scores.append(run_topic_scores(automatic, human, run, judged, export_judgments(session, run_id),
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
        group.update(judgments_needed(group, {t: left.get(t, 0) for t in planned & topics_of[group["language_pair"]]
                                              if t not in judged}))
    return {**report, "matcher": automatic.settings.matcher, "pool": pool_name}, warnings


def projection(group: dict, level: float) -> dict:
    """The mean width of the runs' intervals as shown (clipped to [0, 1]) now, and as projected once
    every planned topic is judged: each run's unclipped interval narrowed about its middle by the
    projected factor, then clipped. An interval needs two judged topics: `more_for_interval` says how
    many more planned topics must be judged before there is one (0 once there is)."""
    more = 0 if group["complete"] else max(0, 2 - group["judged"])
    runs = [r for r in group["runs"] if r["low"] is not None and r["raw_low"] is not None]
    if not runs:
        return {"mean_width": None, "projected_width": None, "more_for_interval": more}
    factor = projected_width(1.0, group["judged"], group["planned"], group["topics"], level)
    projected = None
    if math.isfinite(factor):
        ends = [((r["raw_low"] + r["raw_high"]) / 2, factor * (r["raw_high"] - r["raw_low"]) / 2) for r in runs]
        projected = statistics.fmean(min(1.0, mid + half) - max(0.0, mid - half) for mid, half in ends)
    return {"mean_width": statistics.fmean(r["high"] - r["low"] for r in runs), "projected_width": projected,
            "more_for_interval": more}


def judgments_needed(group: dict, unjudged: dict[str, int]) -> dict:
    """Human judgments (pool items) still to make, given the items left of each planned topic not yet
    judged: `judgments_for_interval`, those of the fewest-items topics an interval still needs (0 once
    there is one); `judgments_left`, those of every such topic, which the projected width assumes."""
    fewest = sorted(unjudged.values())[:group["more_for_interval"]]
    return {"judgments_for_interval": sum(fewest), "judgments_left": sum(unjudged.values())}


def no_interval(group: dict) -> str | None:
    """Why a language pair's estimates have no interval, and what gives them one, in words (None when
    they have one): shown instead of ranking the runs by estimates nobody can trust yet. A group of a
    plan's report names its planned topics; one of `sepia metaeval calibrate`, all topics."""
    more = group.get("more_for_interval", 0 if any(r["low"] is not None for r in group["runs"]) else 2)
    if not more or group["complete"]:
        return None
    planned = "planned" in group
    kind = "planned topic" if planned else "topic"
    of = group["planned"] if planned else group["topics"]
    if more <= of - group["judged"]:
        step = f"judge {more} more {kind}{'s' if more > 1 else ''}"
        if "judgments_for_interval" in group:
            step += f" (at least {_judgments(group['judgments_for_interval'])})"
        step += " for intervals"
        if "judgments_left" in group:
            step += f", and the whole plan ({_judgments(group['judgments_left'])}) for the width projected for it"
    else:
        step = "add topics to the plan (the Pools page, or sepia pool plan NAME --add N)"
    return (f"No interval yet: an interval needs two judged topics, and {group['judged']} of the {of} {kind}s "
            f"{'is' if group['judged'] == 1 else 'are'} judged; {step}. Until then the runs are not ranked.")


def _judgments(count: int) -> str:
    return f"{count} more judgment{'' if count == 1 else 's'}"


def estimate_item_plan(store, settings, pool_name: str, level: float = 0.95) -> tuple[dict, list[str]]:
    """`estimate_plan` for an item-level plan: (the report, JSON-ready, with "matcher" and "pool";
    warnings). ImportRefused until every response's planned nuggets of the first wave are judged. A
    learned matcher without a model is trained on the first wave's judgments (cross-fitted) and, for
    the second wave's estimate, refitted on both waves' (`_refitted`); its estimates are then also
    shrunk across the runs toward the model's own held-out estimates of them (`_held_out`)."""
    with store.transaction() as session:
        topics, planned, warnings = judged_item_plan(session, pool_name)
        stored = get_plan(session, pool_name)
        wave_seed, plan_seed = stored.wave_seed, stored.seed
        gold = export_gold(session)
        runs = [export_run(session, run_id, "cclqa") for run_id in stored_run_ids(session, "cclqa")]
        judgments = export_judgments(session)
    matcher: Matcher | None = None
    refit = anchor = None
    try:  # a learned matcher: trained on the first wave's planned items, cross-fitted, and refitted after the
        # second wave for its estimate (as the simulation); or a model fixed before the plan
        if fits_on_plan(settings):
            inside = [(j, d.wave) for j in judgments
                      if (d := planned_for(planned.get(j.topic_id, {}), j.run_id).get(j.nugget_id)) is not None]
            matcher = cross_fitted(gold, runs, [j for j, wave in inside if wave == 0], "item")
            if any(wave for _, wave in inside):
                refit = _refitted(gold, runs, [j for j, _ in inside], planned, pool_name, wave_seed, warnings)
            anchor = _held_out(gold, runs, [j for j, _ in inside], pool_name,
                               plan_seed if wave_seed is None else wave_seed, warnings)
        else:
            automatic = Evaluator(gold, settings)
            if automatic.learns:
                automatic.learn(runs)
                matcher = automatic.matcher
    except ValueError as exc:
        raise NothingToScore(f"the {settings.matcher} matcher: {exc}") from None
    report = json_ready(estimate_items(gold, runs, judgments, settings, {t: planned.get(t, {}) for t in topics},
                                       level, matcher, tuned=fits_on_plan(settings), refit=refit, anchor=anchor))
    if not report["language_pairs"]:
        raise NothingToScore(f"pool {pool_name}: no topic of the plan belongs to the stored runs' language pairs")
    for group in report["language_pairs"]:
        group.update(planned=group["topics"], mean_width=None, projected_width=None)
    return {**report, "matcher": settings.matcher, "pool": pool_name}, warnings


def _refitted(gold, runs, judgments, planned: dict[str, Sample], pool_name: str, seed: int | None,
              warnings: list[str]) -> LearnedMatcher | None:
    """The learned model refitted after the plan's second wave (`refitted`, its folds from the wave's
    seed); None, with a warning, when it cannot be (the second wave's estimate then keeps the first
    wave's model, as valid)."""
    keep = "the second wave's estimate uses the model trained on the first wave"
    if seed is None:
        warnings.append(f"pool {pool_name}: the second wave was drawn before its seed was stored, so the learned model "
                        f"is not refitted on it; {keep}")
        return None
    first = {(r, t, n) for t, sample in planned.items() for r, drawn in sample.items() if r is not None
             for n, d in drawn.items() if d.wave == 0}
    try:
        return refitted(gold, runs, judgments, first, seed)
    except CrossFitError as exc:
        warnings.append(f"pool {pool_name}: the learned model cannot be refitted on both waves' judgments ({exc}); "
                        f"{keep}")
        return None


def _held_out(gold, runs, judgments, pool_name: str, seed: int, warnings: list[str]) -> LearnedMatcher | None:
    """The learned model's predictions of each run from models that never saw its judgments
    (`held_out_runs`, the runs' folds from the plan's wave seed, else its seed): the anchor of the
    shrunk estimates. None, with a warning, when it cannot be trained (no shrunk estimates)."""
    try:
        return held_out_runs(gold, runs, judgments, seed)
    except CrossFitError as exc:
        warnings.append(f"pool {pool_name}: the learned model cannot be trained with each run's judgments held out "
                        f"({exc}); no shrunk estimates")
        return None
