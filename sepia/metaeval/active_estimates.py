"""Estimates of the runs' mean F from an active item-level plan (active statistical inference, Zrnic
and Candes, ICML 2024): a first uniform wave (each response's own sample of its topic's nuggets), a
model trained on it, then a second wave drawing every other item (a run's answers against one
nugget) with its own probability pi (`sepia.metaeval.active`), independently (Poisson sampling).

Two estimates of each topic's F, combined:

- **first wave**: the item estimator of `sepia.metaeval.items` on the first wave alone, its
  automatic values the model's cross-fitted predictions, power-tuned lambda (`item_lambda`), and
  a variance that follows F's clips (`first_wave_variance`): the covariance of each response's two
  sums, K^2 (1 - k/K) / k times the sample covariance of (w r, r) over its k items, pushed through F
  (`sepia.metaeval.clipped_variance`; the delta method's K^2 (1 - k/K) s_z^2 / k off the clips);
- **second wave**: the inverse-probability-weighted difference estimator of each of F's two sums
  (g = the nugget weight w, or 1),

      S_g = sum over all items of g lambda f + sum over the judged items of g (y - lambda f) / pi,

  where a first-wave item has pi = 1 (given the first wave it is certainly judged) and f is the
  model trained on the first wave, or that model refitted on both waves over folds of the second
  wave's candidates dealt before its draw (`refitted_candidates`), so that no item's f depends on
  its own draw or judgment. Given the first wave this is unbiased for the human sums
  (Horvitz-Thompson), so its variance is the expectation of the conditional one.
  The two sums' covariance is estimated by sum over the judged items of (1 - pi) / pi^2 (g r)(h r)
  (r = y - lambda f, g and h = w or 1; first-wave items add nothing) and pushed through F itself,
  clips included (`second_wave_variance`, `sepia.metaeval.clipped_variance`: F's variance over the
  sums moved one standard deviation each way about the `anchor`), not through its derivatives: the
  delta method's sum (1 - pi) / pi^2 z^2, z = (dF/dS_w w + dF/dS_1) r, exceeded the estimates' mean
  squared error by half at 20% of the judgments on TREC RAG 2024, F's clips making the estimates
  vary less than their linearisation. The `anchor` is the sums of the first wave's human values and
  the model's elsewhere: at the estimate's own sums, which one item weighted 1/pi can push past F's
  clips, the variance vanishes too often (in trials on TREC RAG 2024 the intervals then covered
  89-93%, not 95%). The items' uncertainty that draws the second wave is z's standard deviation
  predicted, |dF/dS| x sqrt(f (1 - f)) (`item_uncertainty`). lambda minimises the delta method's
  variance summed over the items, clipped to [0, 1] (0 is the plain Horvitz-Thompson estimate from
  the same draws, so the model can only narrow the interval).

The first-wave estimate depends on the first wave only and the second is unbiased given it, so the
two are uncorrelated; they are combined (`sepia.metaeval.active_waves`) as w T1 + (1 - w) T2, with
w = V2 / (V1 + V2) from their variances summed over the runs (one w per plan, which also minimises
the summed variance of every difference of two runs, whose samples are independent, so that a
difference's variance is the sum of the two runs'). The interval is t(df) * sqrt(w^2 V1 +
(1 - w)^2 V2) with Satterthwaite's df over the topics and both waves (a response's second-wave
variance counting as many df as it has draws less one, at least one).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from sepia.metaeval.active import uncertainty_of
from sepia.metaeval.clipped_variance import poisson_covariance, srs_covariance, variance_through_f
from sepia.metaeval.items import TopicItems, f_from_sums

STEP = 1e-6   # relative step of the central differences of F


@dataclass(frozen=True)
class Totals:
    """Sums over the topics, per run (or per pair of runs): of the F estimates, of their variances,
    and of variance^2 / df (Satterthwaite's denominator)."""
    estimate: np.ndarray
    variance: np.ndarray
    spread: np.ndarray

    def differences(self, pairs: np.ndarray) -> Totals:
        """Row a minus row b for every pair (a, b): independent samples, so the variances add."""
        a, b = pairs[:, 0], pairs[:, 1]
        return Totals(self.estimate[a] - self.estimate[b], self.variance[a] + self.variance[b],
                      self.spread[a] + self.spread[b])


def second_wave_lambda(topics: list[TopicItems], pi: list[np.ndarray], drawn: list[np.ndarray]) -> float:
    """The lambda minimising sum over the judged items of (1 - pi) / pi^2 (y - lambda f)^2, the
    second wave's variance up to F's gradient: sum a y f / sum a f^2 with a = (1 - pi) / pi^2,
    clipped to [0, 1]; 0 where the predictions of the items drawn at random are all 0."""
    covariance = variance = 0.0
    for topic, p, d in zip(topics, pi, drawn):
        a = np.where(d, (1 - p) / p ** 2, 0.0)
        covariance += float((a * topic.human * topic.automatic).sum())
        variance += float((a * topic.automatic ** 2).sum())
    return float(np.clip(covariance / variance, 0, 1)) if variance > 1e-12 else 0.0


def influence(topic: TopicItems, values: np.ndarray, beta: float) -> np.ndarray:
    """Runs x K: how much each item's value moves its run's F, dF/dS_w w(n) + dF/dS_1, at the two sums
    of `values` (runs x K), by central differences (F is smooth in the sums but for its clips)."""
    weighted, matched = values @ topic.weights, values.sum(axis=1)
    d_weighted = _slope(lambda h: f_from_sums(weighted + h, matched, topic, beta), topic.weights.sum())
    d_matched = _slope(lambda h: f_from_sums(weighted, matched + h, topic, beta), len(topic.weights))
    return d_weighted[:, None] * topic.weights + d_matched[:, None]


def _slope(f, scale: float) -> np.ndarray:
    h = STEP * max(scale, 1.0)
    return (f(h) - f(-h)) / (2 * h)


def first_wave_totals(topics: list[TopicItems], first: list[np.ndarray], beta: float, lam: float) -> Totals:
    """Per run, over the topics: the first wave's F estimates (the item estimator: each answering
    run's k judged of its K items are a simple random sample, S_g = sum g lambda f + K/k sum over
    the sample of g (y - lambda f)), their variances through F (`first_wave_variance`), and
    variance^2 / (k - 1). `first` per topic: runs x K, the judged items (the same number k >= 2 for
    every answering run)."""
    runs = len(topics[0].lengths)
    estimate, variance, spread = np.zeros(runs), np.zeros(runs), np.zeros(runs)
    for topic, judged in zip(topics, first):
        K, k = len(topic.weights), int(judged[topic.answered].sum(axis=1).max(initial=0))
        residual = topic.human - lam * topic.automatic
        corrected = lam * topic.automatic + np.where(judged, residual * K / max(k, 1), 0.0)
        estimate += f_from_sums(corrected @ topic.weights, corrected.sum(axis=1), topic, beta)
        if k >= K or k == 0:   # every item judged, or no run answers the topic: nothing varies
            continue
        v = first_wave_variance(topic, residual, judged, beta)
        variance += v
        spread += v ** 2 / (k - 1)
    return Totals(estimate, variance, spread)


def first_wave_variance(topic: TopicItems, residual: np.ndarray, judged: np.ndarray, beta: float) -> np.ndarray:
    """Per run: the variance of the first wave's F estimate, the estimated covariance of its two sums
    (each response's simple random sample, `srs_covariance`) pushed through F with its clips about
    the `anchor` (`clipped_variance`); off the clips, the delta method's K^2 (1 - k/K) s_z^2 / k."""
    at = anchor(topic, judged)
    return variance_through_f(topic, at @ topic.weights, at.sum(axis=1), srs_covariance(topic, residual, judged), beta)


def anchor(topic: TopicItems, judged: np.ndarray) -> np.ndarray:
    """Where F is linearised: the first wave's human values, the model's elsewhere (known before the
    second wave; F at a noisy estimate's sums, often clipped, would understate the variance)."""
    return np.where(judged, topic.human, topic.automatic)


def item_uncertainty(topic: TopicItems, judged: np.ndarray, beta: float) -> np.ndarray:
    """Runs x K: the second wave's uncertainty of each item, |influence on F| x the prediction's
    residual standard deviation (`active.uncertainty_of`), the influence at the `anchor` of the
    first wave's judged items (runs x K): the optimal inclusion probabilities are proportional to
    the standard deviation of the item's term of the estimate, z = influence x (y - f)."""
    return np.abs(influence(topic, anchor(topic, judged), beta)) * uncertainty_of(topic.automatic)


def second_wave_totals(topics: list[TopicItems], pi: list[np.ndarray], drawn: list[np.ndarray], beta: float,
                       lam: float) -> Totals:
    """Per run, over the topics: the second wave's F estimates (the two sums by inverse-probability
    weighting, pi = 1 for first-wave items), their variances through F (`second_wave_variance`), and
    variance^2 / (draws at random - 1, at least 1). `pi` and `drawn` per topic: runs x K (drawn:
    judged in either wave)."""
    runs = len(topics[0].lengths)
    estimate, variance, spread = np.zeros(runs), np.zeros(runs), np.zeros(runs)
    for topic, p, d in zip(topics, pi, drawn):
        residual = topic.human - lam * topic.automatic
        corrected = lam * topic.automatic + np.where(d, residual / p, 0.0)        # runs x K
        estimate += f_from_sums(corrected @ topic.weights, corrected.sum(axis=1), topic, beta)
        v = second_wave_variance(topic, residual, p, d, beta)
        variance += v
        spread += v ** 2 / np.maximum((d & (p < 1)).sum(axis=1) - 1, 1)
    return Totals(estimate, variance, spread)


def second_wave_variance(topic: TopicItems, residual: np.ndarray, pi: np.ndarray, drawn: np.ndarray,
                         beta: float) -> np.ndarray:
    """Per run: the variance of the second wave's F estimate, the Horvitz-Thompson covariance of its two
    sums pushed through F with its clips about the `anchor` (`clipped_variance`): where the sums'
    spread stays off F's clips it is the delta method's sum (1 - pi) / pi^2 z^2, and where it reaches
    them it is smaller, as the estimates' spread is."""
    at = anchor(topic, drawn & (pi >= 1))
    return variance_through_f(topic, at @ topic.weights, at.sum(axis=1), poisson_covariance(topic, residual, pi, drawn),
                              beta)


def refitted_candidates(topics: list[TopicItems], refitted: list[TopicItems], earlier: list[np.ndarray]) -> list[TopicItems]:
    """The topics of a wave's estimate after the model is refitted on its judgments: the refitted
    predictions for the wave's candidates, the `earlier` waves' items (runs x K) keeping the values
    of `topics` (with pi = 1 their term is their human value y; the refit's predictions of them come
    from models that saw them)."""
    return [replace(t, automatic=np.where(e, t.automatic, r.automatic)) for t, r, e in zip(topics, refitted, earlier)]


