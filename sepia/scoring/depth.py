"""A scoring depth: only the first N responses of a run per topic count, as ACLIA's assessors saw
them (`sepia evaluate --depth 30`)."""
from __future__ import annotations

from dataclasses import replace

from sepia.formats.model import CCLQARun


def at_depth(run: CCLQARun, depth: int | None) -> CCLQARun:
    """The run with each topic's answers cut to the `depth` best ranked; the run itself when depth is None."""
    if depth is None:
        return run
    if depth < 1:
        raise ValueError(f"the scoring depth must be at least 1, got {depth}")
    return replace(run, topics=[replace(t, answers=sorted(t.answers, key=lambda a: a.rank)[:depth])
                                for t in run.topics])
