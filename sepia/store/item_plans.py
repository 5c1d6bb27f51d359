"""An item-level plan's (response, nugget) pairs against the judgments stored: the sample an estimate
may use (`judged_item_plan`), the pairs a next wave may draw from, and storing that wave (`add_wave`,
drawn by `sepia.services.plan_waves`).

A response is a run's answers to a topic; a pair is judged when some assessor judged the nugget for
one of the run's answers to the topic (from the judging screen or an import). A judgment of a pair
the plan did not draw for that response (a response text two runs share is judged for both runs'
nuggets) is outside the plan: counted, and never used as if it had been drawn.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from sqlalchemy import select, tuple_
from sqlalchemy.orm import Session

from sepia.metaeval.item_estimates import Drawn, Sample, planned_for
from sepia.store import models as db
from sepia.store.errors import ImportRefused
from sepia.store.planned import plan_samples
from sepia.store.plans import get_plan, get_pool, nugget_labels, population, population_changes

Pair = tuple[str, str, str]   # (run ID, topic ID, nugget label)


@dataclass
class ItemPlanState:
    """An item-level plan as it stands: its population's topics, samples, the pairs planned for the
    responses of the runs that answer them, the pairs judged, and every topic's nugget labels."""
    topics: set[str]
    samples: dict[str, Sample]
    pairs: dict[Pair, Drawn]
    judged: set[Pair]
    labels: dict[str, list[str]]

    @property
    def last(self) -> int:
        return max((d.wave for d in self.pairs.values()), default=0)

    def waiting(self, wave: int | None = None) -> list[Pair]:
        """The planned pairs (of that wave; of any) nobody has judged yet, sorted."""
        return sorted(p for p, d in self.pairs.items() if p not in self.judged and wave in (None, d.wave))

    def candidates(self) -> list[Pair]:
        """The pairs a next wave may draw: every nugget not yet planned for a planned response."""
        responses = sorted({(r, t) for r, t, _ in self.pairs})
        return [(r, t, n) for r, t in responses for n in self.labels[t] if (r, t, n) not in self.pairs]


def item_plan_state(session: Session, pool_name: str) -> ItemPlanState:
    """The pool's item-level plan against the judgments stored now. ImportRefused (one line) for a
    topic-level plan, a population or a topic's nuggets changed since the draw, or a run answering a
    planned topic whose response has no planned pairs (pooled after the draw)."""
    plan = get_plan(session, pool_name)
    if plan.unit != "items":
        raise ImportRefused([f"pool {pool_name} has a topic-level plan, not an item-level one"])
    pool = get_pool(session, pool_name)
    groups = population(session, pool.lang, plan.strata)
    changed = population_changes(plan, {s: len(t) for s, t in groups.items()})
    if changed:
        raise ImportRefused([f"pool {pool_name}: {changed[0]}; draw a new plan"])
    labels = nugget_labels(session)
    drawn_from = _drawn_from(plan)
    grown = sorted(t for t, K in drawn_from.items() if len(labels.get(t, ())) != K)
    if grown:
        raise ImportRefused([f"pool {pool_name}: topic {grown[0]} had {drawn_from[grown[0]]} nuggets when the item-level "
                             f"plan was drawn and has {len(labels.get(grown[0], ()))} now; draw a new plan"])
    samples = plan_samples(plan)
    topics = {t for members in groups.values() for t in members}
    judged = {(r, t, n) for r, t, n in session.execute(
        _cclqa_responses(db.Nugget.label).join(db.NuggetJudgment, db.NuggetJudgment.response_id == db.Response.id)
        .join(db.Nugget, db.Nugget.id == db.NuggetJudgment.nugget_id))}
    answered = {(r, t) for r, t in session.execute(_cclqa_responses()).all() if t in topics}
    unplanned = sorted((t, r) for r, t in answered if r not in samples.get(t, {}) and None not in samples.get(t, {}))
    if unplanned:
        raise ImportRefused([f"pool {pool_name}: run {unplanned[0][1]} answers topic {unplanned[0][0]} but the "
                             f"item-level plan has no nuggets for its response ({len(unplanned)} such responses: "
                             "runs not pooled when the plan was drawn); draw a new plan"])
    pairs = {(r, t, n): d for r, t in answered for n, d in planned_for(samples[t], r).items()}
    return ItemPlanState(topics, samples, pairs, judged, dict(labels))


def _cclqa_responses(*more):
    """(run ID, topic ID, *MORE) once each, over the CCLQA runs' responses: joined further for MORE."""
    return (select(db.Run.run_id, db.RunTopic.topic_id, *more).distinct()
            .join(db.RunTopic, db.RunTopic.run_id == db.Run.id).join(db.Response, db.Response.run_topic_id == db.RunTopic.id)
            .where(db.Run.kind == "cclqa"))


def _drawn_from(plan: db.JudgingPlan) -> dict[str, int]:
    """Topic ID -> its number of nuggets when the plan was drawn: a wave-0 sample's size / probability."""
    sizes: dict[tuple[str, str | None], int] = defaultdict(int)
    probability = {}
    for n in plan.nuggets:
        if n.wave == 0:
            sizes[n.topic_id, n.run_id] += 1
            probability[n.topic_id] = n.probability
    return {topic_id: round(k / probability[topic_id]) for (topic_id, _), k in sizes.items()}


def judged_item_plan(session: Session, pool_name: str) -> tuple[set[str], dict[str, Sample], list[str]]:
    """(the population's topic IDs, topic ID -> the plan's `Sample`, warnings) of an item-level plan
    whose planned pairs are judged for every CCLQA run that answers a topic. Judgments outside the
    plan are counted in a warning and left out. A last wave not yet completely judged is left out
    too, with a warning: the estimate is that of the waves before, which stays valid. ImportRefused
    (`item_plan_state`'s, and) when nothing is judged, or a wave before the last is not complete (the
    item estimate corrects every topic)."""
    state = item_plan_state(session, pool_name)
    inside = state.judged & set(state.pairs)
    if not inside:
        raise ImportRefused([f"pool {pool_name}: no nugget of the item-level judging plan is judged yet"])
    warnings = []
    outside = sorted(state.judged - inside)
    if outside:
        warnings.append(f"pool {pool_name}: {len(outside)} judgments of run, topic and nugget outside the item-level "
                        f"plan (e.g. run {outside[0][0]} on {outside[0][1]}, nugget {outside[0][2]}) are left out of "
                        "the estimates, as those pairs were not drawn at random for those responses")
    last, samples = state.last, state.samples
    early = [p for p in state.waiting() if state.pairs[p].wave < last or last == 0]
    if early:
        first = sorted({t for _, t, _ in early})
        raise ImportRefused([f"pool {pool_name}: the item-level plan's nuggets are not yet judged for every run on "
                             f"{len(first)} of {len(state.topics)} topics (e.g. {first[0]}); its estimate corrects "
                             "every topic, so it waits for all"])
    waiting = state.waiting(last)
    if waiting:
        left = sum(d.wave == last for d in state.pairs.values()) - len(waiting)
        warnings.append(f"pool {pool_name}: wave {last} of the item-level plan is not completely judged ({len(waiting)} "
                        f"of its {len(waiting) + left} pairs wait, e.g. run {waiting[0][0]} on {waiting[0][1]}, "
                        f"nugget {waiting[0][2]}): the estimates use waves 0-{last - 1} and leave its "
                        f"{left} judged pairs out")
        samples = {t: {r: {n: d for n, d in drawn.items() if d.wave < last} for r, drawn in sample.items()}
                   for t, sample in samples.items()}
    return state.topics, samples, warnings


def add_wave(session: Session, pool_name: str, wave: int, drawn: list[tuple[Pair, float]], seed: int,
             expected: int) -> int:
    """Store a wave's drawn pairs with their inclusion probabilities, the seed it was drawn with and
    the number of pairs it was to expect (on the plan: an active plan has one such wave), and put the pool items holding
    their responses back in the queues of the assessors who judged them (the judging screen then
    shows each item every nugget planned for it, earlier marks kept). ImportRefused, nothing stored,
    when the plan's last wave is no longer `wave - 1` (another organiser drew one meanwhile).
    Returns how many judged items went back to the queues."""
    plan = get_plan(session, pool_name)
    last = max((n.wave for n in plan.nuggets), default=0)
    if last != wave - 1:
        raise ImportRefused([f"pool {pool_name}: wave {last} was drawn meanwhile; nothing stored (look again)"])
    plan.wave_seed, plan.wave_expected = seed, expected
    for (run_id, topic_id, label), probability in drawn:
        plan.nuggets.append(db.PlanNugget(topic_id=topic_id, run_id=run_id, label=label, wave=wave,
                                          probability=probability))
    responses = sorted({(r, t) for (r, t, _), _ in drawn})
    entries = (select(db.pool_member.c.entry_id)
               .join(db.Response, db.Response.id == db.pool_member.c.response_id)
               .join(db.RunTopic, db.RunTopic.id == db.Response.run_topic_id).join(db.Run, db.Run.id == db.RunTopic.run_id)
               .where(tuple_(db.Run.run_id, db.RunTopic.topic_id).in_(responses)))
    reopened = session.scalars(select(db.Assignment).join(db.PoolEntry)
                               .where(db.PoolEntry.pool_id == plan.pool_id, db.Assignment.judged_at.is_not(None),
                                      db.Assignment.entry_id.in_(entries))).all()
    for assignment in reopened:
        assignment.judged_at = None
    session.flush()
    return len(reopened)
