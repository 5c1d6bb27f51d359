"""Pools as the organisers' pages build and keep them: the pools page's rows, a pool built (with the
judging plan its form asks for drawn, or the plan of the pool it replaces kept) or rebuilt from the
runs stored now, deleted. The callers commit; `sepia.store.pools` and `sepia.store.plans` do the work."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from sepia.store import judging
from sepia.services.accounts import active_assessors
from sepia.store.models import JudgingPlan, Pool, Run
from sepia.store.plans import MAX_SEED, kept_plan, make_plan, restore_plan
from sepia.store.pools import build_pool


@dataclass
class PoolsPage:
    pools: list[Pool]
    progress: list[judging.TopicProgress]
    assessors: list[str]                  # the active assessors' usernames, to share a pool out to
    runs: dict[tuple[str, str], int]       # (kind, target language) -> runs stored


def pools_by_age(session: Session) -> list[Pool]:
    return list(session.scalars(select(Pool).order_by(Pool.created_at)))


def pools_page(session: Session) -> PoolsPage:
    pools = pools_by_age(session)
    assessors = active_assessors(session)
    runs = {(kind, lang): n for kind, lang, n in session.execute(
        select(Run.kind, Run.target_lang, func.count()).group_by(Run.kind, Run.target_lang))}
    return PoolsPage(pools, judging.progress(session), assessors, runs)


def pool_by_id(session: Session, pool_id: int) -> Pool | None:
    return session.get(Pool, pool_id)


def pool_exists(session: Session, name: str) -> bool:
    return _pool_id(session, name) is not None


def _pool_id(session: Session, name: str) -> int | None:
    return session.scalar(select(Pool.id).where(Pool.name == name))


class PlanRefused(Exception):
    """The judging plan a pool's form asks for cannot be drawn: nothing is stored."""


@dataclass(frozen=True)
class PlanAsked:
    """A pool form's judging plan, as typed."""
    budget: str
    strata: str
    seed: str
    unit: str


@dataclass
class Built:
    pool: Pool
    plan: JudgingPlan | None  # the plan drawn, if one was asked for
    kept: dict | None         # the judging plan of the pool replaced, kept (`kept_plan`)
    changes: list[str]        # how the kept plan's topics changed since its draw


def build(session: Session, name: str, kind: str, depth: int, *, lang: str | None, priorities: Iterable[int],
          replace: bool, suggest: bool, plan: PlanAsked | None) -> Built:
    """A pool built from the stored runs (replacing the one of that name with `replace`) with the
    judging plan asked for drawn in the same transaction; a replaced CCLQA pool asked for no new plan
    keeps its own. `ImportRefused` or `PlanRefused`: the caller rolls back."""
    kept = _kept_plan(session, name) if replace and kind == "cclqa" and plan is None else None
    built = build_pool(session, name, kind, depth, lang=lang, priorities=priorities, replace=replace)
    built.suggest = kind == "cclqa" and suggest
    drawn = _draw_plan(session, plan, name, kind) if plan is not None else None
    return Built(built, drawn, kept, restore_plan(session, name, kept) if kept else [])


def rebuild(session: Session, pool: Pool) -> Built:
    """The pool built anew with its own settings from the runs stored now, its judging plan kept."""
    name, suggest = pool.name, pool.suggest
    priorities = [int(p) for p in (pool.priorities or "").split(",") if p]
    kept = _kept_plan(session, name)
    built = build_pool(session, name, pool.kind, pool.depth, pool.max_priority, replace=True, lang=pool.lang,
                       priorities=priorities)
    built.suggest = suggest
    return Built(built, None, kept, restore_plan(session, name, kept) if kept else [])


def delete(session: Session, pool: Pool) -> None:
    """The pool and its assignments; the judgments made in it stay."""
    session.delete(pool)


def _kept_plan(session: Session, name: str) -> dict | None:
    """The judging plan of the pool NAME about to be replaced (`sepia.store.plans.kept_plan`)."""
    pool_id = _pool_id(session, name)
    return None if pool_id is None else kept_plan(session, pool_id)


def _draw_plan(session: Session, asked: PlanAsked, name: str, kind: str) -> JudgingPlan:
    """The judging plan asked for (budget, strata, seed, unit), drawn in the pool's transaction."""
    seed = asked.seed or "0"
    if kind != "cclqa" or not seed.isdigit() or int(seed) > MAX_SEED:
        raise PlanRefused(f"A judging budget is for CCLQA pools, with a seed from 0 to {MAX_SEED}.")
    try:
        return make_plan(session, name, asked.budget, asked.strata, int(seed), asked.unit)
    except ValueError as error:
        raise PlanRefused(str(error)) from None
