"""The largest values the campaign store's columns hold, in one place.

A file that `sepia validate` accepts must import on every database: PostgreSQL refuses a value longer
than its varchar column, or an integer beyond 32 bits, where SQLite would store it. The schemas in
`schemas/` repeat these numbers as facets, and a test checks that they and the store's columns agree.
"""
from __future__ import annotations

TOPIC_ID = 64  # topic.id and every topic_id column
NUGGET_ID = 64  # nugget.label
RUN_ID = 200  # run.run_id, run.ir4qa_run
TEAM = 100  # run.team: the TEAM part of a run ID
DOCID = 200  # every docid column
ASSESSOR = 100  # vote.assessor, nugget_judgment.assessor
MEASURE = 40  # evaluation_result.measure: a measure's name, parameters and all
INTEGER = 2**31 - 1  # INTEGER columns (ranks, vote counts)


def too_large(limit: int, size: int | None = None) -> str:
    """A file over `limit` bytes, in the words every upload and command uses. `size` only when it was
    measured (a file's stat): an upload is read no further than one byte past the limit, so its size
    is not known, and none is made up."""
    measured = f" of {size:,} bytes" if size is not None else ""
    return f"file{measured} is larger than the limit of {limit:,} bytes"


def too_long(what: str, value: str, limit: int) -> str | None:
    """The problem with a value too long for its column, or None when it fits."""
    if len(value) > limit:
        return f"{what} is {len(value)} characters long; the store holds at most {limit}"
    return None


# Longest texts a person types or selects in the web tool; the database's Text columns would take
# more, but a nugget of a page or an answer of a book is a mistake (or an attack), not a campaign's data.
NUGGET_MAX_CHARS = 1_000
ANSWER_MAX_CHARS = 10_000
TOPIC_FIELD_MAX_CHARS = 10_000


def over_limit(what: str, value: str, limit: int) -> str | None:
    """The problem with a typed text longer than `limit` characters, or None when it is not."""
    if len(value) > limit:
        return f"{what} has {len(value):,} characters; at most {limit:,} are allowed."
    return None
