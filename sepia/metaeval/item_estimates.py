"""Estimates of CCLQA runs' human F3 from an item-level judging plan (`sepia evaluate --store --plan`
and the web tool's estimates, through `sepia.services.plan_estimates`): every topic's automatic
scores corrected by the human judgments of its planned nuggets (`sepia.metaeval.items`), in the report shape of
`sepia.metaeval.calibrate`, so the same tables, TSV, JSON and web page show them."""
from __future__ import annotations

from dataclasses import fields
from itertools import combinations

import numpy as np

from sepia.metaeval.calibrate import DIFFERENCE_RANGE, MEAN_RANGE, shown
from sepia.metaeval.items import TopicItems, f_from_sums, item_lambda, item_scores, plan_sums
from sepia.metaeval.ppi import Estimate


def item_plan_estimates(topics: list[TopicItems], planned: dict[str, set[str]], level: float, beta: float,
                        run_ids: list[str], tuned: bool = False) -> dict:
    """One language pair's group of the `calibrate` report from its topics' items and the planned
    nugget labels per topic: per run the estimate of its mean F over the topics with the item-level
    jackknife interval (Satterthwaite's degrees of freedom), per pair of runs (ranked by estimate)
    the difference."""
    samples = [np.array([[i for i, label in enumerate(t.labels) if label in planned.get(t.topic_id, ())]])
               for t in topics]
    sizes = [s.shape[1] for s in samples]
    short = next((t.topic_id for t, k in zip(topics, sizes) if k < 1), None)
    if short:
        raise ValueError(f"topic {short} has no planned nugget")
    T = len(topics)
    automatic = np.asarray(sum(f_from_sums(t.automatic @ t.weights, t.automatic.sum(axis=1), t, beta)
                               for t in topics) / T)
    lam = float(item_lambda(topics, samples)[0]) if tuned else 1.0
    (estimate, half), _ = plan_sums(topics, samples, beta, level, lam=lam)
    order = sorted(range(len(run_ids)), key=lambda i: (-estimate[i, 0], run_ids[i]))
    pairs = np.array(list(combinations(order, 2)), dtype=int).reshape(-1, 2)
    difference = plan_sums(topics, samples, beta, level, pairs, lam)[1] if len(pairs) else None
    estimates = _estimates(estimate[:, 0], half[:, 0], automatic, T, lam)
    rows = [{"run_id": run_ids[i], **shown(estimates[i], MEAN_RANGE)} for i in order]
    differences = []
    if difference is not None:
        d_automatic = automatic[pairs[:, 0]] - automatic[pairs[:, 1]]
        for (a, b), d in zip(pairs, _estimates(difference[0][:, 0], difference[1][:, 0], d_automatic, T, lam)):
            differences.append({"a": run_ids[a], "b": run_ids[b], **shown(d, DIFFERENCE_RANGE),
                                "decided": bool(d.low > 0 or d.high < 0)})
    complete = all(k == len(t.weights) for k, t in zip(sizes, topics))
    return {"topics": T, "judged": T, "judged_topics": [t.topic_id for t in topics], "complete": complete,
            "judged_nuggets": int(sum(sizes)), "nuggets": int(sum(len(t.weights) for t in topics)), "runs": rows,
            "pairs": differences}


def _estimates(estimate, half, automatic, topics: int, lam: float) -> list[Estimate]:
    """lambda is 1 (plain PPI on each topic's two sums) or the plan's power-tuned one."""
    return [Estimate(float(e), float(e - h), float(e + h), lam, topics, topics, float(a))
            for e, h, a in zip(estimate, half, automatic)]


def estimate_items(gold, runs, judgments, settings, planned: dict[str, set[str]], level: float,
                   matcher=None, tuned: bool = False) -> dict:
    """The `calibrate` report of an item-level plan; `matcher` an object in place of settings.matcher
    (a learned matcher that has seen the runs); `tuned`: a power-tuned lambda (`item_lambda`) instead
    of 1, for a predictor that may be worse than none (one trained on the plan's own judgments)."""
    options = {f.name: getattr(settings, f.name) for f in fields(settings) if f.name != "matcher"}
    scores = item_scores(gold, runs, judgments, matcher or settings.matcher, **options)
    groups = []
    for pair, (run_ids, topics) in scores.items():
        topics = [t for t in topics if t.topic_id in planned]
        if topics:
            groups.append({"language_pair": pair, **item_plan_estimates(topics, planned, level, settings.beta,
                                                                         run_ids, tuned)})
    return {"level": level, "unit": "items", "language_pairs": groups}

