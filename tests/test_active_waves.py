"""An active plan's waves (sepia.metaeval.active_waves): the combination of k waves' estimates by
hand, the two-wave case's weight V2 / (V1 + V2) by hand, a later wave's estimate with two
earlier waves entering exactly against a direct computation, and, by simulation over Poisson draws,
that a prediction refitted on the draws of the other folds keeps a wave's estimate unbiased (and that
one refitted on its own fold's draws would not)."""
import numpy as np
import pytest

from sepia.metaeval.active import draw
from sepia.metaeval.active_estimates import Totals, second_wave_totals
from sepia.metaeval.active_waves import wave_weights, waves_interval
from sepia.metaeval.items import satterthwaite_half
from tests.test_active_estimates import (AUTOMATIC, HUMAN, WEIGHTS, _topic, f3, f_by_hand, slope,
                                         two_point_variance)


def _waves():
    return [Totals(np.array([1.0, 2.0]), np.array([0.04, 0.09]), np.array([0.0016, 0.0081])),
            Totals(np.array([1.2, 1.8]), np.array([0.02, 0.01]), np.array([0.0004, 0.0001])),
            Totals(np.array([1.1, 1.9]), np.array([0.01, 0.02]), np.array([0.0001, 0.0002]))]


def test_three_waves_combined_by_hand():
    waves = _waves()
    w = wave_weights(waves)
    inverse = np.array([1 / 0.13, 1 / 0.03, 1 / 0.03])
    assert w == pytest.approx(inverse / inverse.sum())
    estimate, half = waves_interval(waves, w, 2, 0.95)
    assert estimate[0] == pytest.approx((w[0] * 1.0 + w[1] * 1.2 + w[2] * 1.1) / 2)
    variance = np.array([w[0] ** 2 * 0.04 + w[1] ** 2 * 0.02 + w[2] ** 2 * 0.01,
                         w[0] ** 2 * 0.09 + w[1] ** 2 * 0.01 + w[2] ** 2 * 0.02])
    spread = np.array([w[0] ** 4 * 0.0016 + w[1] ** 4 * 0.0004 + w[2] ** 4 * 0.0001,
                       w[0] ** 4 * 0.0081 + w[1] ** 4 * 0.0001 + w[2] ** 4 * 0.0002])
    assert half == pytest.approx(satterthwaite_half(variance, spread, 0.95) / 2)
    assert variance.sum() < min(t.variance.sum() for t in waves)     # never wider than any wave
    assert wave_weights([waves[0], Totals(np.zeros(2), np.zeros(2), np.zeros(2))]) == pytest.approx([0, 1])


def test_two_waves_are_the_two_wave_combination():
    """w T1 + (1 - w) T2 with w = V2 / (V1 + V2), its interval t(df) sqrt(w^2 V1 + (1 - w)^2 V2): by
    hand; 1/2 each when neither wave varies."""
    first, second = _waves()[:2]
    w = 0.03 / (0.13 + 0.03)
    assert wave_weights([first, second]) == pytest.approx([w, 1 - w])
    estimate, half = waves_interval([first, second], np.array([w, 1 - w]), 2, 0.95)
    assert estimate == pytest.approx((w * first.estimate + (1 - w) * second.estimate) / 2)
    variance = w ** 2 * first.variance + (1 - w) ** 2 * second.variance
    spread = w ** 4 * first.spread + (1 - w) ** 4 * second.spread
    assert half == pytest.approx(satterthwaite_half(variance, spread, 0.95) / 2)
    still = Totals(np.ones(2), np.zeros(2), np.zeros(2))
    assert wave_weights([still, still]) == pytest.approx([0.5, 0.5])


def test_a_third_wave_takes_both_earlier_waves_exactly():
    """Wave 3's estimate: the items of waves 1 and 2 with pi = 1 (their human values), its own draws
    weighted by 1 / pi, the refitted predictions elsewhere; the variance from its draws only."""
    earlier = [{0, 2}, {1}]                          # judged in waves 1 and 2
    third = [{3}, {0, 2}]                            # drawn in wave 3
    pi = np.array([[1.0, 0.4, 1.0, 0.5], [0.9, 1.0, 0.6, 0.8]])
    drawn = np.array([[n in earlier[r] | third[r] for n in range(4)] for r in range(2)])
    refitted = AUTOMATIC[::-1].copy()                # another model's predictions
    topic = _topic()
    topic = type(topic)(**{**topic.__dict__, "automatic": refitted})
    lam = 0.7
    totals = second_wave_totals([topic], [pi], [drawn], 3.0, lam)
    for run in range(2):
        value = [HUMAN[run, n] if n in earlier[run] else
                 lam * refitted[run, n] + (HUMAN[run, n] - lam * refitted[run, n]) / pi[run, n] if n in third[run] else
                 lam * refitted[run, n] for n in range(4)]
        anchor = sum(WEIGHTS[n] * (HUMAN[run, n] if n in earlier[run] else refitted[run, n]) for n in range(4))
        matched = sum(HUMAN[run, n] if n in earlier[run] else refitted[run, n] for n in range(4))
        # each item drawn in wave 3 moves the two sums by sqrt((1 - pi) / pi^2) (w r, r) x, x standard normal
        moves = [np.sqrt(1 - pi[run, n]) / pi[run, n] * (HUMAN[run, n] - lam * refitted[run, n])
                 * np.array([WEIGHTS[n], 1]) for n in sorted(third[run])]
        variance = two_point_variance(lambda w, m: f_by_hand(w, m, WEIGHTS.sum(), 1000.0, 10.0), (anchor, matched),
                                      sum(np.outer(m, m) for m in moves))
        delta = sum((1 - pi[run, n]) / pi[run, n] ** 2
                    * (slope(anchor) * WEIGHTS[n] * (HUMAN[run, n] - lam * refitted[run, n])) ** 2
                    for n in third[run])
        assert totals.estimate[run] == pytest.approx(f3(WEIGHTS @ np.array(value)))
        assert totals.variance[run] == pytest.approx(variance, rel=1e-9)
        assert totals.variance[run] == pytest.approx(delta, rel=0.2)       # F3 bends a little off its clips


def _refit(base, human, chosen, folds, own_fold_too=False):
    """A stand-in for the refitted model: each item's base prediction shifted by the mean residual of
    the judged items outside its fold; with `own_fold_too`, a model that saw its fold's judgments and
    fits them exactly."""
    out = base.copy()
    for k in np.unique(folds):
        seen = chosen & (folds != k)
        if seen.any():
            out[folds == k] = np.clip(base[folds == k] + (human - base)[seen].mean(), 0, 1)
    return np.where(chosen, human, out) if own_fold_too else out


@pytest.mark.parametrize("own_fold_too", [False, True])
def test_refitted_predictions_keep_the_wave_unbiased_by_simulation(own_fold_too):
    """S = sum f + sum over the drawn of (y - f) / pi, f refitted on the draws: over 4000 Poisson
    draws its mean is the human sum when each item's f comes from the other folds' draws (folds dealt
    before the draw), and misses it by many standard errors when f saw its own fold's."""
    rng = np.random.default_rng(5)
    n = 60
    human = (rng.random(n) < 0.4).astype(float)
    base = np.clip(0.3 + 0.2 * human + rng.normal(0, 0.1, n), 0.01, 0.99)
    pi = 0.05 + 0.4 * human + rng.uniform(0, 0.1, n)      # any pi fixed before the draw will do
    folds = rng.permutation(n) % 5
    sums = []
    for _ in range(4000):
        chosen = draw(pi, rng)
        f = _refit(base, human, chosen, folds, own_fold_too)
        sums.append(f.sum() + ((human - f) / pi)[chosen].sum())
    error = (np.mean(sums) - human.sum()) / (np.std(sums) / np.sqrt(len(sums)))
    assert (abs(error) > 20) if own_fold_too else (abs(error) < 4)
