"""Problems found in input files, reported as `PATH:LINE:COLUMN: message` (docs/spec.md, Formats)."""
from __future__ import annotations

from dataclasses import dataclass, replace

MAX_PROBLEMS = 1000  # of each kind listed per file: a hostile file can raise millions


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


def capped(problems: list[Problem], what: str = "problems", total: int | None = None) -> list[Problem]:
    """The first MAX_PROBLEMS problems in file order, then one line, where the rest begin, counting
    them (`total` problems in all when only the first of them were made)."""
    problems = sorted(problems)
    rest = problems[MAX_PROBLEMS:]
    if not rest:
        return problems
    more = (len(problems) if total is None else total) - MAX_PROBLEMS
    severity = "error" if any(p.severity == "error" for p in rest) else "warning"
    return problems[:MAX_PROBLEMS] + [replace(rest[0], message=f"{more:,} more {what} not shown", severity=severity)]


class FormatError(Exception):
    """A file that cannot be used; carries every problem found, not only the first."""

    def __init__(self, problems: list[Problem]):
        self.problems = sorted(problems)
        super().__init__("\n".join(str(p) for p in self.problems))
