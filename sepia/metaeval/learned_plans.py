"""`sepia metaeval budget --matcher learned`: judging plans whose automatic values come from the
learned matcher trained on the plan's own judgments, cross-fitted (`sepia.matchers.learned.crossfit`),
beside BINARIZED on the very same plans, at equal numbers of human judgments.

Per budget and trial:
- a topic-level plan judges round(budget x T) topics for every run; the folds are topics (the plan's
  sampling unit); the estimate is PPI++ with one power-tuned lambda for the runs (`ppi_arrays`);
- an item-level plan judges, in every topic, each response's own uniform sample of round(budget x K)
  of the K nuggets (at least 2), so every nugget has judged responses that judgment reuse can learn
  from; the folds are items; the estimate is the item estimator with one power-tuned lambda per plan
  (`item_lambda`), run differences with the two runs' variances summed (their samples are
  independent).
- an active plan (`_active_plan`, `sepia.metaeval.active_estimates`, `sepia.metaeval.active_waves`)
  takes the item-level plan's judgments in waves (`ActiveDesign`; two by default): each response's
  own uniform sample of half its items, the model cross-fitted on it, then the other items drawn
  independently where the model is unsure, the model refitted on every judgment after each wave
  (`_refit`) to predict that wave's estimate; its draws come from a stream of their own, and the
  refit's folds from another, so the other kinds' plans do not change with it, nor its draws with
  the refit.
The figures per plan kind: coverage, mean width, share of intervals excluding 0 (decided), Kendall's
tau of the estimated run ranking against the full human one, and the predictor's correlation with
the human values (per topic, or per item over a run's items).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Callable

import numpy as np

from sepia.metaeval.active import draw, inclusion_probabilities
from sepia.metaeval.active_estimates import (first_wave_totals, item_uncertainty, refitted_candidates, second_wave_lambda,
                                             second_wave_totals)
from sepia.metaeval.active_waves import wave_weights, waves_interval
from sepia.metaeval.budget import pair_differences, per_row_correlation
from sepia.metaeval.items import TopicItems, f_from_sums, item_correlation, item_lambda, plan_sums
from sepia.metaeval.ppi import ppi_arrays
from sepia.metaeval.ranking import kendall_tau
from sepia.metaeval.shrinkage import MIN_UNITS, shrink_plan
from sepia.matchers.learned.crossfit import FOLDS, CrossFitError, CrossFitter, run_folds, unit_folds
from sepia.matchers.learned.pairs import Pairs

KINDS = (("topics", "binarized"), ("topics", "learned"), ("items", "binarized"), ("items", "learned"),
         ("active", "learned"), ("shrunk", "learned"))
FIRST_WAVE = 0.5   # share of an active plan's judgments drawn uniformly, before the model exists
FLOOR = 0.5        # an item's least second-wave probability, as a share of the wave's uniform rate


@dataclass(frozen=True)
class ActiveDesign:
    """How an active plan is drawn: its number of waves (the first uniform, of `first` of each
    response's sample, the others sharing the rest of the judgments equally), and whether the model
    is refitted after each wave on every judgment so far (cross-fitted over the wave's candidates) to
    predict the wave's estimate."""
    waves: int = 2
    refit: bool = True
    first: float = FIRST_WAVE


@dataclass
class PlanData:
    """One language pair's runs: their items (human and BINARIZED values) and the learned matcher's
    pairs, each pair's cell in the topics' runs x K matrices laid end to end."""
    run_ids: list[str]
    topics: list[TopicItems]
    fitter: CrossFitter
    cell: np.ndarray          # per pair: its (topic, run, nugget) cell
    topic: np.ndarray         # per pair: its topic's index
    offsets: np.ndarray       # per topic: its first cell

    @classmethod
    def build(cls, run_ids: list[str], topics: list[TopicItems], pairs: Pairs, extra: np.ndarray | None = None):
        sizes = [len(run_ids) * len(t.weights) for t in topics]
        offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
        where = {t.topic_id: i for i, t in enumerate(topics)}
        column = [{label: n for n, label in enumerate(t.labels)} for t in topics]
        row = {r: i for i, r in enumerate(run_ids)}
        topic = np.array([where[k[1]] for k in pairs.keys], int)
        cell = np.array([offsets[t] + row[k[0]] * len(topics[t].weights) + column[t][k[3]]
                         for t, k in zip(topic, pairs.keys)], int)
        return cls(run_ids, topics, CrossFitter(pairs, extra), cell, topic, offsets)

    @property
    def cell_count(self) -> int:
        """How many cells the topics' runs x K matrices hold, end to end."""
        return int(self.offsets[-1]) + self.topics[-1].automatic.size

    def with_predictions(self, predictions: np.ndarray) -> list[TopicItems]:
        """The topics with the pairs' predictions as automatic values (a nugget's best answer's)."""
        flat = np.zeros(self.cell_count)
        np.maximum.at(flat, self.cell, predictions)
        return [replace(t, automatic=flat[o:o + t.automatic.size].reshape(t.automatic.shape))
                for t, o in zip(self.topics, self.offsets)]


def topic_f(topics: list[TopicItems], beta: float, human: bool = False) -> np.ndarray:
    """Runs x topics F from the items' automatic (or human) values."""
    return np.column_stack([f_from_sums(v @ t.weights, v.sum(axis=1), t, beta)
                            for t in topics for v in [t.human if human else t.automatic]])


class Tally:
    """Sums of one plan kind's figures over the trials."""

    def __init__(self):
        self.sums: dict[str, np.ndarray] = {}
        self.taus: dict[str, list[float]] = {}   # of the estimates against the truth, per plan
        self.correlations: list[float] = []
        self.difference_correlations: list[float] = []
        self.cells: dict[str, int] = {}

    def add(self, key: str, estimate: np.ndarray, half: np.ndarray, truth: np.ndarray) -> None:
        counts = np.array([np.sum(np.abs(estimate - truth) <= half + 1e-12), 2 * half.sum(),
                           np.sum(np.abs(estimate) > half)], float)
        self.sums[key] = self.sums.get(key, np.zeros(3)) + counts
        self.cells[key] = self.cells.get(key, 0) + len(truth)
        self.taus.setdefault(key, []).append(kendall_tau(truth, estimate))

    def figures(self) -> dict:
        out: dict[str, object] = {"correlation": _mean(self.correlations),
                                  "difference_correlation": _mean(self.difference_correlations)}
        for key, (covered, width, decided) in self.sums.items():
            n = self.cells[key]
            out[key] = {"coverage": covered / n, "width": width / n, "tau": _mean(self.taus[key]),
                        "decided": decided / n}
        return out


def _mean(values) -> float:
    values = np.asarray(values, float)
    values = values[np.isfinite(values)]
    return float(values.mean()) if len(values) else float("nan")


def simulate_plans(data: PlanData, budgets, trials: int, seed: int, level: float = 0.95, beta: float = 3.0,
                   advance: Callable[[], None] | None = None, design: ActiveDesign | None = None) -> list[dict]:
    """One object per plan kind and budget: {"plan", "budget", "matcher", "judgments", "means",
    "differences", "correlation", "difference_correlation", "seconds", "fallbacks"} (seconds: the CPU
    time of the budget's learned predictions; fallbacks: the learned plans whose judgments could not
    train the model, given BINARIZED's values instead); `advance` is called after every plan."""
    runs = len(data.run_ids)
    pairs = np.array(list(combinations(range(runs), 2)), int).reshape(-1, 2)
    human_f = topic_f(data.topics, beta, human=True)
    truth = human_f.mean(axis=1)
    binarized_f = topic_f(data.topics, beta)
    labelled = ~np.isnan(data.fitter.pairs.labels)
    results = []
    for budget in budgets:
        rng = np.random.default_rng([seed, round(100 * budget)])   # a budget draws the same plans in any company
        active_rng = np.random.default_rng([seed, round(100 * budget), 1])   # leaves the other plans as they were
        refit_rng = np.random.default_rng([seed, round(100 * budget), 2])   # leaves the active plans' draws too
        anchor_rng = np.random.default_rng([seed, round(100 * budget), 3])  # and their refits
        tallies = {kind: Tally() for kind in KINDS}
        costs = {"topics": 0.0, "items": 0.0, "active": 0.0, "shrunk": 0.0}
        fallbacks = {"topics": 0, "items": 0, "active": 0, "shrunk": 0}
        seconds = 0.0
        for _ in range(trials):
            started = time.process_time()
            # topic-level: the same topics for every run
            n = max(2, round(budget / 100 * len(data.topics)))
            chosen = np.sort(rng.permutation(len(data.topics))[:n])
            costs["topics"] += sum(len(data.topics[t].weights) * int(data.topics[t].answered.sum()) for t in chosen)
            judged = np.isin(data.topic, chosen) & labelled
            learned = _learned(data, judged, unit_folds(data.topic, judged, rng), "topics", fallbacks)
            learned_f = topic_f(learned, beta)
            for matcher, automatic in (("binarized", binarized_f), ("learned", learned_f)):
                tally = tallies["topics", matcher]
                _topic_plan(tally, human_f, automatic, chosen, truth, pairs, level)
                tally.correlations.append(per_row_correlation(human_f, automatic))
                tally.difference_correlations.append(per_row_correlation(pair_differences(human_f),
                                                                         pair_differences(automatic)))
            # item-level: each response's own nuggets
            samples = _uniform_samples(rng, runs, data.topics, [_size(budget, t) for t in data.topics])
            costs["items"] += sum(_size(budget, t) * int(t.answered.sum()) for t in data.topics)
            judged = _judged_cells(data, samples)[data.cell] & labelled
            learned = _learned(data, judged, unit_folds(data.cell, judged, rng), "items", fallbacks)
            seconds += time.process_time() - started
            for matcher, topics in (("binarized", data.topics), ("learned", learned)):
                tally = tallies["items", matcher]
                lam = item_lambda(topics, samples) if matcher == "learned" else 1.0
                (estimate, half), difference = plan_sums(topics, samples, beta, level, pairs, lam)
                tally.add("means", estimate[:, 0], half[:, 0], truth)
                if difference is not None:
                    tally.add("differences", difference[0][:, 0], difference[1][:, 0],
                              truth[pairs[:, 0]] - truth[pairs[:, 1]])
                tally.correlations.append(item_correlation(topics))
                tally.difference_correlations.append(tally.correlations[-1])   # the same items
            started = time.process_time()
            costs["active"] += _active_plan(data, budget, active_rng, beta, level, pairs, truth,
                                            tallies["active", "learned"], fallbacks, design, refit_rng,
                                            tallies["shrunk", "learned"], anchor_rng)
            costs["shrunk"] = costs["active"]   # the same plans
            seconds += time.process_time() - started
            if advance:
                advance()
        for plan, matcher in KINDS:
            results.append({"plan": plan, "budget": budget, "matcher": matcher, "judgments": costs[plan] / trials,
                            **tallies[plan, matcher].figures(),
                            "seconds": seconds if matcher == "learned" else None,
                            "fallbacks": fallbacks[plan] if matcher == "learned" else None})
    return results


def _learned(data: PlanData, judged: np.ndarray, folds: np.ndarray, kind: str, fallbacks: dict) -> list[TopicItems]:
    """The topics with cross-fitted predictions; BINARIZED's values (counted in `fallbacks`) when the
    plan's judgments cannot train the model."""
    try:
        return data.with_predictions(data.fitter.predict(judged, folds, kind))
    except CrossFitError:
        fallbacks[kind] += 1
        return data.topics


def _active_plan(data: PlanData, budget: float, rng, beta: float, level: float, pairs: np.ndarray,
                 truth: np.ndarray, tally: Tally, fallbacks: dict, design: ActiveDesign | None,
                 refit_rng: np.random.Generator, shrunk: Tally, anchor_rng: np.random.Generator) -> int:
    """One active plan at the item-level plan's judgments (in expectation): a first wave of each
    response's own uniform sample of FIRST_WAVE of its nuggets, the model cross-fitted on it, then
    `design.waves` - 1 waves sharing the rest of the judgments, each drawn from the items not yet
    judged with probabilities proportional to the uncertainty of the model known before it (at least
    FLOOR of the wave's uniform rate); with `design.refit`, the model refitted after each wave on every
    judgment so far (`_refit`, its folds from `refit_rng`). The waves' estimates are combined
    (`active_waves`); the figures added to `tally`, and to `shrunk` those of the same estimates shrunk
    across the runs toward the model's own (`shrinkage.shrink_plan`; the runs' folds for the model's
    own estimates from `anchor_rng`). Returns the judgments it took."""
    design = design or ActiveDesign()
    sizes = [_size(budget, t) for t in data.topics]
    firsts = [min(k, max(2, round(design.first * k))) for k in sizes]
    runs = len(data.run_ids)
    samples = _uniform_samples(rng, runs, data.topics, firsts)
    labelled = ~np.isnan(data.fitter.pairs.labels)
    known = _judged_cells(data, samples)[data.cell] & labelled       # per pair: judged in a wave so far
    groups = unit_folds(data.cell, known, rng)                        # per judged pair: its fold (reuse groups)
    topics = _learned(data, known, groups, "active", fallbacks)
    drawn = [np.zeros(t.human.shape, bool) for t in topics]
    for t, sample, d in zip(topics, samples, drawn):
        rows = np.flatnonzero(t.answered)
        d[rows[:, None], sample[rows, 0, :]] = True
    waves = [first_wave_totals(topics, [d.copy() for d in drawn], beta, float(item_lambda(topics, samples)[0]))]
    rest = sum((k - k1) * int(t.answered.sum()) for k, k1, t in zip(sizes, firsts, data.topics))
    for wave in range(1, design.waves if rest > 0 else 1):
        expected = rest / (design.waves - 1)
        open_ = [t.answered[:, None] & ~d for t, d in zip(topics, drawn)]   # the items this wave may draw
        weight = np.concatenate([item_uncertainty(t, d, beta)[o] for t, d, o in zip(topics, drawn, open_)])
        chances = inclusion_probabilities(weight, expected, FLOOR * expected / len(weight))
        chosen = draw(chances, rng)
        pi = [np.ones(t.human.shape) for t in topics]
        before = [d.copy() for d in drawn]
        start = 0
        for o, p, d in zip(open_, pi, drawn):
            n = int(o.sum())
            p[o], d[o] = chances[start:start + n], chosen[start:start + n]
            start += n
        if design.refit:
            topics, known, groups = _refit(data, topics, before, open_, drawn, known, groups, wave, refit_rng,
                                           fallbacks)
        waves.append(second_wave_totals(topics, pi, drawn, beta, second_wave_lambda(topics, pi, drawn)))
    weights = wave_weights(waves)
    T = len(topics)
    means = waves_interval(waves, weights, T, level)
    between = waves_interval([w.differences(pairs) for w in waves], weights, T, level) if len(pairs) else None
    _add_plan(tally, means, between, truth, pairs)
    tally.correlations.append(item_correlation(topics))
    tally.difference_correlations.append(tally.correlations[-1])
    model = _held_out_estimates(data, known, anchor_rng, beta) if runs >= MIN_UNITS else None
    if model is None:   # too few runs to shrink, or judgments to hold runs out: the estimates as they are
        fallbacks["shrunk"] += 1
        _add_plan(shrunk, means, between, truth, pairs)
    else:
        runs_shrunk, between_shrunk = shrink_plan(*means, model, pairs, level)
        _add_plan(shrunk, (runs_shrunk.estimate, runs_shrunk.half),
                  None if between_shrunk is None else (between_shrunk.estimate, between_shrunk.half), truth, pairs)
    shrunk.correlations.append(tally.correlations[-1])
    shrunk.difference_correlations.append(tally.correlations[-1])
    return int(sum(d[t.answered].sum() for d, t in zip(drawn, topics)))


def _add_plan(tally: Tally, means: tuple[np.ndarray, np.ndarray], between: tuple[np.ndarray, np.ndarray] | None,
              truth: np.ndarray, pairs: np.ndarray) -> None:
    """A plan's (estimates, half-widths) of the run means and, with pairs, of their differences."""
    tally.add("means", *means, truth)
    if between is not None:
        tally.add("differences", *between, truth[pairs[:, 0]] - truth[pairs[:, 1]])


def _held_out_estimates(data: PlanData, judged: np.ndarray, rng: np.random.Generator, beta: float) -> np.ndarray | None:
    """Each run's mean F from the predictions of models that never saw its judgments (the runs dealt
    into folds by `rng`); None when the judged pairs cannot train them."""
    try:
        held_out = data.fitter.predict_held_out(judged, run_folds(data.fitter.pairs.keys, rng))
    except CrossFitError:
        return None
    return topic_f(data.with_predictions(held_out), beta).mean(axis=1)


def _refit(data: PlanData, topics: list[TopicItems], before: list[np.ndarray], open_: list[np.ndarray],
           drawn: list[np.ndarray], known: np.ndarray, groups: np.ndarray, wave: int, rng,
           fallbacks: dict) -> tuple[list[TopicItems], np.ndarray, np.ndarray]:
    """After a wave is judged: (the topics with the refitted model's predictions for the wave's
    candidates, the earlier items keeping theirs; the judged pairs; their reuse groups). The candidates'
    folds are dealt over all of them before looking at the draw, so a candidate's prediction never
    depends on its own inclusion nor its judgment (`CrossFitter.predict_after`): given the earlier
    waves, E[f_i I_i] = E[f_i] pi_i and the wave's estimate stays unbiased. The earlier predictions
    where the refit fails (`fallbacks`)."""
    candidate = _cell_mask(data, open_)[data.cell]
    folds = unit_folds(data.cell, candidate, rng)
    judged = _cell_mask(data, drawn)[data.cell] & candidate & ~np.isnan(data.fitter.pairs.labels)
    after = known | judged, np.where(judged, folds + FOLDS * wave, groups)
    try:
        predictions = data.fitter.predict_after(known, groups, judged, folds, "refit")
    except CrossFitError:
        fallbacks["active"] += 1
        return topics, *after
    return refitted_candidates(topics, data.with_predictions(predictions), before), *after


def _cell_mask(data: PlanData, masks: list[np.ndarray]) -> np.ndarray:
    """A bool per cell from the topics' runs x K masks."""
    return np.concatenate([m.ravel() for m in masks])


def _size(budget: float, topic: TopicItems) -> int:
    return min(len(topic.weights), max(2, round(budget / 100 * len(topic.weights))))


def _uniform_samples(rng, runs: int, topics: list[TopicItems], sizes: list[int]) -> list[np.ndarray]:
    """Per topic, runs x 1 x k: each response's own uniform sample of k of the topic's nuggets."""
    return [np.argsort(rng.random((runs, 1, len(t.weights))), axis=2)[:, :, :k] for t, k in zip(topics, sizes)]


def _judged_cells(data: PlanData, samples: list[np.ndarray]) -> np.ndarray:
    """A bool per cell: the plan judges it (a sampled nugget of a run that answers the topic)."""
    judged = np.zeros(data.cell_count, bool)
    for topic, offset, sample in zip(data.topics, data.offsets, samples):
        K = len(topic.weights)
        rows = np.flatnonzero(topic.answered)
        judged[offset + rows[:, None] * K + sample[rows, 0, :]] = True
    return judged


def _topic_plan(tally: Tally, human_f: np.ndarray, automatic: np.ndarray, chosen: np.ndarray, truth: np.ndarray,
                pairs: np.ndarray, level: float) -> None:
    """PPI++ (one lambda for the runs, one for the pairs) on one topic-level plan."""
    population = human_f.shape[1]
    estimate, half, _ = ppi_arrays(human_f[:, None, chosen], automatic[:, None, chosen],
                                   automatic.mean(axis=1)[:, None], population, level, shared=True)
    tally.add("means", estimate[:, 0], half[:, 0], truth)
    if len(pairs):
        a, b = pairs[:, 0], pairs[:, 1]
        d_human, d_auto = human_f[a] - human_f[b], automatic[a] - automatic[b]
        estimate, half, _ = ppi_arrays(d_human[:, None, chosen], d_auto[:, None, chosen],
                                       d_auto.mean(axis=1)[:, None], population, level, shared=True)
        tally.add("differences", estimate[:, 0], half[:, 0], truth[a] - truth[b])


def learned_budget_report(gold, runs, judgments, budgets, trials: int, seed: int, level: float = 0.95,
                          beta: float = 3.0, extra=None, advance: Callable[[], None] | None = None,
                          design: ActiveDesign | None = None, **settings) -> dict:
    """{"settings", "language_pairs": [{"language_pair", "runs", "topics", "plans": [...]}]}: the
    plans of `simulate_plans` for every language pair, from fully judged runs; `extra` (a function
    of the pairs giving feature columns) adds an automatic assessor's values to the model's features."""
    from sepia.metaeval.items import item_scores
    from sepia.matchers.learned.pairs import build_pairs

    items = item_scores(gold, runs, judgments, "binarized", beta=beta, **settings)
    by_id = {r.run_id: r for r in runs}
    groups = []
    for pair, (run_ids, topics) in items.items():
        pairs = build_pairs(gold, [by_id[r] for r in run_ids], judgments)
        data = PlanData.build(run_ids, topics, pairs, None if extra is None else extra(pairs))
        groups.append({"language_pair": pair, "runs": len(run_ids), "topics": len(topics),
                       "plans": simulate_plans(data, budgets, trials, seed, level, beta, advance, design)})
    return {"settings": {"budgets": list(budgets), "trials": trials, "seed": seed, "level": level,
                         "waves": (design or ActiveDesign()).waves},
            "language_pairs": groups}


def assessor_column(matcher, gold, runs) -> Callable[[Pairs], np.ndarray]:
    """A feature for the learned model from an automatic assessor (a matcher object: a plug-in, an
    --auto-judgments file): a function of the pairs giving the assessor's value of each (answer,
    nugget) pair, the answer scored alone."""
    from sepia.matchers.base import JudgedMatcher

    nuggets = {t.topic_id: t.nuggets for t in gold.topics}
    answers = {(r.run_id, t.topic_id, a.rank): a for r in runs for t in r.topics for a in t.answers}

    def column(pairs: Pairs) -> np.ndarray:
        values: dict[tuple, dict[str, float]] = {}
        out = []
        for run, topic, rank, nugget in pairs.keys:
            if (run, topic, rank) not in values:
                scored = matcher.scores(run, topic, nuggets[topic], [answers[run, topic, rank]]) or [0.0] * len(
                    nuggets[topic])
                scored = matcher.credit(scored) if isinstance(matcher, JudgedMatcher) else scored
                values[run, topic, rank] = {n.nugget_id: float(v) for n, v in zip(nuggets[topic], scored)}
            out.append(values[run, topic, rank][nugget])
        return np.array(out, float)

    return column
