"""Judging plans: which topics of a pool humans judge, so that PPI++ (`sepia.metaeval.ppi`) can turn
the automatic scores of every topic and the human judgments of the sample into estimates of the
human F3 with valid intervals.

The population of a stratum is the target language's topics that have nuggets and are not retired
(with `strata="type"`, those of one answer type). Each stratum's sample is drawn uniformly without
replacement with `random.Random(seed)`; the seed, the draw and the inclusion probability (planned /
population of the stratum) are stored with every topic, so an estimate can only use a sample the
store knows, and can tell when the population has changed since.

Topics added later are drawn uniformly from the stratum's topics not yet planned. A simple random
sample of n1 topics followed by one of n2 more from the rest is a simple random sample of n1 + n2
topics, so the estimate stays valid and every planned topic's probability becomes (n1 + n2) / N;
what must not happen is to pick the added topics by hand, or to stop adding because an interval
happens to look good (that is no longer a fixed sample size).

An item-level plan (`unit="items"`, a share only) plans every topic (probability 1) and draws, with
the same seed, for every pooled response (a run's answers to a topic) its own share of the topic's
nuggets (at least 2, for an interval); each (response, nugget) pair's probability is k / K (wave 0).
The estimate (`sepia.metaeval.items`) needs every response's sampled nuggets judged, so topics are
not added later; a second, active wave is (`sepia.store.item_plans`, `sepia.services.plan_waves`).
"""
from __future__ import annotations

import json
import random
from collections import defaultdict

from sqlalchemy import func, select
from sqlalchemy.orm import Session, selectinload

from sepia.store import models as db
from sepia.store.errors import ImportRefused
from sepia.store.planned import plan_samples, planned_nuggets
from sepia.store.pools import get_pool

STRATA = ("none", "type")
UNITS = ("topics", "items")
MIN_ITEMS = 2  # nuggets an item-level plan judges per topic at least: a jackknife needs two
MAX_SEED = 2**31 - 1  # seeds are stored as 32-bit integers


def parse_budget(text: str) -> tuple[float | None, int | None]:
    """ "30%" -> (0.3, None): that share of every stratum; "5" -> (None, 5): five topics per target
    language. Anything else, 0 or a share above 100%, is a ValueError with one line to show."""
    text = str(text).strip()
    try:
        if text.endswith("%"):
            share = float(text[:-1]) / 100
            if not 0 < share <= 1:
                raise ValueError
            return share, None
        count = int(text)
        if count < 1:
            raise ValueError
        return None, count
    except ValueError:
        raise ValueError(f"a judging budget is a share of the topics above 0% and at most 100% (30%) "
                         f"or a number of topics of at least 1, not {text!r}") from None


def population(session: Session, lang: str | None, strata: str) -> dict[str, list[str]]:
    """Stratum -> its topic IDs (sorted): "CS", or "CS/DEFINITION" when stratified by answer type."""
    query = (select(db.Topic.id, db.Topic.lang, db.Topic.answer_type).join(db.Nugget).distinct()
             .where(db.Topic.retired.is_(False)).order_by(db.Topic.id))
    if lang:
        query = query.where(db.Topic.lang == lang)
    groups: dict[str, list[str]] = defaultdict(list)
    for topic_id, topic_lang, answer_type in session.execute(query):
        groups[stratum_of(topic_lang, answer_type, strata)].append(topic_id)
    return dict(groups)


def stratum_of(lang: str, answer_type: str | None, strata: str) -> str:
    return f"{lang}/{answer_type or '-'}" if strata == "type" else lang


def _allocation(sizes: dict[str, int], share: float | None, count: int | None) -> dict[str, int]:
    """Topics to draw per stratum: the share of each, rounded (at least 1); or `count` per language,
    shared among its strata in proportion to their sizes (largest remainders), never more than a
    stratum has."""
    if share is not None:
        return {s: min(n, max(1, round(share * n))) for s, n in sizes.items()}
    assert count is not None  # parse_budget gives a share or a count
    wanted: dict[str, int] = {}
    languages: dict[str, list[str]] = defaultdict(list)
    for s in sizes:
        languages[s.split("/")[0]].append(s)
    for names in languages.values():
        total = sum(sizes[s] for s in names)
        goal = min(count, total)
        exact = {s: goal * sizes[s] / total for s in names}
        given = {s: int(exact[s]) for s in names}
        for s in sorted(names, key=lambda s: given[s] - exact[s])[:goal - sum(given.values())]:
            given[s] += 1
        wanted.update(given)
    return wanted


def make_plan(session: Session, pool_name: str, budget: str, strata: str = "none", seed: int = 0,
              unit: str = "topics") -> db.JudgingPlan:
    """Draw and store the plan of a pool; ImportRefused (nothing stored) when the pool has one, or
    there are no topics to plan."""
    share, count = parse_budget(budget)
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"a plan's seed lies between 0 and {MAX_SEED}, not {seed}")
    if strata not in STRATA:
        raise ValueError(f"strata must be one of {', '.join(STRATA)}, not {strata!r}")
    if unit not in UNITS:
        raise ValueError(f"a plan's unit is one of {', '.join(UNITS)}, not {unit!r}")
    if unit == "items" and (share is None or strata != "none"):
        raise ValueError("an item-level plan takes a share of every topic's nuggets (30%), without strata")
    pool = get_pool(session, pool_name)
    if pool.kind != "cclqa":
        raise ImportRefused([f"pool {pool_name} is an IR4QA pool: judging plans are for CCLQA pools"])
    if session.scalar(select(db.JudgingPlan.id).where(db.JudgingPlan.pool_id == pool.id)) is not None:
        raise ImportRefused([f"pool {pool_name} already has a judging plan (add topics to it instead)"])
    groups = population(session, pool.lang, strata)
    if not groups:
        raise ImportRefused([f"pool {pool_name}: no topic with nuggets to plan (import the gold standard first)"])
    plan = db.JudgingPlan(pool_id=pool.id, budget=str(budget).strip(), strata=strata, seed=seed, unit=unit)
    if unit == "items" and share is not None:  # (share is None was refused above)
        return _item_plan(session, plan, groups, share, seed)
    wanted = _allocation({s: len(t) for s, t in groups.items()}, share, count)
    empty = sorted(s for s, n in wanted.items() if n == 0)
    if empty:
        raise ImportRefused([f"pool {pool_name}: {budget} topics leave {empty[0]} without a planned topic; a "
                             "stratified plan needs one in every stratum (give more topics, or a share)"])
    rng = random.Random(seed)
    for stratum in sorted(groups):
        topics = groups[stratum]
        for topic_id in sorted(rng.sample(topics, wanted[stratum])):
            plan.topics.append(db.PlanTopic(topic_id=topic_id, stratum=stratum, draw=0, seed=seed,
                                            probability=wanted[stratum] / len(topics)))
    session.add(plan)
    session.flush()
    return plan


def _item_plan(session: Session, plan: db.JudgingPlan, groups: dict[str, list[str]], share: float,
               seed: int) -> db.JudgingPlan:
    """Every topic planned; in each, every pooled run's response gets its own draw of round(share * K)
    of the topic's K nuggets (at least MIN_ITEMS, at most K), in label order with
    random.Random(seed): topic after topic in ID order, run after run in run ID order (wave 0)."""
    labels = nugget_labels(session)
    runs = pooled_runs(session, plan.pool_id)
    rng = random.Random(seed)
    for stratum in sorted(groups):
        for topic_id in groups[stratum]:
            plan.topics.append(db.PlanTopic(topic_id=topic_id, stratum=stratum, draw=0, seed=seed, probability=1.0))
            nuggets = labels[topic_id]
            k = min(len(nuggets), max(MIN_ITEMS, round(share * len(nuggets))))
            for run_id in runs.get(topic_id, ()):
                for label in sorted(rng.sample(nuggets, k)):
                    plan.nuggets.append(db.PlanNugget(topic_id=topic_id, run_id=run_id, label=label, wave=0,
                                                      probability=k / len(nuggets)))
    session.add(plan)
    session.flush()
    return plan


def nugget_labels(session: Session) -> dict[str, list[str]]:
    """Topic ID -> its nugget labels, sorted; a defaultdict, so a topic without nuggets gives []."""
    labels: dict[str, list[str]] = defaultdict(list)
    for topic_id, label in session.execute(select(db.Nugget.topic_id, db.Nugget.label).order_by(db.Nugget.label)):
        labels[topic_id].append(label)
    return labels


def pooled_runs(session: Session, pool_id: int) -> dict[str, list[str]]:
    """Topic ID -> the IDs of the runs (sorted) whose responses the pool holds (control items aside)."""
    runs: dict[str, list[str]] = defaultdict(list)
    for topic_id, run_id in session.execute(
            select(db.PoolEntry.topic_id, db.Run.run_id).distinct()
            .join(db.pool_member, db.pool_member.c.entry_id == db.PoolEntry.id)
            .join(db.Response, db.Response.id == db.pool_member.c.response_id)
            .join(db.RunTopic, db.RunTopic.id == db.Response.run_topic_id).join(db.Run, db.Run.id == db.RunTopic.run_id)
            .where(db.PoolEntry.pool_id == pool_id, db.PoolEntry.control_id.is_(None))
            .order_by(db.PoolEntry.topic_id, db.Run.run_id)):
        runs[topic_id].append(run_id)
    return dict(runs)


def get_plan(session: Session, pool_name: str) -> db.JudgingPlan:
    pool = get_pool(session, pool_name)
    plan = session.scalar(select(db.JudgingPlan).where(db.JudgingPlan.pool_id == pool.id)
                          .options(selectinload(db.JudgingPlan.topics)))
    if plan is None:
        raise ImportRefused([f"pool {pool_name} has no judging plan (build it with --budget or --topics)"])
    return plan


def add_topics(session: Session, pool_name: str, count: int, seed: int) -> list[str]:
    """Draw `count` more topics per target language from those not yet planned (shared among the
    strata in proportion to what each has left); every planned topic of a stratum that grew gets the
    new probability. Returns the added topic IDs."""
    if count < 1 or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"add at least one topic, with a seed between 0 and {MAX_SEED}")
    plan = get_plan(session, pool_name)
    if plan.unit == "items":
        raise ImportRefused([f"pool {pool_name} has an item-level plan: it plans every topic already (its next "
                             "wave is drawn with sepia pool plan NAME --add N)"])
    pool = get_pool(session, pool_name)
    groups = population(session, pool.lang, plan.strata)
    planned = {t.topic_id for t in plan.topics}
    left = {s: [t for t in topics if t not in planned] for s, topics in groups.items()}
    left = {s: topics for s, topics in left.items() if topics}
    if not left:
        raise ImportRefused([f"pool {pool_name}: every topic is planned already"])
    wanted = _allocation({s: len(t) for s, t in left.items()}, None, count)
    draw = max((t.draw for t in plan.topics), default=0) + 1
    rng = random.Random(seed)
    added = []
    for stratum in sorted(left):
        for topic_id in sorted(rng.sample(left[stratum], wanted[stratum])):
            plan.topics.append(db.PlanTopic(topic_id=topic_id, stratum=stratum, draw=draw, seed=seed, probability=0))
            added.append(topic_id)
    for topic in plan.topics:
        size = len(groups.get(topic.stratum, ())) or 1
        topic.probability = sum(t.stratum == topic.stratum for t in plan.topics) / size
    session.flush()
    return added


def population_changes(plan: db.JudgingPlan, sizes: dict[str, int]) -> list[str]:
    """One line per stratum whose number of topics differs from the one its planned topics'
    probabilities were drawn from ("CS had 6 topics when the plan was drawn and has 7 now"); `sizes`
    is the number of topics of every stratum now."""
    changes = []
    for stratum in sorted({t.stratum for t in plan.topics}):
        topics = [t for t in plan.topics if t.stratum == stratum]
        then, now = round(len(topics) / topics[0].probability), sizes.get(stratum, 0)
        if then != now:
            changes.append(f"{stratum} had {then} topics when the plan was drawn and has {now} now")
    return changes


def kept_plan(session: Session, pool_id: int) -> dict | None:
    """The plan of a pool as plain data, with its saved estimates (they do not depend on the pool's
    items), to be stored again with `restore_plan` once the pool is rebuilt (deleting the pool
    deletes its plan); None when the pool has none."""
    plan = session.scalar(select(db.JudgingPlan).where(db.JudgingPlan.pool_id == pool_id)
                          .options(selectinload(db.JudgingPlan.topics)))
    if plan is None:
        return None
    saved = session.scalar(select(db.PlanEstimate).where(db.PlanEstimate.plan_id == plan.id))
    return {"budget": plan.budget, "strata": plan.strata, "seed": plan.seed, "unit": plan.unit,
            "wave_seed": plan.wave_seed, "wave_expected": plan.wave_expected, "created_at": plan.created_at,
            "estimate": saved and {"report": saved.report, "warnings": saved.warnings, "computed_at": saved.computed_at},
            "topics": [{"topic_id": t.topic_id, "stratum": t.stratum, "draw": t.draw, "seed": t.seed,
                        "probability": t.probability} for t in plan.topics],
            "nuggets": [{"topic_id": n.topic_id, "run_id": n.run_id, "label": n.label, "wave": n.wave,
                         "probability": n.probability} for n in plan.nuggets]}


def restore_plan(session: Session, pool_name: str, kept: dict) -> list[str]:
    """Store a `kept_plan` again with the rebuilt pool: the same seed, draws, topics and
    probabilities, so judgments already made stay in the plan. Returns `population_changes` (the
    estimate refuses such a plan until a new one is drawn)."""
    pool = get_pool(session, pool_name)
    plan = db.JudgingPlan(pool_id=pool.id, budget=kept["budget"], strata=kept["strata"], seed=kept["seed"],
                          unit=kept["unit"], wave_seed=kept["wave_seed"], wave_expected=kept["wave_expected"],
                          created_at=kept["created_at"],
                          topics=[db.PlanTopic(**t) for t in kept["topics"]],
                          nuggets=[db.PlanNugget(**n) for n in kept["nuggets"]])
    session.add(plan)
    session.flush()
    if kept["estimate"]:
        session.add(db.PlanEstimate(plan_id=plan.id, **kept["estimate"]))
    return population_changes(plan, {s: len(t) for s, t in population(session, pool.lang, plan.strata).items()})


def plan_status(session: Session, pool_name: str) -> dict:
    """The plan as data: its settings; per stratum the population, the planned topics and how many of
    them are fully judged (every pool item of the topic judged by some assessor)."""
    plan = get_plan(session, pool_name)
    pool = get_pool(session, pool_name)
    groups = population(session, pool.lang, plan.strata)
    items: dict[str, list[bool]] = defaultdict(list)
    rows = session.execute(
        select(db.PoolEntry.topic_id, db.PoolEntry.id, db.Assignment.judged_at)
        .outerjoin(db.Assignment, db.Assignment.entry_id == db.PoolEntry.id)
        .where(db.PoolEntry.pool_id == pool.id))
    judged_entries: dict[int, bool] = {}
    entry_topic: dict[int, str] = {}
    for topic_id, entry_id, judged_at in rows:
        entry_topic[entry_id] = topic_id
        judged_entries[entry_id] = judged_entries.get(entry_id, False) or judged_at is not None
    for entry_id, judged in judged_entries.items():
        items[entry_topic[entry_id]].append(judged)
    strata: list[dict] = []
    for stratum in sorted({t.stratum for t in plan.topics} | set(groups)):
        planned = [t for t in plan.topics if t.stratum == stratum]
        strata.append({
            "stratum": stratum, "population": len(groups.get(stratum, ())), "planned": len(planned),
            "topics": [{"topic_id": t.topic_id, "draw": t.draw, "seed": t.seed, "probability": t.probability,
                        "items": len(items.get(t.topic_id, ())), "judged_items": sum(items.get(t.topic_id, ())),
                        "complete": bool(items.get(t.topic_id)) and all(items[t.topic_id])}
                       for t in planned]})
    nuggets = planned_nuggets(session, plan.id)
    samples = plan_samples(plan)
    for group in strata:
        for row in group["topics"]:
            row["nuggets"] = sorted(nuggets.get(row["topic_id"], ()))
            row["samples"] = {run_id or "*": {label: {"wave": d.wave, "probability": d.probability}
                                              for label, d in sorted(drawn.items())}
                              for run_id, drawn in sorted(samples.get(row["topic_id"], {}).items(), key=_run_order)}
    return {"pool": pool_name, "budget": plan.budget, "strata": plan.strata, "seed": plan.seed, "unit": plan.unit,
            "waves": max((n.wave for n in plan.nuggets), default=0) + 1, **active_wave(plan), "by_stratum": strata}


def active_wave(plan: db.JudgingPlan) -> dict:
    """The seed and the expected number of pairs of an item-level plan's active wave (None before it)."""
    return {"wave_seed": plan.wave_seed, "wave_expected": plan.wave_expected}


def _run_order(item: tuple[str | None, object]) -> str:
    return item[0] or ""


def items_to_judge(session: Session, pool_name: str) -> dict[str, int]:
    """Planned topic ID -> how many of its pool items (control items aside) still wait for a
    judgment: no member response has a nugget judgment, from the judging screen or an import."""
    plan = get_plan(session, pool_name)
    pool = get_pool(session, pool_name)
    judged = select(db.pool_member.c.entry_id).join(
        db.NuggetJudgment, db.NuggetJudgment.response_id == db.pool_member.c.response_id)
    rows = session.execute(
        select(db.PoolEntry.topic_id, func.count()).where(
            db.PoolEntry.pool_id == pool.id, db.PoolEntry.control_id.is_(None), db.PoolEntry.id.not_in(judged))
        .group_by(db.PoolEntry.topic_id)).all()
    left = dict(rows)
    return {t.topic_id: left.get(t.topic_id, 0) for t in plan.topics}


def judged_plan_topics(session: Session, pool_name: str) -> tuple[dict[str, str], set[str], set[str], list[str]]:
    """(the plan's population as topic ID -> stratum, its planned topics, those judged for every CCLQA
    run that answers them, warnings). Judgments count whichever pool of the campaign they were made
    in; those of topics outside the plan (from an earlier pool, say) are left out with a warning, as
    they were not drawn at random. ImportRefused when no planned topic is judged (in some stratum,
    for a stratified plan) or the population changed since the draw."""
    plan = get_plan(session, pool_name)
    pool = get_pool(session, pool_name)
    groups = population(session, pool.lang, plan.strata)
    planned = {t.topic_id for t in plan.topics}
    changed = population_changes(plan, {s: len(t) for s, t in groups.items()})
    if changed:
        raise ImportRefused([f"pool {pool_name}: {changed[0]}; draw a new plan"])
    judged_pairs = set(session.execute(
        select(db.Run.run_id, db.RunTopic.topic_id).distinct()
        .join(db.RunTopic, db.RunTopic.run_id == db.Run.id).join(db.Response, db.Response.run_topic_id == db.RunTopic.id)
        .join(db.NuggetJudgment, db.NuggetJudgment.response_id == db.Response.id).where(db.Run.kind == "cclqa")).all())
    everything = {t for topics in groups.values() for t in topics}
    outside = sorted({(t, r) for r, t in judged_pairs if t in everything and t not in planned})
    warnings = []
    if outside:
        topics = sorted({t for t, _ in outside})
        warnings.append(f"pool {pool_name}: judgments of {len(topics)} topic{'s' if len(topics) > 1 else ''} outside the "
                        f"judging plan ({len(outside)} run and topic pairs, e.g. run {outside[0][1]} on "
                        f"{outside[0][0]}) are left out of the estimates, as those topics were not drawn at random")
    answered = set(session.execute(
        select(db.Run.run_id, db.RunTopic.topic_id).distinct()
        .join(db.RunTopic, db.RunTopic.run_id == db.Run.id).join(db.Response, db.Response.run_topic_id == db.RunTopic.id)
        .where(db.Run.kind == "cclqa", db.RunTopic.topic_id.in_(planned))).all())
    with_judgments = {t for _, t in judged_pairs}
    judged = {t for t in planned if t in with_judgments and all(p in judged_pairs for p in answered if p[1] == t)}
    if not judged:
        raise ImportRefused([f"pool {pool_name}: no topic of the judging plan is judged yet"])
    waiting = sorted(s for s, topics in groups.items() if not judged & set(topics))
    if plan.strata != "none" and waiting:
        raise ImportRefused([f"pool {pool_name}: no planned topic of {waiting[0]} is judged yet (a stratified "
                             "estimate needs every stratum)"])
    return {t: s for s, topics in groups.items() for t in topics}, planned, judged, warnings


def plans_overview(session: Session, progress) -> dict[int, dict]:
    """Pool ID -> its plan for the pools page, from three queries whatever the number of pools:
    budget, strata, seed, and per stratum the population, planned topics and those complete (every
    assigned item judged; `progress` = sepia.store.judging.progress rows)."""
    plans = session.scalars(select(db.JudgingPlan).options(selectinload(db.JudgingPlan.topics),
                                                           selectinload(db.JudgingPlan.nuggets))).all()
    if not plans:
        return {}
    topics = session.execute(select(db.Topic.id, db.Topic.lang, db.Topic.answer_type).join(db.Nugget).distinct()
                             .where(db.Topic.retired.is_(False))).all()
    open_items: dict[tuple[int, str], int] = defaultdict(int)
    for row in progress:
        open_items[row.pool_id, row.topic_id] += row.total - row.judged
    overview = {}
    for plan in plans:
        sizes: dict[str, int] = defaultdict(int)
        for _, lang, answer_type in topics:
            sizes[stratum_of(lang, answer_type, plan.strata)] += 1
        strata = []
        for stratum in sorted({t.stratum for t in plan.topics}):
            planned = [t for t in plan.topics if t.stratum == stratum]
            done = [t.topic_id for t in planned if open_items.get((plan.pool_id, t.topic_id)) == 0]
            strata.append({"stratum": stratum, "population": sizes.get(stratum, 0), "planned": len(planned),
                           "complete": len(done), "topics": [t.topic_id for t in planned]})
        overview[plan.pool_id] = {"budget": plan.budget, "strata": plan.strata, "seed": plan.seed, "unit": plan.unit,
                                  "nuggets": len(plan.nuggets),
                                  "per_response": any(n.run_id is not None for n in plan.nuggets),
                                  "waves": max((n.wave for n in plan.nuggets), default=0) + 1,
                                  **active_wave(plan),
                                  "draws": max(t.draw for t in plan.topics) + 1 if plan.topics else 0,
                                  "changes": population_changes(plan, sizes),
                                  "by_stratum": strata}
    return overview


def save_estimate(session: Session, pool_name: str, report: dict | None, warnings: list[str]) -> None:
    """Keep a plan's estimates (`estimate_plan`'s JSON-ready report, or None when it was refused and
    the reason is among the warnings) in place of those computed before."""
    plan = get_plan(session, pool_name)
    row = session.scalar(select(db.PlanEstimate).where(db.PlanEstimate.plan_id == plan.id))
    if row is None:
        row = db.PlanEstimate(plan_id=plan.id)
        session.add(row)
    row.report, row.warnings, row.computed_at = json.dumps(report), json.dumps(warnings), db.utcnow()
    session.flush()


def saved_estimates(session: Session) -> dict[int, dict]:
    """Pool ID -> its plan's estimates as last saved: {"report", "warnings", "computed_at"}, in one
    query whatever the number of pools."""
    rows = session.execute(select(db.JudgingPlan.pool_id, db.PlanEstimate)
                           .join(db.PlanEstimate, db.PlanEstimate.plan_id == db.JudgingPlan.id))
    return {pool_id: {"report": json.loads(e.report), "warnings": json.loads(e.warnings), "computed_at": e.computed_at}
            for pool_id, e in rows}
