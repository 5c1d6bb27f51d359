"""The item estimator of a plan drawn in waves (active statistical inference, Zrnic and Candès, ICML
2024): wave 0 judges each response's own uniform sample of its topic's nuggets; each later wave draws
(response, nugget) pairs not judged before, each independently with its own inclusion probability pi
given the waves before (`sepia.metaeval.active`: higher where the model is unsure, never below a
floor).

Given every wave but the last, the pairs they judged are known exactly, and the last wave's draw is a
Poisson sample of the others. For a response's two sums S_g (g = the nugget weights, or 1; see
`sepia.metaeval.items`) the estimate

    S_g = sum over earlier pairs of g y + sum over the others of g lam f + sum over the last wave of g (y - lam f) / pi

is unbiased given the earlier waves, whatever they were, hence unbiased (the predictor f must not
depend on the last wave's judgments: BINARIZED, or a model fixed before it). Its variance is the
variance given the earlier waves, estimated by the delete-one replicates over the last wave,
sum_i (1 - pi_i) (F_-i - F)^2, which for a linear statistic is the Horvitz-Thompson variance
estimator of Poisson sampling, sum_i (1 - pi_i) z_i^2 / pi_i^2. Responses are drawn independently, so a
run's mean over the topics adds the topics' variances (t interval with Satterthwaite's degrees of
freedom, each response counting its last wave's pairs - 1) and a difference of two runs adds the
two runs' variances.
"""
from __future__ import annotations

import numpy as np

from sepia.metaeval.items import TopicItems, f_from_sums, satterthwaite_half


def wave_topic(topic: TopicItems, earlier: np.ndarray, probability: np.ndarray, beta: float,
               lam: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(F estimate per run, its variance, the last wave's pairs per run) of one topic. `earlier`
    (runs x K, bool) marks the pairs judged in the waves before the last; `probability` (runs x K)
    each last-wave pair's inclusion probability, 0 where the last wave did not draw the pair."""
    drawn = probability > 0
    weight = np.divide(1.0, probability, out=np.zeros_like(probability), where=drawn)
    sums, drops = [], []
    for g in (topic.weights, np.ones(len(topic.weights))):
        known = np.where(earlier, topic.human, lam * topic.automatic) @ g
        correction = g * drawn * (topic.human - lam * topic.automatic) * weight     # runs x K
        total = known + correction.sum(axis=1)
        sums.append(total)
        drops.append(total[:, None] - correction)
    estimate = f_from_sums(sums[0], sums[1], topic, beta)
    replicates = f_from_sums(drops[0], drops[1], topic, beta)
    variance = ((1 - probability) * drawn * (replicates - estimate[:, None]) ** 2).sum(axis=1)
    return estimate, variance, drawn.sum(axis=1)


def wave_sums(topics: list[TopicItems], earlier: list[np.ndarray], probability: list[np.ndarray], beta: float,
              level: float, pairs: np.ndarray | None = None, lam: float = 1.0
              ) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray] | None]:
    """`sepia.metaeval.items.plan_sums` for a plan drawn in waves (one trial: runs x 1 arrays): the
    (estimates, half-widths) of the run means over the topics and of the differences of `pairs`."""
    runs, T = len(topics[0].lengths), len(topics)
    pairs = np.zeros((0, 2), int) if pairs is None else pairs
    means = np.zeros((3, runs))            # estimate, variance, sum of variance^2 / df
    for topic, known, pi in zip(topics, earlier, probability):
        estimate, variance, drawn = wave_topic(topic, known, pi, beta, lam)
        means += [estimate, variance, variance ** 2 / np.maximum(drawn - 1, 1)]
    a, b = pairs[:, 0], pairs[:, 1]
    differences = np.array([means[0, a] - means[0, b], means[1, a] + means[1, b], means[2, a] + means[2, b]])
    halves = [(e[:, None] / T, satterthwaite_half(v, spread, level)[:, None] / T) for e, v, spread in (means, differences)]
    return halves[0], halves[1] if len(pairs) else None


def wave_lambda(topics: list[TopicItems], judged: list[np.ndarray]) -> float:
    """Power tuning as `sepia.metaeval.items.item_lambda`, over every judged pair of each response
    (the judged pairs' covariance of human and automatic values over the automatic values' variance,
    within each response, summed), clipped to [0, 1]."""
    covariance = variance = 0.0
    for topic, mask in zip(topics, judged):
        count = np.maximum(mask.sum(axis=1, keepdims=True), 1)
        centred = np.where(mask, topic.automatic - (topic.automatic * mask).sum(axis=1, keepdims=True) / count, 0)
        covariance += float((centred * topic.human).sum())
        variance += float((centred * topic.automatic).sum())
    return float(np.clip(covariance / variance, 0, 1)) if variance > 1e-12 else 0.0
