"""The classifier behind the learned matcher: scikit-learn's logistic regression on standardised
features, trained on soft labels.

A judged pair's decision is 1, 0.5 (partial support) or 0; a pair becomes two weighted rows (label 1
with weight v, label 0 with weight 1 - v), so the model's probability estimates the credit a human
would give, half for a partial support, which is what F counts by default. Logistic regression
minimises log loss, so its probabilities are calibrated as they come (the report checks it per
decile); gradient boosting was tried on the same features and ranked the TREC runs no better at
seven times the cost.

A fitted model is kept as plain numbers (means, scales, coefficients), applied with numpy and saved
as JSON: no pickle is ever loaded.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

REGULARISATION = 1.0  # scikit-learn's C


@dataclass
class Classifier:
    mean: list[float]
    scale: list[float]
    coefficients: list[float]
    intercept: float

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        if not len(features):
            return np.zeros(0)
        z = (features - np.array(self.mean)) / np.array(self.scale)
        return 1.0 / (1.0 + np.exp(-(z @ np.array(self.coefficients) + self.intercept)))

    def as_dict(self) -> dict:
        return asdict(self)


def soft_rows(features: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row twice, as label 1 weighted v and label 0 weighted 1 - v; rows of weight 0 dropped."""
    x = np.vstack([features, features])
    y = np.concatenate([np.ones(len(labels)), np.zeros(len(labels))])
    w = np.concatenate([labels, 1.0 - labels])
    keep = w > 0
    return x[keep], y[keep], w[keep]


def fit_classifier(features: np.ndarray, labels: np.ndarray) -> Classifier:
    """A classifier of these judged pairs (labels 1, 0.5, 0)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.preprocessing import StandardScaler

    x, y, w = soft_rows(features, labels)
    if len(set(y)) < 2:
        raise ValueError("the judgments hold only one decision (every pair matched, or none): nothing to learn from")
    scaler = StandardScaler().fit(x, sample_weight=w)
    regression = LogisticRegression(C=REGULARISATION, max_iter=2000).fit(scaler.transform(x), y, sample_weight=w)
    return Classifier(scaler.mean_.tolist(), scaler.scale_.tolist(), regression.coef_[0].tolist(),
                      float(regression.intercept_[0]))


def fit_newton(features: np.ndarray, labels: np.ndarray, start: np.ndarray | None = None,
               tolerance: float = 1e-9) -> tuple[Classifier, np.ndarray]:
    """`fit_classifier`'s model (the same standardisation, penalty and soft labels: its minimum) by
    Newton's method in numpy, from `start` (the coefficients and intercept of an earlier fit, on
    standardised features) when given; also the solution, to start the next fit from. The objective
    is strictly convex, so the start changes how fast it converges, never where: a warm start from
    another sample's model carries nothing of that sample into this one."""
    features, labels = np.asarray(features, float), np.asarray(labels, float)
    if not len(labels) or labels.max() <= 0 or labels.min() >= 1:
        raise ValueError("the judgments hold only one decision (every pair matched, or none): nothing to learn from")
    mean = features.mean(axis=0)
    scale = features.std(axis=0)
    scale[scale == 0] = 1.0
    z = np.hstack([(features - mean) / scale, np.ones((len(features), 1))])
    penalty = np.full(z.shape[1], 1 / REGULARISATION)
    penalty[-1] = 0.0                      # the intercept is not penalised
    beta = np.zeros(z.shape[1]) if start is None or len(start) != z.shape[1] else np.array(start, float)

    def objective(b: np.ndarray) -> float:
        s = z @ b
        return float(np.sum(np.logaddexp(0, s) - labels * s) + 0.5 * np.sum(penalty * b * b))

    current = objective(beta)
    for _ in range(100):
        p = 1 / (1 + np.exp(-(z @ beta)))
        gradient = z.T @ (p - labels) + penalty * beta
        hessian = (z.T * (p * (1 - p))) @ z + np.diag(penalty) + 1e-12 * np.eye(len(beta))
        step = np.linalg.solve(hessian, gradient)
        size = 1.0
        while size > 1e-6 and objective(beta - size * step) > current + 1e-12:
            size /= 2                      # damped: the full step overshot
        beta = beta - size * step
        current = objective(beta)
        if np.max(np.abs(size * step)) < tolerance:
            break
    return Classifier(mean.tolist(), scale.tolist(), beta[:-1].tolist(), float(beta[-1])), beta
