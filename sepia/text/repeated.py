"""Repeated messages summarised: the first few of each shape, then how many more there were (352
warnings of one kind say nothing 5 of them and a count do not)."""
from __future__ import annotations

import re
from collections import Counter
from typing import Callable, Hashable, Iterable, TypeVar

SHOWN = 5  # of each shape
_VARYING = re.compile(r"\S*\d\S*")  # IDs, numbers, line numbers: what differs between repeats of one message

T = TypeVar("T")


def shape(message: str) -> str:
    """A message with its varying words (those holding a digit) replaced by '#'."""
    return _VARYING.sub("#", message)


def summarised(items: Iterable[T], key: Callable[[T], Hashable | None],
               shown: int = SHOWN) -> tuple[list[T], list[tuple[T, int]]]:
    """The items to show, in their order: the first `shown` of each key (every item whose key is
    None); and for each key with more, its first item and how many were left out."""
    counts: Counter = Counter()
    first: dict[Hashable, T] = {}
    kept = []
    for item in items:
        k = key(item)
        if k is not None:
            counts[k] += 1
            first.setdefault(k, item)
            if counts[k] > shown:
                continue
        kept.append(item)
    return kept, [(first[k], n - shown) for k, n in counts.items() if n > shown]
