"""The variance of a topic's F estimate that follows F's clips: the estimated covariance of F's two
estimated sums (S_w = sum w m and S_1 = sum m) pushed through F itself rather than through its
derivatives.

F is a clipped function of the two sums (recall clipped to [0, 1], the allowance-based precision
capped at 1), so where the sums' spread reaches a clip the estimate varies less than its
linearisation (the delta method) says: on TREC RAG 2024 the delta method's variances of an active
plan's two waves exceeded the estimates' mean squared error by 10-50%. Here F is evaluated with the
sums moved by one standard deviation each way along each principal axis of their covariance (the
Gauss-Hermite rule of `NODES` = 2 points a direction; 4 points, 2 when the covariance has rank 1)
about a centre, and the variance of those values is the estimate: the variance of F under a
distribution of the sums with the centre as mean and the estimated covariance. For F linear in the
sums it is the delta method's; where a clip lies within a standard deviation it is smaller. With a
response's 2 items of a simple random sample, the two points are the jackknife's two replicates
rescaled to one standard deviation (a replicate method whose replicates move the sums as far as the
estimator's error does, not K/(k - 1) times an item, which hits the clips far more often). Rules of
more points (the normal integral) fell further short of the error on TREC RAG 2024:
docs/metaeval.md, *A variance that follows F's clips*.
"""
from __future__ import annotations

import numpy as np
from numpy.polynomial.hermite_e import hermegauss

from sepia.metaeval.items import TopicItems, f_from_sums

NODES = 2   # Gauss-Hermite points a direction: the sums moved one standard deviation each way


def variance_through_f(topic: TopicItems, weighted: np.ndarray, matched: np.ndarray, covariance: np.ndarray,
                       beta: float, nodes: int = NODES) -> np.ndarray:
    """Per run: the variance of F(S_w, S_1) over the Gauss-Hermite rule of `nodes` points a direction
    for sums with means `weighted` and `matched` (runs) and `covariance` (runs x 2 x 2, S_w first), in
    the covariance's eigenvectors; many points give the variance of F for normal sums."""
    x, weight = hermegauss(nodes)
    weight = np.outer(weight, weight).ravel() / weight.sum() ** 2
    grid = np.stack(np.meshgrid(x, x, indexing="ij")).reshape(2, -1)            # 2 x nodes^2 standard normals
    scales, axes = np.linalg.eigh(covariance)                                    # runs x 2, runs x 2 x 2
    shifts = np.einsum("rij,rj,jn->rin", axes, np.sqrt(np.maximum(scales, 0.0)), grid)
    f = f_from_sums(weighted[:, None] + shifts[:, 0], matched[:, None] + shifts[:, 1], topic, beta)
    mean = f @ weight
    return np.maximum((f * f) @ weight - mean * mean, 0.0)


def poisson_covariance(topic: TopicItems, residual: np.ndarray, pi: np.ndarray, drawn: np.ndarray) -> np.ndarray:
    """Runs x 2 x 2: the Horvitz-Thompson estimate of the covariance of the two inverse-probability
    weighted sums under Poisson sampling, sum over the drawn items of (1 - pi) / pi^2 (g r)(h r) for
    g, h in (w, 1); `residual`, `pi`, `drawn` runs x K (an item with pi = 1 adds nothing)."""
    a = np.where(drawn, (1 - pi) / pi ** 2, 0.0) * residual * residual
    return _covariance(a, topic.weights)


def srs_covariance(topic: TopicItems, residual: np.ndarray, judged: np.ndarray) -> np.ndarray:
    """Runs x 2 x 2: the estimated covariance of the two sums K/k sum over a simple random sample
    without replacement of k of the K items, K^2 (1 - k/K) / k times the sample covariance of
    (w r, r) over each run's k judged items (`judged` runs x K; 0 for a run with fewer than 2)."""
    K, k = len(topic.weights), judged.sum(axis=1)
    n = np.maximum(k, 2)[:, None]
    terms = [np.where(judged, residual * g, 0.0) for g in (topic.weights, np.ones(K))]
    centred = [np.where(judged, t - t.sum(axis=1, keepdims=True) / n, 0.0) for t in terms]
    out = np.empty((len(residual), 2, 2))
    for i in range(2):
        for j in range(2):
            out[:, i, j] = (centred[i] * centred[j]).sum(axis=1)
    factor = np.where(k >= 2, K * K * (1 - k / K) / n[:, 0] / (n[:, 0] - 1), 0.0)
    return out * factor[:, None, None]


def _covariance(a: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Runs x 2 x 2 of sum a (g h) over the items for g, h in (w, 1)."""
    out = np.empty((len(a), 2, 2))
    out[:, 0, 0], out[:, 1, 1] = a @ (weights * weights), a.sum(axis=1)
    out[:, 0, 1] = out[:, 1, 0] = a @ weights
    return out
