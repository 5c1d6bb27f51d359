"""The item estimators against a direct computation on hand-made cases: each response's own uniform
sample of its topic's nuggets (the stored plan's estimate and the simulation's `plan_sums` agree with
plain loops over the textbook formulas); an active plan's two waves (the stored plan's estimate is
the simulation's `active_estimates`, tested by hand in tests/test_active_estimates.py), and its
coverage by simulation at a small scale."""
import numpy as np
import pytest
from scipy import stats

from sepia.metaeval.item_estimates import Drawn, item_plan_estimates
from sepia.metaeval.items import TopicItems, plan_sums

BETA, LEVEL = 3.0, 0.9
RUNS = ["A", "B", "C"]


def f3(r: float, a: float, topic: TopicItems, run: int) -> float:
    """F3 of a run on a topic from the sums r = sum w m and a = sum m, written out."""
    if not topic.answered[run]:
        return 0.0
    recall = min(max(r / topic.weights.sum(), 0.0), 1.0)
    allowed = topic.allowance * max(a, 0.0)
    length = topic.lengths[run]
    precision = 1.0 if length <= allowed else allowed / length
    return 0.0 if 9 * precision + recall == 0 else 10 * precision * recall / (9 * precision + recall)


def _topics():
    rng = np.random.default_rng(11)
    topics = []
    for i, K in enumerate((5, 4)):
        human = rng.choice([0.0, 0.5, 1.0], (3, K))
        automatic = np.where(rng.random((3, K)) < 0.6, human, rng.random((3, K)).round(2))
        topics.append(TopicItems(f"T{i}", rng.choice([1.0, 2.0], K), 12.0, np.array([50.0, 30.0, 0.0]),
                                 np.array([True, True, False]), human, automatic, tuple(f"N{j}" for j in range(K))))
    return topics


SAMPLES = {"T0": {"A": [0, 2, 3], "B": [1, 3, 4]}, "T1": {"A": [1, 2], "B": [0, 3]}}   # C answers neither


def _by_hand(topic: TopicItems, run: int, sample: list[int]) -> tuple[float, float]:
    """(F estimate, jackknife variance) of a response's own uniform sample of k of the K nuggets."""
    K, k = len(topic.weights), len(sample)
    y, f, w = topic.human[run], topic.automatic[run], topic.weights

    def sums(kept, scale):
        r = sum(w[n] * f[n] for n in range(K)) + scale * sum(w[n] * (y[n] - f[n]) for n in kept)
        a = sum(f[n] for n in range(K)) + scale * sum(y[n] - f[n] for n in kept)
        return f3(r, a, topic, run)

    estimate = sums(sample, K / k)
    drops = [sums([n for n in sample if n != j], K / (k - 1)) for j in sample]
    mean = sum(drops) / k
    return estimate, (1 - k / K) * (k - 1) / k * sum((d - mean) ** 2 for d in drops)


def _interval(parts: list[tuple[float, float, int]], T: int) -> tuple[float, float, float]:
    """(estimate, low, high) of a mean over T topics from (estimate, variance, k) parts."""
    estimate = sum(e for e, _, _ in parts) / T
    variance = sum(v for _, v, _ in parts)
    df = variance ** 2 / sum(v ** 2 / (k - 1) for _, v, k in parts) if variance else 1.0
    half = stats.t.ppf((1 + LEVEL) / 2, max(df, 1.0)) * variance ** 0.5 / T
    return estimate, estimate - half, estimate + half


def test_a_responses_sums_by_hand():
    # K = 4 nuggets of weight 1, the response's sample {N0, N1}: y = 1, 0 there, f = 1, 1, 0, 1:
    # r = sum f + 4/2 ((1 - 1) + (0 - 1)) = 3 - 2 = 1, so recall 1/4; a = 1 too, and with an allowance
    # of 10 characters and a 10-character response, precision 1: F3 = 10 x 0.25 / (9 + 0.25) = 0.27027
    topic = TopicItems("T", np.ones(4), 10.0, np.array([10.0]), np.array([True]), np.array([[1.0, 0, 1, 1]]),
                       np.array([[1.0, 1, 0, 1]]), ("N0", "N1", "N2", "N3"))
    assert _by_hand(topic, 0, [0, 1])[0] == pytest.approx(10 * 0.25 / 9.25)
    group = item_plan_estimates([topic], {"T": {"A": {"N0": Drawn(0, 0.5), "N1": Drawn(0, 0.5)}}}, LEVEL, BETA, ["A"])
    assert group["runs"][0]["estimate"] == pytest.approx(10 * 0.25 / 9.25)


def test_a_topic_no_run_answers_scores_0_for_every_run():
    # a plan draws nothing for a topic no pooled run answers; a run answering a topic without a sample is refused
    topic = _topics()[1]
    silent = TopicItems("T9", topic.weights, topic.allowance, topic.lengths, np.zeros(3, bool), topic.human * 0,
                        topic.automatic * 0, topic.labels)
    planned = {"T9": {}, "T1": {r: {topic.labels[n]: Drawn(0, 0.5) for n in ns} for r, ns in SAMPLES["T1"].items()}}
    alone = item_plan_estimates([topic], {"T1": planned["T1"]}, LEVEL, BETA, RUNS)
    both = item_plan_estimates([topic, silent], planned, LEVEL, BETA, RUNS)     # T9: nothing planned, nobody answers
    for one, two in zip(alone["runs"], both["runs"]):      # the mean over two topics, one of them 0
        assert two["estimate"] == pytest.approx(one["estimate"] / 2)
        assert two["raw_high"] - two["raw_low"] == pytest.approx((one["raw_high"] - one["raw_low"]) / 2)
    with pytest.raises(ValueError, match="run C answers topic T1 but the plan has no nuggets for its response"):
        item_plan_estimates([TopicItems(**{**topic.__dict__, "answered": np.ones(3, bool)})], planned, LEVEL, BETA, RUNS)


def test_each_responses_own_sample_by_hand_in_the_store_and_the_simulation():
    topics = _topics()
    planned = {t.topic_id: {r: {t.labels[n]: Drawn(0, len(ns) / len(t.weights)) for n in ns}
                            for r, ns in SAMPLES[t.topic_id].items()} for t in topics}
    group = item_plan_estimates(topics, planned, LEVEL, BETA, RUNS)
    parts = {(r, t.topic_id): (*_by_hand(t, i, SAMPLES[t.topic_id][r]), len(SAMPLES[t.topic_id][r]))
             for t in topics for i, r in enumerate("AB")}
    rows = {row["run_id"]: row for row in group["runs"]}
    expected = {r: _interval([parts[r, t.topic_id] for t in topics], 2) for r in "AB"}
    for r in "AB":
        assert (rows[r]["estimate"], rows[r]["raw_low"], rows[r]["raw_high"]) == pytest.approx(expected[r])
    assert rows["C"]["estimate"] == rows["C"]["raw_low"] == rows["C"]["raw_high"] == 0
    # a difference: the two responses' samples are independent, their variances add
    (a_b,) = [p for p in group["pairs"] if {p["a"], p["b"]} == {"A", "B"}]
    sign = 1 if a_b["a"] == "A" else -1
    diff = [(sign * (parts["A", t.topic_id][0] - parts["B", t.topic_id][0]), parts["A", t.topic_id][1], 3 - i)
            for i, t in enumerate(topics)] + [(0.0, parts["B", t.topic_id][1], 3 - i) for i, t in enumerate(topics)]
    assert (a_b["estimate"], a_b["raw_low"], a_b["raw_high"]) == pytest.approx(_interval(diff, 2))
    assert (group["judged_items"], group["items_total"], group["waves"]) == (10, 18, 1)
    # the simulation (`learned_plans`): each run's own sample, runs x trials x k
    samples = [np.array([SAMPLES[t.topic_id].get(r, list(range(len(SAMPLES[t.topic_id]["A"])))) for r in RUNS])[:, None, :]
               for t in topics]
    (estimate, half), _ = plan_sums(topics, samples, BETA, LEVEL)
    for i, r in enumerate("AB"):
        assert (estimate[i, 0], estimate[i, 0] - half[i, 0], estimate[i, 0] + half[i, 0]) == pytest.approx(expected[r])


def test_an_active_plans_estimate_is_the_simulations():
    # wave 0: SAMPLES; wave 1 drew, for A, N1 (pi .4) and N4 (pi .8) on T0 and N3 (pi .5) on T1; for B, N2 (pi .25)
    # on T0. The store's estimate is `active_estimates`' combination, called here on masks written out.
    from sepia.metaeval.active_estimates import first_wave_totals, second_wave_lambda, second_wave_totals
    from sepia.metaeval.active_waves import waves_interval
    from sepia.metaeval.items import item_lambda

    topics = _topics()
    wave1 = {("A", "T0"): {1: 0.4, 4: 0.8}, ("A", "T1"): {3: 0.5}, ("B", "T0"): {2: 0.25}}
    planned = {t.topic_id: {r: {**{t.labels[n]: Drawn(0, 0.5) for n in ns},
                                **{t.labels[n]: Drawn(1, p) for n, p in wave1.get((r, t.topic_id), {}).items()}}
                            for r, ns in SAMPLES[t.topic_id].items()} for t in topics}
    first, pi, drawn = [], [], []
    for t in topics:
        f, p = np.zeros((3, len(t.weights)), bool), np.ones((3, len(t.weights)))
        for i, r in enumerate("AB"):
            f[i, SAMPLES[t.topic_id][r]] = True
            for n, q in wave1.get((r, t.topic_id), {}).items():
                p[i, n] = q
        first.append(f)
        pi.append(p)
        drawn.append(f | (p < 1))
    samples = [np.array([SAMPLES[t.topic_id][r] for r in "AB"] + [list(range(len(SAMPLES[t.topic_id]["A"])))])[:, None, :]
               for t in topics]
    for tuned in (False, True):
        lam1 = float(item_lambda(topics, samples)[0]) if tuned else 1.0
        lam2 = second_wave_lambda(topics, pi, drawn) if tuned else 1.0
        one, two = first_wave_totals(topics, first, BETA, lam1), second_wave_totals(topics, pi, drawn, BETA, lam2)
        v1, v2 = one.variance.sum(), two.variance.sum()
        w = v2 / (v1 + v2)                                   # the waves' weights by hand
        estimate, half = waves_interval([one, two], np.array([w, 1 - w]), 2, LEVEL)
        group = item_plan_estimates(topics, planned, LEVEL, BETA, RUNS, tuned)
        rows = {row["run_id"]: row for row in group["runs"]}
        for i, r in enumerate(RUNS):
            assert (rows[r]["estimate"], rows[r]["raw_low"], rows[r]["raw_high"]) == pytest.approx(
                (estimate[i], estimate[i] - half[i], estimate[i] + half[i]))
            assert rows[r]["lambda"] == pytest.approx(lam2)
        (a_b,) = [p for p in group["pairs"] if {p["a"], p["b"]} == {"A", "B"}]
        d_estimate, d_half = waves_interval([one.differences(np.array([[0, 1]])), two.differences(np.array([[0, 1]]))],
                                            np.array([w, 1 - w]), 2, LEVEL)
        sign = 1 if a_b["a"] == "A" else -1
        assert (a_b["estimate"], a_b["raw_high"] - a_b["raw_low"]) == pytest.approx((sign * d_estimate[0], 2 * d_half[0]))
        assert (group["judged_items"], group["waves"], group["first_wave_weight"]) == (14, 2, pytest.approx(w))
    third = {t: {r: {**d, "N0": Drawn(2, 0.5)} for r, d in sample.items()} for t, sample in planned.items()}
    with pytest.raises(ValueError, match="an active plan has two waves"):
        item_plan_estimates(topics, third, LEVEL, BETA, RUNS)


def test_plans_in_waves_cover_the_human_mean_by_simulation():
    # A synthetic campaign of 6 runs x 10 topics x 8 nuggets; per trial each response's own uniform 3
    # nuggets (wave 0), then a wave drawn among the rest with active's probabilities from the automatic
    # values (a fixed predictor), 12 pairs expected per topic. The 90% intervals of the run means cover
    # the human means in about 90% of the cases, and the estimates are unbiased.
    from sepia.metaeval.active import draw, inclusion_probabilities, uncertainty_of
    from sepia.metaeval.items import f_from_sums

    rng = np.random.default_rng(5)
    runs, K = [f"R{i}" for i in range(6)], 8
    topics = []
    for t in range(10):
        human = (rng.random((6, K)) < rng.uniform(0.2, 0.7, (6, 1))).astype(float)
        automatic = np.clip(human * 0.6 + rng.normal(0.2, 0.25, (6, K)), 0, 1).round(2)
        topics.append(TopicItems(f"T{t}", rng.choice([1.0, 2.0], K), 20.0, rng.uniform(20, 90, 6), np.ones(6, bool),
                                 human, automatic, tuple(f"N{j}" for j in range(K))))
    truth = np.mean([f_from_sums(t.human @ t.weights, t.human.sum(axis=1), t, BETA) for t in topics], axis=0)
    covered = errors = cells = 0
    for _ in range(150):
        planned = {}
        for topic in topics:
            first = np.argsort(rng.random((6, K)), axis=1)[:, :3]
            rest = [(r, n) for r in range(6) for n in range(K) if n not in first[r]]
            u = uncertainty_of(np.array([topic.automatic[r, n] for r, n in rest]))
            pi = inclusion_probabilities(u, 12, 0.2 * 12 / len(rest))
            sample = {runs[r]: {topic.labels[n]: Drawn(0, 3 / K) for n in first[r]} for r in range(6)}
            for (r, n), p, hit in zip(rest, pi, draw(pi, rng)):
                if hit:
                    sample[runs[r]][topic.labels[n]] = Drawn(1, float(p))
            planned[topic.topic_id] = sample
        rows = {row["run_id"]: row for row in item_plan_estimates(topics, planned, LEVEL, BETA, runs)["runs"]}
        for i, r in enumerate(runs):
            covered += rows[r]["raw_low"] - 1e-12 <= truth[i] <= rows[r]["raw_high"] + 1e-12
            errors += rows[r]["estimate"] - truth[i]
            cells += 1
    assert 0.84 <= covered / cells <= 0.97
    assert abs(errors / cells) < 0.01
