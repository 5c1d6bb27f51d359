"""Reading values out of forms: IDs as ASCII digits of a bounded length, texts of a bounded length."""
from __future__ import annotations

import re

# Longest texts a person types or selects; the database's Text columns would take more, but a
# nugget of a page or an answer of a book is a mistake (or an attack), not a campaign's data.
NUGGET_MAX_CHARS = 1_000
ANSWER_MAX_CHARS = 10_000
TOPIC_FIELD_MAX_CHARS = 10_000

# int() accepts "²", "٣" and 5,000-digit numbers; a database ID is none of those.
_ID_RE = re.compile(r"[0-9]{1,9}")


class FormError(ValueError):
    """A form value that cannot be used; the message says which and why."""


def parse_id(value: object, what: str = "ID") -> int:
    """A database ID sent by a form: 1 to 9 ASCII digits (it fits every backend's INTEGER)."""
    if isinstance(value, str) and _ID_RE.fullmatch(value):
        return int(value)
    raise FormError(f"{str(value)[:40]!r} is not a valid {what}.")


def parse_ids(values: list[str], what: str = "ID") -> set[int]:
    return {parse_id(value, what) for value in values}


def bounded_text(value: str, limit: int, what: str) -> str:
    if len(value) > limit:
        raise FormError(f"{what} has {len(value):,} characters; at most {limit:,} are allowed.")
    return value
