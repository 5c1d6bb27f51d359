"""The next wave of an item-level plan (active statistical inference, Zrnic and Candès, ICML 2024;
`sepia pool plan NAME --add N`, the pools page): once every pair planned so far is judged, the
learned matcher is trained on the plan's judged pairs (cross-fitted, `sepia.scoring.learned`), and
each pair not yet planned is drawn independently with a probability that rises with the model's
uncertainty about it (`sepia.metaeval.active`), never below a floor, N pairs expected in all. The
pairs drawn are stored with their wave and probability (`sepia.store.item_plans.add_wave`); the
estimate weights the last wave's pairs by 1 / probability (`sepia.metaeval.wave_estimates`).

A pair's uncertainty is that of its item value, the run's best answer: p = the highest of the
model's probabilities for the run's answers to the topic, u = sqrt(p (1 - p)).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sepia.metaeval.active import draw, inclusion_probabilities, uncertainty_of
from sepia.scoring.learned import cross_fitted
from sepia.services.scores import stored_run_ids
from sepia.store import io
from sepia.store.db import Store
from sepia.store.io import ImportRefused
from sepia.store.item_plans import add_wave, item_plan_state

FLOOR_SHARE = 0.2   # a pair's probability is at least a fifth of what a uniform wave would give it


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
    """Draw and store the next wave of the pool's item-level plan, `expected` pairs expected, with
    numpy's generator seeded with `seed`. ImportRefused (one line, nothing stored) while a planned
    pair waits for a judgment, when the plan's judgments cannot train the model (too few, one
    decision only), when fewer pairs than `expected` are left, or when the draw gives none."""
    if expected < 1:
        raise ValueError(f"a wave draws at least one pair, not {expected}")
    with store.transaction() as session:
        state = item_plan_state(session, pool_name)
        waiting = state.waiting()
        if waiting:
            r, t, n = waiting[0]
            raise ImportRefused([f"pool {pool_name}: wave {state.last} of the item-level plan is not completely judged "
                                 f"({len(waiting)} of its pairs wait, e.g. run {r} on {t}, nugget {n}); judge them "
                                 f"before drawing wave {state.last + 1}"])
        candidates = state.candidates()
        if expected > len(candidates):
            raise ImportRefused([f"pool {pool_name}: {len(candidates)} (response, nugget) pairs are not yet planned; a "
                                 f"wave of {expected} expected pairs needs as many"])
        gold = io.export_gold(session)
        runs = [io.export_run(session, run_id, "cclqa") for run_id in stored_run_ids(session, "cclqa")]
        judgments = [j for j in io.export_judgments(session) if (j.run_id, j.topic_id, j.nugget_id) in state.pairs]
    try:
        matcher = cross_fitted(gold, runs, judgments, "item", seed)
    except ValueError as exc:
        raise ImportRefused([f"pool {pool_name}: the learned model cannot be trained on the plan's judgments ({exc}); "
                             "no wave drawn"]) from None
    best: dict[tuple[str, str, str], float] = {}
    for (run_id, topic_id, _, label), p in matcher.probabilities.items():
        best[run_id, topic_id, label] = max(p, best.get((run_id, topic_id, label), 0.0))
    floor = FLOOR_SHARE * expected / len(candidates)
    pi = inclusion_probabilities(uncertainty_of(np.array([best.get(c, 0.0) for c in candidates])), expected, floor)
    hits = draw(pi, np.random.default_rng(seed))
    chosen = [(c, float(p)) for c, p, hit in zip(candidates, pi, hits) if hit]
    if not chosen:
        raise ImportRefused([f"pool {pool_name}: the draw with seed {seed} gave no pair (each is drawn on its own, "
                             f"{expected} expected); nothing stored, draw again with another seed"])
    with store.transaction() as session:
        reopened = add_wave(session, pool_name, state.last + 1, chosen)
    return Wave(state.last + 1, expected, len(chosen), len(candidates), floor,
                len({(r, t) for (r, t, _), _ in chosen}), reopened)
