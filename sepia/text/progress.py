"""A progress bar on stderr, shown only when stderr is a terminal."""
from __future__ import annotations

from contextlib import contextmanager

from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                           TimeRemainingColumn)


def progress_bar(label: str, total: int | None, unit: str = ""):
    """(progress, advance): use `with progress:` and call `advance(n)` as work gets done."""
    console = Console(stderr=True)
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn(unit), TimeElapsedColumn(), TimeRemainingColumn(),
                        console=console, disable=not console.is_terminal)
    task = progress.add_task(label, total=total)

    def advance(n: int = 1) -> None:
        progress.advance(task, n)

    return progress, advance


@contextmanager
def maybe_progress(enabled: bool, label: str, total: int | None, unit: str = ""):
    """`with maybe_progress(...) as advance:`; advance is None when disabled."""
    if not enabled:
        yield None
        return
    progress, advance = progress_bar(label, total, unit)
    with progress:
        yield advance
