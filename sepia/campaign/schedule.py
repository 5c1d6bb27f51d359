"""The campaign schedule: what each task's window allows at a given moment, and what breaks the
order embedded evaluation needs (Question Analysis runs feed IR4QA systems, IR4QA runs feed CCLQA)."""
from __future__ import annotations

from datetime import datetime
from typing import Iterable

from sepia.formats.registry import named
from sepia.store.models import RUN_KINDS, TaskWindow, as_utc

TASKS = RUN_KINDS  # qa, ir4qa, cclqa: the order of embedded evaluation
TASK_LABELS = {task: str(named(task).task) for task in TASKS}
UPSTREAM = {"ir4qa": "qa", "cclqa": "ir4qa"}  # the task whose runs a task's systems take as input

UPCOMING, OPEN, CLOSED, RELEASED = "upcoming", "open", "closed", "released"


def phase(window: TaskWindow, now: datetime) -> str:
    if now < as_utc(window.opens_at):
        return UPCOMING
    if now < as_utc(window.closes_at):
        return OPEN
    if window.release_at is None or now < as_utc(window.release_at):
        return CLOSED
    return RELEASED


def runs_shared(window: TaskWindow, now: datetime) -> bool:
    """Whether participants may download every team's runs of this window: the inputs of the next
    task (QA, IR4QA) once the window has closed; CCLQA runs, the scored output, only once released."""
    current = phase(window, now)
    if window.task in UPSTREAM.values():
        return current in (CLOSED, RELEASED)
    return current == RELEASED


def topics_available(windows: Iterable[TaskWindow], now: datetime) -> bool:
    """A topic set's topics go out when its first window opens."""
    return any(now >= as_utc(w.opens_at) for w in windows)


def released(windows: Iterable[TaskWindow], task: str, now: datetime) -> bool:
    return any(w.task == task and phase(w, now) == RELEASED for w in windows)


def warnings(windows: Iterable[TaskWindow]) -> list[str]:
    """What is wrong with one topic set's windows, in words an organiser can act on."""
    by_task = {w.task: w for w in windows}
    found = []
    for task in TASKS:
        window = by_task.get(task)
        if window is None:
            continue
        label = TASK_LABELS[task]
        if as_utc(window.closes_at) <= as_utc(window.opens_at):
            found.append(f"{label} closes before it opens.")
        if window.release_at is not None and as_utc(window.release_at) < as_utc(window.closes_at):
            found.append(f"{label} results are released before its window closes: late runs would see them.")
        upstream = by_task.get(UPSTREAM.get(task, ""))
        if upstream is not None and as_utc(upstream.closes_at) > as_utc(window.opens_at):
            found.append(f"{label} opens before {TASK_LABELS[upstream.task]} closes: {label} teams get the "
                         f"{TASK_LABELS[upstream.task]} runs only when that window closes.")
    return found
