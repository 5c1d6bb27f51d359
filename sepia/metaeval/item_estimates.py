"""Estimates of CCLQA runs' human F3 from an item-level judging plan (`sepia evaluate --store --plan`
and the web tool's estimates, through `sepia.services.plan_estimates`): every topic's automatic
scores corrected by the human judgments of its planned (response, nugget) pairs (`sepia.metaeval.items`;
`sepia.metaeval.active_estimates` for an active plan's two waves, as the simulation), in the report shape of
`sepia.metaeval.calibrate`, so the same tables, TSV, JSON and web page show them.

A plan is given per topic as a `Sample`: run ID -> nugget label -> how the pair was drawn (`Drawn`);
the run None stands for every run's response (plans drawn before each response had its own sample).
"""
from __future__ import annotations

from dataclasses import fields
from itertools import combinations
from typing import NamedTuple

import numpy as np

from sepia.metaeval.active_estimates import first_wave_totals, refitted_candidates, second_wave_lambda, second_wave_totals
from sepia.metaeval.active_waves import wave_weights, waves_interval
from sepia.metaeval.calibrate import DIFFERENCE_RANGE, MEAN_RANGE, shown
from sepia.metaeval.items import TopicItems, f_from_sums, item_lambda, item_scores, plan_sums
from sepia.metaeval.ppi import Estimate
from sepia.metaeval.shrinkage import MIN_UNITS, Shrunk, shrink_plan


class Drawn(NamedTuple):
    """How a planned (response, nugget) pair was drawn: its wave (0: the response's uniform sample)
    and its inclusion probability given the waves before."""
    wave: int
    probability: float


Sample = dict[str | None, dict[str, Drawn]]   # run ID (None: every run's response) -> label -> its draw


def planned_for(sample: Sample, run_id: str) -> dict[str, Drawn]:
    """The nuggets a topic's plan judges for the run's response (those of every response's too)."""
    return {**sample.get(None, {}), **sample.get(run_id, {})}


def item_plan_estimates(topics: list[TopicItems], planned: dict[str, Sample], level: float, beta: float,
                        run_ids: list[str], tuned: bool = False, refitted: list[TopicItems] | None = None,
                        anchor: list[TopicItems] | None = None) -> dict:
    """One language pair's group of the `calibrate` report from its topics' items and the plan: per
    run the estimate of its mean F over the topics with its interval (the item-level jackknife; for
    an active plan, the first wave's estimate and the second wave's inverse-probability-weighted one
    combined by their variances; Satterthwaite's degrees of freedom), per pair of runs (ranked by
    estimate) the difference. `tuned`: power-tuned lambdas (`item_lambda`, and the second wave's)
    instead of 1. `refitted`: the topics with the model refitted after the second wave, whose
    predictions of the wave's candidates are the second wave's f (the first wave's estimate keeps
    `topics`'). `anchor`: the topics with the model's predictions from models that never saw the
    run's judgments, toward whose mean F the estimates are shrunk (`shrunk_columns`). ValueError (one
    line) when a response of a run that answers a topic has no planned pair, or the plan has more than
    two waves."""
    T = len(topics)
    automatic = _mean_f(topics, beta)
    planned = {t.topic_id: planned.get(t.topic_id, {}) for t in topics}   # a topic nobody answers may have none
    waves = max((d.wave for sample in planned.values() for drawn in sample.values() for d in drawn.values()), default=0)
    if waves > 1:
        raise ValueError(f"an active plan has two waves (a uniform one, then one drawn by the model), not {waves + 1}")
    masks = [_plan_masks(t, planned[t.topic_id], run_ids, waves) for t in topics]
    first = [_indices(t, {r: {n: d for n, d in drawn.items() if d.wave == 0} for r, drawn in planned[t.topic_id].items()},
                      run_ids) for t in topics]
    lam = float(item_lambda(topics, first)[0]) if tuned else 1.0
    weight = None
    if waves:   # `sepia.metaeval.active_estimates`, as the simulation: the two waves' estimates combined
        known = [e for e, _ in masks]
        pi = [np.where(p > 0, p, 1.0) for _, p in masks]
        drawn = [e | (p > 0) for e, p in masks]
        second = topics if refitted is None else refitted_candidates(topics, refitted, known)
        lam_two = second_wave_lambda(second, pi, drawn) if tuned else 1.0
        one, two = first_wave_totals(topics, known, beta, lam), second_wave_totals(second, pi, drawn, beta, lam_two)
        weights = wave_weights([one, two])
        weight, lam = float(weights[0]), lam_two

        def interval(pairs=None):
            waves = [one, two] if pairs is None else [one.differences(pairs), two.differences(pairs)]
            estimate, half = waves_interval(waves, weights, T, level)
            return estimate[:, None], half[:, None]
    else:
        def interval(pairs=None):
            means, differences = plan_sums(topics, first, beta, level, pairs, lam)
            return means if pairs is None else differences
    estimate, half = interval()
    order = sorted(range(len(run_ids)), key=lambda i: (-estimate[i, 0], run_ids[i]))
    pairs = np.array(list(combinations(order, 2)), dtype=int).reshape(-1, 2)
    difference = interval(pairs) if len(pairs) else None
    estimates = _estimates(estimate[:, 0], half[:, 0], automatic, T, lam)
    rows = [{"run_id": run_ids[i], **shown(estimates[i], MEAN_RANGE)} for i in order]
    differences = []
    if difference is not None:
        d_automatic = automatic[pairs[:, 0]] - automatic[pairs[:, 1]]
        for (a, b), d in zip(pairs, _estimates(difference[0][:, 0], difference[1][:, 0], d_automatic, T, lam)):
            differences.append({"a": run_ids[a], "b": run_ids[b], **shown(d, DIFFERENCE_RANGE),
                                "decided": bool(d.low > 0 or d.high < 0)})
    shrinkage = {} if anchor is None else shrunk_columns(estimate[:, 0], half[:, 0], _mean_f(anchor, beta), order,
                                                         pairs, rows, differences, level)
    judged = [(e | (p > 0))[t.answered] for t, (e, p) in zip(topics, masks)]
    complete = all(j.all() for j in judged)
    if all(None in planned[t.topic_id] for t in topics):   # one sample for every response of a topic
        sizes = [len(planned[t.topic_id][None]) for t in topics]
        counts: dict[str, float] = {"judged_nuggets": int(sum(sizes)), "nuggets": int(sum(len(t.weights) for t in topics))}
    else:
        counts = {"judged_items": int(sum(j.sum() for j in judged)), "items_total": int(sum(j.size for j in judged)),
                  "waves": waves + 1, **({"first_wave_weight": weight} if weight is not None else {})}
    return {"topics": T, "judged": T, "judged_topics": [t.topic_id for t in topics], "complete": complete,
            **counts, **shrinkage, "runs": rows, "pairs": differences}


SHRUNK = ("shrunk", "shrunk_low", "shrunk_high")     # a run's or pair's shrunk estimate and interval


def shrunk_columns_of(report: dict) -> tuple[str, ...]:
    """SHRUNK when some run of a report has shrunk estimates, else none."""
    return SHRUNK if any("shrunk" in r for group in report["language_pairs"] for r in group["runs"]) else ()


def shrunk_columns(estimate: np.ndarray, half: np.ndarray, anchor: np.ndarray, order: list[int], pairs: np.ndarray,
                   rows: list[dict], differences: list[dict], level: float) -> dict:
    """The runs' estimates (`estimate`, intervals +- `half`, in run order; `rows` ranked by `order`)
    shrunk toward the line on the model's own estimates (`anchor`), with robust empirical Bayes
    intervals (`sepia.metaeval.shrinkage.shrink_plan`, as the simulation shrinks them); the
    differences of two runs (`pairs`, in the order of `differences`) shrunk as units of their own. Added to the rows as shrunk,
    shrunk_low, shrunk_high (the interval clipped as the others); the group's entry: the line and
    mu_2, or why there are none (fewer than MIN_UNITS runs, or a run without an interval)."""
    if len(estimate) < MIN_UNITS:
        return {"shrinkage": {"skipped": f"{len(estimate)} run{'' if len(estimate) == 1 else 's'}: shrinkage "
                                         f"across the runs needs at least {MIN_UNITS}"}}
    if not (np.isfinite(estimate).all() and np.isfinite(half).all() and np.isfinite(anchor).all()):
        return {"shrinkage": {"skipped": "a run's estimate has no interval (too few topics)"}}
    runs, between = shrink_plan(estimate, half, anchor, pairs, level)
    _add_shrunk(rows, runs, order, MEAN_RANGE)
    if between is not None:
        _add_shrunk(differences, between, list(range(len(pairs))), DIFFERENCE_RANGE)
    return {"shrinkage": {"intercept": float(runs.delta[0]), "slope": float(runs.delta[1]), "mu2": runs.mu2}}


def _add_shrunk(rows: list[dict], shrunk: Shrunk, order: list[int], bounds: tuple[float, float]) -> None:
    for row, i in zip(rows, order):
        e, h = float(shrunk.estimate[i]), float(shrunk.half[i])
        row.update(shrunk=e, shrunk_low=float(np.clip(e - h, *bounds)), shrunk_high=float(np.clip(e + h, *bounds)))


def _mean_f(topics: list[TopicItems], beta: float) -> np.ndarray:
    """Per run the mean over the topics of F from the items' automatic values."""
    return np.asarray(sum(f_from_sums(t.automatic @ t.weights, t.automatic.sum(axis=1), t, beta)
                          for t in topics) / len(topics))


def _drawn(topic: TopicItems, sample: Sample, run_id: str) -> dict[str, Drawn]:
    """The run's planned pairs of the topic; ValueError when it answers the topic and has none."""
    drawn = sample.get(None) or sample.get(run_id)
    if drawn is None:
        raise ValueError(f"run {run_id} answers topic {topic.topic_id} but the plan has no nuggets for its response "
                         "(it was not pooled when the plan was drawn)")
    return drawn


def _plan_masks(topic: TopicItems, sample: Sample, run_ids: list[str], last: int) -> tuple[np.ndarray, np.ndarray]:
    """(the pairs judged before the plan's `last` wave, runs x K bool; the last wave's inclusion
    probabilities, runs x K, 0 where it drew nothing). A run that does not answer the topic has no
    pairs (its F is 0)."""
    column = {label: n for n, label in enumerate(topic.labels)}
    earlier = np.zeros(topic.human.shape, bool)
    probability = np.zeros(topic.human.shape)
    for row, run_id in enumerate(run_ids):
        if not topic.answered[row]:
            continue
        for label, d in _drawn(topic, sample, run_id).items():
            if d.wave < last:
                earlier[row, column[label]] = True
            else:
                probability[row, column[label]] = d.probability
    return earlier, probability


def _indices(topic: TopicItems, sample: Sample, run_ids: list[str]) -> np.ndarray:
    """The nugget indices of a one-wave plan: 1 x k when every response has the same sample, else
    runs x 1 x k (each response's own; a run that does not answer the topic gets the first k, which
    change nothing as its values are all 0)."""
    column = {label: n for n, label in enumerate(topic.labels)}
    if None in sample:
        return np.array([sorted(column[label] for label in sample[None])])
    rows = [sorted(column[label] for label in _drawn(topic, sample, r)) if topic.answered[i] else None
            for i, r in enumerate(run_ids)]
    sizes = {len(r) for r in rows if r is not None} or {min(2, len(topic.weights))}   # no run answers: any k
    if len(sizes) != 1:
        raise ValueError(f"topic {topic.topic_id}: the responses' samples differ in size "
                         f"({', '.join(map(str, sorted(sizes)))} nuggets): not one uniform wave")
    k = sizes.pop()
    return np.array([r if r is not None else list(range(k)) for r in rows])[:, None, :]


def _estimates(estimate, half, automatic, topics: int, lam: float) -> list[Estimate]:
    """lambda is 1 (plain PPI on each topic's two sums) or the plan's power-tuned one."""
    return [Estimate(float(e), float(e - h), float(e + h), lam, topics, topics, float(a))
            for e, h, a in zip(estimate, half, automatic)]


def estimate_items(gold, runs, judgments, settings, planned: dict[str, Sample], level: float,
                   matcher=None, tuned: bool = False, refit=None, anchor=None) -> dict:
    """The `calibrate` report of an item-level plan; `matcher` an object in place of settings.matcher
    (a learned matcher that has seen the runs); `tuned`: a power-tuned lambda (`item_lambda`) instead
    of 1, for a predictor that may be worse than none (one trained on the plan's own judgments);
    `refit`: a matcher whose values of the second wave's candidates are that wave's f (the learned
    model refitted after it, `sepia.matchers.learned.refitted`); `anchor`: a matcher whose values of
    each run come from models that never saw its judgments (`sepia.matchers.learned.held_out_runs`),
    toward whose estimates the runs' are shrunk."""
    options = {f.name: getattr(settings, f.name) for f in fields(settings) if f.name != "matcher"}
    scores = item_scores(gold, runs, judgments, matcher or settings.matcher, **options)
    refitted = item_scores(gold, runs, judgments, refit, **options) if refit is not None else {}
    anchored = item_scores(gold, runs, judgments, anchor, **options) if anchor is not None else {}
    groups = []
    for pair, (run_ids, topics) in scores.items():
        second = [t for t in refitted[pair][1] if t.topic_id in planned] if refitted else None
        own = [t for t in anchored[pair][1] if t.topic_id in planned] if anchored else None
        topics = [t for t in topics if t.topic_id in planned]
        if topics:
            groups.append({"language_pair": pair, **item_plan_estimates(topics, planned, level, settings.beta,
                                                                         run_ids, tuned, second, own)})
    return {"level": level, "unit": "items", "language_pairs": groups}

