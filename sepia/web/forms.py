"""Reading values out of forms: IDs as ASCII digits of a bounded length, texts of a bounded length."""
from __future__ import annotations

import re

from sepia.limits import over_limit


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
    if (problem := over_limit(what, value, limit)) is not None:
        raise FormError(problem)
    return value
