"""Parts of pages kept until the rows they are made from change.

A part is kept with a key read from the store (a few counts and the newest row of the tables it
shows) and made again when a request reads another key. Each server process keeps its own, so no
other process or store can hand it a stale part. Its threads share them without a lock because
nothing shared is ever changed: the mapping of kept parts is replaced whole by a new one holding
the new (key, part) pair, so a thread reads either the old mapping or the new. (One copy per thread
instead would make a part again in each of a server's 24 threads after every change: a slow request
in every few of an organiser's, measured in tools/bench_web.py's p95.)
"""
from __future__ import annotations

from collections.abc import Callable
from types import MappingProxyType
from typing import TypeVar

from flask import current_app

T = TypeVar("T")
SHELF = "sepia_kept"  # app.extensions[SHELF]: name -> (key, part), read-only, replaced whole


def kept(name: str, read_key: Callable[[], tuple], make: Callable[[], T]) -> T:
    """`make()`'s value, made again only when `read_key()` differs from the key it was made under.
    The key is read again after making: a part made while the rows changed is used, not kept."""
    key = read_key()
    held = current_app.extensions.get(SHELF, {}).get(name)
    if held is not None and held[0] == key:
        return held[1]
    value = make()
    if read_key() == key:
        shelf = current_app.extensions.get(SHELF, {})
        current_app.extensions[SHELF] = MappingProxyType({**shelf, name: (key, value)})
    return value
