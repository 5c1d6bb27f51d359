"""The organiser's decision on a disputed item, and which judgments count once disputes are settled:
the same rule for the store's exports, its qrels and support judgments, and the rounds of judging
compared by `sepia.metaeval.rounds`."""
from __future__ import annotations

from collections.abc import Callable, Iterable

# The assessor name of an organiser's decision on a disputed item. No account can have it (user names
# have no parentheses), and where it exists it is the official judgment; the others are kept.
ADJUDICATED = "(adjudicated)"


def official(rows: Iterable, key: Callable) -> list:
    """The judgments that count: for an item with an adjudicated judgment, only that one; for the
    others, every assessor's (combined later as a file's would be). `key` names a row's item."""
    rows = list(rows)
    decided = {key(r) for r in rows if r.assessor == ADJUDICATED}
    return [r for r in rows if r.assessor == ADJUDICATED or key(r) not in decided]
