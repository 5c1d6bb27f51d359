"""Problems found in input files, reported as `PATH:LINE:COLUMN: message` (spec section 2)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Problem:
    path: str
    line: int
    column: int
    message: str
    severity: str = "error"  # or "warning": reported, but the file still counts as valid

    def __str__(self) -> str:
        prefix = "warning: " if self.severity == "warning" else ""
        return f"{self.path}:{self.line}:{self.column}: {prefix}{self.message}"


class FormatError(Exception):
    """A file that cannot be used; carries every problem found, not only the first."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(problems)
        super().__init__("\n".join(str(p) for p in self.problems))
