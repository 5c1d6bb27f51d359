"""The second wave of an item-level plan, its active wave (active statistical inference, Zrnic and
Candès, ICML 2024; `sepia pool plan NAME --add N`, the pools page), drawn as `sepia metaeval budget`'s
simulation draws it (`sepia.metaeval.learned_plans`): once every pair of the first, uniform wave is
judged, the learned matcher is trained on those judgments (cross-fitted, `sepia.matchers.learned`),
and each (response, nugget) pair not yet planned is drawn independently with a probability
proportional to its uncertainty, |its influence on the run's F| x sqrt(p (1 - p)) of the model's p
for it (`sepia.metaeval.active_estimates.item_uncertainty`), never below FLOOR of the uniform rate,
N pairs expected in all (`sepia.metaeval.active`). The pairs drawn are stored with their wave and
probability (`sepia.store.item_plans.add_wave`); the estimate combines the two waves
(`sepia.metaeval.active_estimates`, through `sepia.metaeval.item_estimates`).
"""
from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from sepia.metaeval.active import draw, inclusion_probabilities
from sepia.metaeval.active_estimates import item_uncertainty
from sepia.metaeval.items import item_scores
from sepia.metaeval.learned_plans import FLOOR
from sepia.scoring.evaluate import Settings
from sepia.matchers.learned import cross_fitted
from sepia.services.scores import stored_run_ids
from sepia.store.exchange.gold import export_gold
from sepia.store.exchange.judgments import export_judgments
from sepia.store.exchange.runs import export_run
from sepia.store.db import Store
from sepia.store.errors import ImportRefused
from sepia.store.item_plans import Pair, add_wave, item_plan_state


@dataclass(frozen=True)
class Wave:
    """A wave drawn: its number, the pairs expected and drawn, among how many, the floor probability,
    the responses it touches and the judged items that went back to the queues."""
    wave: int
    expected: int
    drawn: int
    candidates: int
    floor: float
    responses: int
    reopened: int


def draw_wave(store: Store, pool_name: str, expected: int, seed: int) -> Wave:
    """Draw and store the second wave of the pool's item-level plan, `expected` pairs expected, with
    numpy's generator seeded with `seed` (the model's folds too). ImportRefused (one line, nothing
    stored) while a pair of the first wave waits for a judgment, for a plan that has its second wave
    already or one sample for every response (drawn before migration 0017), when the first wave's
    judgments cannot train the model (too few, one decision only), when fewer pairs than `expected`
    are left, or when the draw gives none."""
    if expected < 1:
        raise ValueError(f"a wave draws at least one pair, not {expected}")
    with store.transaction() as session:
        state = item_plan_state(session, pool_name)
        if any(None in sample for sample in state.samples.values()):
            raise ImportRefused([f"pool {pool_name}: the item-level plan judges one sample for every response (drawn "
                                 "before each response had its own); an active wave needs a plan drawn now"])
        if state.last >= 1:
            raise ImportRefused([f"pool {pool_name}: the item-level plan has its second wave already (an active plan "
                                 "has two: a uniform one, then one drawn by the model)"])
        waiting = state.waiting()
        if waiting:
            r, t, n = waiting[0]
            raise ImportRefused([f"pool {pool_name}: wave 0 of the item-level plan is not completely judged "
                                 f"({len(waiting)} of its pairs wait, e.g. run {r} on {t}, nugget {n}); judge them "
                                 "before drawing wave 1"])
        left = len(state.candidates())
        if expected > left:
            raise ImportRefused([f"pool {pool_name}: {left} (response, nugget) pairs are not yet planned; a wave of "
                                 f"{expected} expected pairs needs as many"])
        gold = export_gold(session)
        runs = [export_run(session, run_id, "cclqa") for run_id in stored_run_ids(session, "cclqa")]
        judgments = [j for j in export_judgments(session) if (j.run_id, j.topic_id, j.nugget_id) in state.pairs]
    try:
        matcher = cross_fitted(gold, runs, judgments, "item", seed)
    except ValueError as exc:
        raise ImportRefused([f"pool {pool_name}: the learned model cannot be trained on the plan's judgments ({exc}); "
                             "no wave drawn"]) from None
    candidates, uncertainty = uncertainties(gold, runs, judgments, matcher, set(state.pairs))
    chances = inclusion_probabilities(uncertainty, expected, FLOOR * expected / len(candidates))
    hits = draw(chances, np.random.default_rng(seed))
    chosen = [(c, float(p)) for c, p, hit in zip(candidates, chances, hits) if hit]
    if not chosen:
        raise ImportRefused([f"pool {pool_name}: the draw with seed {seed} gave no pair (each is drawn on its own, "
                             f"{expected} expected); nothing stored, draw again with another seed"])
    with store.transaction() as session:
        reopened = add_wave(session, pool_name, 1, chosen)
    return Wave(1, expected, len(chosen), len(candidates), FLOOR * expected / len(candidates),
                len({(r, t) for (r, t, _), _ in chosen}), reopened)


def uncertainties(gold, runs, judgments, matcher, planned: set[Pair]) -> tuple[list[Pair], np.ndarray]:
    """(the pairs not yet planned of the runs' responses, in language pair, topic, run and nugget
    order; each one's uncertainty, `item_uncertainty` at the first wave's judged pairs), with the
    matcher's values and F3 with SEPIA's default settings, as the simulation."""
    settings = Settings()
    options = {f.name: getattr(settings, f.name) for f in fields(settings) if f.name != "matcher"}
    candidates: list[Pair] = []
    values = []
    for run_ids, topics in item_scores(gold, runs, judgments, matcher, **options).values():
        for topic in topics:
            judged = np.array([[(r, topic.topic_id, n) in planned for n in topic.labels] for r in run_ids])
            open_ = topic.answered[:, None] & ~judged & np.array([any((r, topic.topic_id, n) in planned
                                                                      for n in topic.labels) for r in run_ids])[:, None]
            rows, columns = np.nonzero(open_)
            candidates += [(run_ids[r], topic.topic_id, topic.labels[n]) for r, n in zip(rows, columns)]
            values.append(item_uncertainty(topic, judged, settings.beta)[open_])
    return candidates, np.concatenate(values) if values else np.zeros(0)
