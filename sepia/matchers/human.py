"""human (docs/spec.md, Matching): the assessors' judgments; a nugget's value is its best judgment over the
topic's responses (1, 0.5 or 0), a partial support counting `--partial` in F."""
from __future__ import annotations

from sepia.matchers.base import MatcherKind, MatcherOptions


def _make(options: MatcherOptions):
    from sepia.scoring.matchers import HumanMatcher

    assert options.judgments is not None  # KIND.needs_judgments: the registry has checked
    return HumanMatcher(options.judgments, partial=options.partial)


KIND = MatcherKind(name="human", label="human", automatic=False, make=_make, options=("partial", "judgments"),
                   needs_judgments=True, summary="assessors' judgments")
