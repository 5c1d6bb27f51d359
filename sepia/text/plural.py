"""A count with its noun in the number the count asks for: `1 run`, `2 runs`, `the first 1 response`."""
from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`count` and `noun`, the noun plural (`noun + "s"` unless `plural` is given) unless the count is 1."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"
