"""What a pool's judging plan asks humans to judge: plain reads of the plan's tables for the
assignment (`sepia.store.pools.assign_pool`) and the judging screens. It imports neither pools nor
plans, so that both may use it without an import circle.

An item-level plan's rows (`PlanNugget`) name, per topic, a nugget and the run whose response (its
answers to the topic) judges it; a row without a run (a plan drawn before migration 0017) judges the
nugget for every run's response.
"""
from __future__ import annotations

from collections import defaultdict

from sqlalchemy import and_, or_, select, true
from sqlalchemy.orm import Session

from sepia.metaeval.item_estimates import Drawn, Sample
from sepia.store import models as db


def planned_topics(session: Session, pool_id: int) -> set[str] | None:
    """The planned topic IDs of a pool, or None when the pool has no plan (every topic is judged)."""
    plan_id = session.scalar(select(db.JudgingPlan.id).where(db.JudgingPlan.pool_id == pool_id))
    if plan_id is None:
        return None
    return set(session.scalars(select(db.PlanTopic.topic_id).where(db.PlanTopic.plan_id == plan_id)))


def planned_nuggets(session: Session, plan_id: int) -> dict[str, set[str]]:
    """Topic ID -> the nugget labels an item-level plan judges for some response (empty for a
    topic-level plan)."""
    result: dict[str, set[str]] = defaultdict(set)
    for topic_id, label in session.execute(select(db.PlanNugget.topic_id, db.PlanNugget.label)
                                           .where(db.PlanNugget.plan_id == plan_id)):
        result[topic_id].add(label)
    return dict(result)


def planned_entries(session: Session, pool_id: int) -> set[int] | None:
    """The IDs of the pool's items for which its item-level plan judges some nugget (one of their
    responses' runs has a planned nugget of the topic); None when the pool has no item-level plan.
    A response pooled after the draw (the pool rebuilt with new runs) has none: nobody is asked to
    judge it for nothing."""
    plan_id = session.scalar(select(db.JudgingPlan.id).where(db.JudgingPlan.pool_id == pool_id,
                                                             db.JudgingPlan.unit == "items"))
    if plan_id is None:
        return None
    return set(session.scalars(
        select(db.PoolEntry.id).distinct()
        .join(db.pool_member, db.pool_member.c.entry_id == db.PoolEntry.id)
        .join(db.Response, db.Response.id == db.pool_member.c.response_id)
        .join(db.RunTopic, db.RunTopic.id == db.Response.run_topic_id).join(db.Run, db.Run.id == db.RunTopic.run_id)
        .join(db.PlanNugget, and_(db.PlanNugget.plan_id == plan_id, db.PlanNugget.topic_id == db.PoolEntry.topic_id,
                                  or_(db.PlanNugget.run_id.is_(None), db.PlanNugget.run_id == db.Run.run_id)))
        .where(db.PoolEntry.pool_id == pool_id)))


def item_plan_labels(session: Session, pool_id: int, topic_id: str, entry_id: int | None = None) -> set[str] | None:
    """The labels of the topic's nuggets the pool's item-level plan judges for the pool item
    `entry_id` (those planned for the run of any response it stands for; without an item, for any
    run); None when the pool has no item-level plan (every nugget is judged). One statement: it runs
    for every judging screen."""
    runs = (select(db.Run.run_id).join(db.RunTopic, db.RunTopic.run_id == db.Run.id)
            .join(db.Response, db.Response.run_topic_id == db.RunTopic.id)
            .join(db.pool_member, db.pool_member.c.response_id == db.Response.id)
            .where(db.pool_member.c.entry_id == entry_id))
    of_item = or_(db.PlanNugget.run_id.is_(None), db.PlanNugget.run_id.in_(runs)) if entry_id is not None else true()
    rows = session.execute(
        select(db.PlanNugget.label)
        .select_from(db.JudgingPlan)
        .outerjoin(db.PlanNugget, and_(db.PlanNugget.plan_id == db.JudgingPlan.id, db.PlanNugget.topic_id == topic_id,
                                       of_item))
        .where(db.JudgingPlan.pool_id == pool_id, db.JudgingPlan.unit == "items")).scalars().all()
    if not rows:
        return None
    return {label for label in rows if label is not None}


def plan_samples(plan: db.JudgingPlan) -> dict[str, Sample]:
    """Topic ID -> run ID (None: every run's response) -> label -> its wave and inclusion probability."""
    samples: dict[str, Sample] = defaultdict(dict)
    for n in plan.nuggets:
        samples[n.topic_id].setdefault(n.run_id, {})[n.label] = Drawn(n.wave, n.probability)
    return dict(samples)
