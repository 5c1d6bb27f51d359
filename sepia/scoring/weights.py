"""Nugget weights from the assessors' vital votes (docs/spec.md, Nugget weights)."""
from __future__ import annotations

from typing import Literal, Sequence, get_args

from sepia.formats.model import GoldNugget

Scheme = Literal["pyramid", "proportion", "binary"]
SCHEMES: tuple[Scheme, ...] = get_args(Scheme)


def nugget_weights(nuggets: Sequence[GoldNugget], scheme: Scheme = "pyramid") -> tuple[list[float], list[str]]:
    """Weights of one topic's nuggets, and warnings about how they were found.

    pyramid: v(n) / max v(m); proportion: v(n) / voters of n; binary: 1 if a majority voted vital.
    A nugget that records no votes keeps the WEIGHT its file gave (1 when none). When no nugget of
    the topic gets any weight, every nugget weighs 1 (the rule of docs/spec.md for a topic without vital votes).
    """
    if scheme not in SCHEMES:
        raise ValueError(f"unknown weighting scheme {scheme!r}; choose one of {', '.join(SCHEMES)}")
    warnings: list[str] = []
    voted = [n for n in nuggets if n.vital_votes is not None]
    if scheme == "pyramid":
        top = max((n.vital_votes or 0 for n in voted), default=0)
        weights = [_given(n) if n.vital_votes is None else (n.vital_votes / top if top else 0.0) for n in nuggets]
    elif scheme == "proportion":
        weights = [_given(n) if n.vital_votes is None else (n.vital_votes / n.voters if n.voters else 0.0)
                   for n in nuggets]
    else:
        weights = [_given(n) if n.vital_votes is None else float(2 * n.vital_votes > (n.voters or 0))
                   for n in nuggets]
    if nuggets and not any(weights):
        if scheme == "binary" and any(n.vital_votes for n in voted):
            warnings.append("no nugget has a majority of vital votes (binary weights), so every nugget weighs 1")
        else:
            warnings.append("no nugget has a vital vote, so every nugget weighs 1")
        weights = [1.0] * len(nuggets)
    return weights, warnings


def _given(nugget: GoldNugget) -> float:
    return 1.0 if nugget.weight is None else nugget.weight
