"""Item-level judging plans: in every topic, humans judge a random sample of the nuggets (for every
run: the item is a run's answers against one nugget), instead of every nugget of a sample of topics.

A topic's F3 depends on the match values m(n) only through two sums, r = sum w(n) m(n) and
a = sum m(n). With the automatic values f(n) of every nugget and the human ones y(n) of the k sampled
out of K, each sum is estimated by the difference estimator (PPI with lambda = 1):

    S_g = sum over all K of g(n) f(n) + K/k * sum over the sample of g(n) (y(n) - f(n)),   g = w or 1,

unbiased for the human sum whatever the matcher. F3 is computed from the estimated sums (recall
clipped to [0, 1], a to at least 0): a plug-in, so slightly biased where F3 bends. Its variance is
the jackknife's over the sampled nuggets, (1 - k/K) (k - 1)/k sum_i (F_{-i} - mean)^2, the nuggets
being sampled independently in each topic; a run's mean over T topics has the variance
sum_t var_t / T^2 and the interval t(df) with Satterthwaite's df (`satterthwaite_half`). When the
same nuggets are sampled for every run of a topic, a difference of two runs is jackknifed with the
same deletions; when each run has its own sample (`sepia.metaeval.learned_plans`), the two runs are
independent and their variances add. With lambda < 1 (`item_lambda`, power tuning) the automatic
values are scaled by lambda in both sums.

The data (`item_scores`) come from the scorer's own pieces, so that judging every nugget gives the
human F3 exactly (the tests check it); this is the one place that calls the matchers per nugget.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from sepia import vocab
from sepia.matchers.base import JudgedMatcher
from sepia.scoring.depth import at_depth
from sepia.text.tokenize import char_length


@dataclass
class TopicItems:
    topic_id: str
    weights: np.ndarray      # K nugget weights
    allowance: float         # C: characters allowed per match
    lengths: np.ndarray      # runs: L, characters of the run's responses
    answered: np.ndarray     # runs: the run has responses for the topic (else F = 0)
    human: np.ndarray        # runs x K: human match values (partial support as credited)
    automatic: np.ndarray    # runs x K: the matcher's values
    labels: tuple[str, ...] = ()   # the K nuggets' IDs, in the order of the columns


def item_scores(gold, runs, judgments, matcher, **settings) -> dict[str, tuple[list[str], list[TopicItems]]]:
    """Language pair -> (run IDs, per topic its items), from the human judgments and the matcher
    (a registered name or a matcher object), with the settings of `sepia evaluate`."""
    from sepia.scoring.evaluate import Evaluator, Settings

    base = Settings(**{**settings, "matcher": "human", "matcher_options": {}})
    human = Evaluator(gold, base, judgments)
    instance = None if isinstance(matcher, str) else matcher
    automatic = Evaluator(gold, Settings(**{**settings, "matcher": matcher if instance is None else instance.name}),
                          None, instance)
    groups: dict[str, list] = {}
    for run in sorted(runs, key=lambda r: r.run_id):      # the order of `budget.paired_scores`
        groups.setdefault(vocab.language_pair_of(run.run_id), []).append(at_depth(run, base.depth))
    result = {}
    for pair, members in sorted(groups.items()):
        parsed = vocab.parse_run_id(members[0].run_id)
        lang = parsed.target_lang if parsed else gold.lang
        topics = []
        for topic in human.topics_by_lang.get(lang, []):
            answers = [{t.topic_id: t.answers for t in run.topics}.get(topic.topic_id, []) for run in members]
            values = [[_values(e, run.run_id, topic, a) for run, a in zip(members, answers)] for e in (human, automatic)]
            topics.append(TopicItems(topic.topic_id, np.array(human.weights[topic.topic_id], float),
                                     human.allowance(lang, topic.answer_type),
                                     np.array([char_length("".join(x.text for x in a)) for a in answers], float),
                                     np.array([bool(a) for a in answers]), np.array(values[0], float).reshape(len(members), -1),
                                     np.array(values[1], float).reshape(len(members), -1),
                                     tuple(n.nugget_id for n in topic.nuggets)))
        if topics:
            result[pair] = ([r.run_id for r in members], topics)
    return result


def _values(evaluator, run_id: str, topic, answers) -> list[float]:
    if not answers:
        return [0.0] * len(topic.nuggets)
    values = evaluator.matcher.scores(run_id, topic.topic_id, topic.nuggets, answers) or [0.0] * len(topic.nuggets)
    matcher = evaluator.matcher
    return matcher.credit(values) if isinstance(matcher, JudgedMatcher) else list(values)


def f_from_sums(weighted, matched, topic: TopicItems, beta: float) -> np.ndarray:
    """F(beta) of the topic from r = sum w m and a = sum m (arrays of any shape whose first axis is
    the runs), as `sepia.scoring.fscore.topic_score` computes it."""
    extra = (1,) * (np.ndim(weighted) - 1)
    total = topic.weights.sum()
    recall = np.clip(weighted / total, 0, 1) if total else np.zeros_like(weighted)
    allowance = topic.allowance * np.maximum(matched, 0)
    lengths = topic.lengths.reshape(-1, *extra)
    precision = np.where(lengths <= allowance, 1.0, allowance / np.maximum(lengths, 1e-12))
    b2 = beta * beta
    denominator = b2 * precision + recall
    f = np.divide((b2 + 1) * precision * recall, denominator, out=np.zeros_like(denominator), where=denominator > 0)
    return np.where(topic.answered.reshape(-1, *extra), f, 0.0)


def estimated_sums(topic: TopicItems, samples: np.ndarray, g: np.ndarray,
                   lam: np.ndarray | float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The difference estimates of sum g(n) y(n) for samples of nugget indices, the same for every
    run (trials x k) or each run's own (runs x trials x k): runs x trials, and without each sampled
    nugget in turn (runs x trials x k, K/(k - 1) scaling). `lam` (a number, or one per trial) scales
    the automatic values: 1 is plain PPI, 0 the human-only estimate."""
    K, k = len(g), samples.shape[-1]
    lam = np.broadcast_to(np.asarray(lam, float), samples.shape[-2:-1])[:, None]   # trials x 1
    picked_human, picked_automatic = (_picked(values * g, samples) for values in (topic.human, topic.automatic))
    picked = picked_human - lam * picked_automatic                        # runs x trials x k
    total = picked.sum(axis=-1)
    full = (topic.automatic @ g)[:, None] * lam[:, 0]                     # runs x trials
    return full + K / k * total, full[..., None] + K / max(k - 1, 1) * (total[..., None] - picked)


def _picked(values: np.ndarray, samples: np.ndarray) -> np.ndarray:
    """Runs x trials x k: each run's values (runs x K) at the sampled nugget indices, the same for
    every run (trials x k) or each run's own (runs x trials x k)."""
    if samples.ndim == 3:
        return values[np.arange(len(values)).reshape(-1, 1, 1), samples]
    return values[:, samples]


def topic_estimates(topic: TopicItems, samples: np.ndarray, beta: float,
                    lam: np.ndarray | float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """F estimates (runs x trials) and their jackknife replicates (runs x trials x k) for samples of
    nugget indices (trials x k, or runs x trials x k); with k = K the estimate is the human F exactly."""
    (weighted, weighted_drop), (matched, matched_drop) = (estimated_sums(topic, samples, g, lam) for g in
                                                          (topic.weights, np.ones(len(topic.weights))))
    return f_from_sums(weighted, matched, topic, beta), f_from_sums(weighted_drop, matched_drop, topic, beta)


def item_lambda(topics: list[TopicItems], samples: list[np.ndarray]) -> np.ndarray:
    """Power tuning of the item estimator, one lambda per trial for all runs and topics: the sampled
    items' covariance of human and automatic values over the automatic values' variance, both within
    each run's sample of a topic (the strata the estimator corrects), summed, clipped to [0, 1]. It
    is fitted on thousands of items, not on the few of one topic."""
    covariance = variance = 0.0
    for topic, sample in zip(topics, samples):
        y, f = (_picked(v, sample) for v in (topic.human, topic.automatic))
        fc = f - f.mean(axis=-1, keepdims=True)
        covariance = covariance + (fc * y).sum(axis=(0, 2))
        variance = variance + (fc * f).sum(axis=(0, 2))
    return np.clip(np.divide(covariance, variance, out=np.zeros_like(variance), where=variance > 1e-12), 0, 1)


def plan_sums(topics: list[TopicItems], samples: list[np.ndarray], beta: float, level: float,
              pairs: np.ndarray | None = None, lam: np.ndarray | float = 1.0
              ) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray] | None]:
    """(estimates, half-widths) of the means over the topics, runs x trials, and of the differences
    of `pairs` (pairs x 2 row indices; None without), from each topic's samples of nugget indices
    (trials x k_t for every run, or runs x trials x k_t, each run's own): jackknife variances summed
    over the topics, with Satterthwaite's degrees of freedom (`satterthwaite_half`). Runs sampled on
    their own are independent, so a difference's variance is the sum of the two runs'; sampled
    together, it is jackknifed with the same deletions."""
    means, differences = plan_totals(topics, samples, beta, pairs, lam)
    T = len(topics)
    halves = [(e / T, satterthwaite_half(v, spread, level) / T) for e, v, spread in
              ([means] + ([differences] if differences is not None else []))]
    return halves[0], halves[1] if differences is not None else None


def plan_totals(topics: list[TopicItems], samples: list[np.ndarray], beta: float, pairs: np.ndarray | None = None,
                lam: np.ndarray | float = 1.0) -> tuple[np.ndarray, np.ndarray | None]:
    """`plan_sums`' sums over the topics before the interval: for the runs (runs x trials) and the
    pairs (None without), stacked, the sum of the topics' estimates, of their jackknife variances,
    and of their variances^2 / (k_t - 1) (Satterthwaite's denominator)."""
    runs, trials = len(topics[0].lengths), samples[0].shape[-2]
    pairs = np.zeros((0, 2), int) if pairs is None else pairs
    means = np.zeros((3, runs, trials))             # estimate, variance, sum of variance^2 / df
    differences = np.zeros((3, len(pairs), trials)) if len(pairs) else None
    for topic, sample in zip(topics, samples):
        K, k = len(topic.weights), sample.shape[-1]
        f_hat, replicates = topic_estimates(topic, sample, beta, lam)
        variance = _jackknife(replicates, k, K)
        _add_topic(means, f_hat, variance, variance ** 2, k, K)
        if differences is None:
            continue
        a, b = pairs[:, 0], pairs[:, 1]
        if sample.ndim == 3:
            _add_topic(differences, f_hat[a] - f_hat[b], variance[a] + variance[b],
                       variance[a] ** 2 + variance[b] ** 2, k, K)
        else:
            paired = _jackknife(replicates[a] - replicates[b], k, K)
            _add_topic(differences, f_hat[a] - f_hat[b], paired, paired ** 2, k, K)
    return means, differences


def _jackknife(replicates: np.ndarray, k: int, K: int) -> np.ndarray:
    """(1 - k/K) (k - 1)/k sum_i (F_-i - mean)^2 over the last axis."""
    return (1 - k / K) * (k - 1) / k * ((replicates - replicates.mean(axis=-1, keepdims=True)) ** 2).sum(axis=-1)


def _add_topic(totals: np.ndarray, f_hat: np.ndarray, variance: np.ndarray, squares: np.ndarray, k: int,
               K: int) -> None:
    """Add a topic's estimates, variance and its components' variance^2 / (k - 1) to the totals."""
    totals[0] += f_hat
    totals[1] += variance
    if k < K:
        totals[2] += squares / (k - 1)


def satterthwaite_half(variance: np.ndarray, spread: np.ndarray, level: float) -> np.ndarray:
    """t(df) * sqrt(variance) with Satterthwaite's df = (sum_t v_t)^2 / sum_t v_t^2 / (k_t - 1): a sum
    of variance estimates with k_t - 1 degrees of freedom each has about that many, fewer than
    sum_t (k_t - 1) when a few topics carry the variance (with 2-4 nuggets a topic, they do). A zero
    variance gives a zero half-width."""
    if not 0 < level < 1:
        raise ValueError(f"a confidence level must lie strictly between 0 and 1, not {level}")
    df = np.divide(variance ** 2, spread, out=np.ones_like(variance), where=spread > 0)
    return stats.t.ppf((1 + level) / 2, np.maximum(df, 1.0)) * np.sqrt(variance)


def item_plan_figures(topics: list[TopicItems], share: float, trials: int, rng, level: float, beta: float,
                      pairs: np.ndarray | None = None, chunk: int = 100) -> dict:
    """Coverage, mean width and share decided of the item-level intervals of the run means (and of the
    differences of the pairs of runs given, pairs x 2 row indices), over `trials` random plans of
    `share` of each topic's nuggets (at least 2), in chunks of trials; and the human judgments one plan
    costs (the sampled nuggets, for every run that answers the topic)."""
    runs, T = len(topics[0].lengths), len(topics)
    pairs = np.zeros((0, 2), int) if pairs is None else pairs
    sizes = [min(len(t.weights), max(2, round(share * len(t.weights)))) for t in topics]
    truth = np.asarray(sum(f_from_sums(t.human @ t.weights, t.human.sum(axis=1), t, beta) for t in topics) / T)
    totals = {"means": np.zeros(3)} | ({"differences": np.zeros(3)} if len(pairs) else {})
    for start in range(0, trials, chunk):
        n = min(chunk, trials - start)
        samples = [np.argsort(rng.random((n, len(t.weights))), axis=1)[:, :k] for t, k in zip(topics, sizes)]
        means, differences = plan_sums(topics, samples, beta, level, pairs)
        totals["means"] += _counts(*means, truth)
        if differences is not None:
            totals["differences"] += _counts(*differences, truth[pairs[:, 0]] - truth[pairs[:, 1]])
    judgments = sum(k * int(t.answered.sum()) for k, t in zip(sizes, topics))
    result: dict[str, object] = {"judgments": judgments, "correlation": item_correlation(topics)}
    for key, (covered, width, decided) in totals.items():
        cells = trials * (runs if key == "means" else len(pairs))
        result[key] = {"coverage": covered / cells, "width": width / cells, "decided": decided / cells}
    return result


def item_correlation(topics: list[TopicItems]) -> float:
    """The matcher's Pearson correlation with the human match values over a run's items (nuggets of
    every topic it answers), averaged over the runs where it is defined: the item-level plans'
    counterpart of the per-topic correlation."""
    values = []
    for run in range(len(topics[0].lengths)):
        human = np.concatenate([t.human[run] for t in topics if t.answered[run]] or [np.zeros(0)])
        automatic = np.concatenate([t.automatic[run] for t in topics if t.answered[run]] or [np.zeros(0)])
        if len(human) > 1 and human.std() > 0 and automatic.std() > 0:
            values.append(np.corrcoef(human, automatic)[0, 1])
    return float(np.mean(values)) if values else float("nan")


def _counts(estimate: np.ndarray, half: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Intervals covering the truth, the sum of their widths, and intervals excluding 0."""
    return np.array([np.sum(np.abs(estimate - truth[:, None]) <= half + 1e-12), 2 * half.sum(),
                     np.sum(np.abs(estimate) > half)], float)
