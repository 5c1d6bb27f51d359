"""Pools for assessment: what runs retrieved (IR4QA documents) or answered (CCLQA responses), taken
from runs by priority to a chosen depth, each item once per topic."""
from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from sepia.store import models as db
from sepia.store.io import ImportRefused


def build_pool(session: Session, name: str, kind: str, depth: int, max_priority: int | None = None,
               replace: bool = False) -> db.Pool:
    """Pool the top `depth` documents (ir4qa) or answers (cclqa) of every run of that kind whose
    priority is at most `max_priority` (all runs when None)."""
    if kind not in ("ir4qa", "cclqa"):
        raise ValueError(f"pool kind must be ir4qa or cclqa, not {kind!r}")
    if depth < 1:
        raise ValueError("pool depth must be at least 1")
    old = session.scalar(select(db.Pool).where(db.Pool.name == name))
    if old is not None:
        if not replace:
            raise ImportRefused([f"pool {name} exists (use replace to rebuild it)"])
        session.delete(old)
        session.flush()
    query = (select(db.Run).where(db.Run.kind == kind).order_by(db.Run.priority, db.Run.run_id)
             .options(selectinload(db.Run.topics).selectinload(db.RunTopic.documents),
                      selectinload(db.Run.topics).selectinload(db.RunTopic.responses)))
    if max_priority is not None:
        query = query.where(db.Run.priority <= max_priority)
    pool = db.Pool(name=name, kind=kind, depth=depth, max_priority=max_priority)
    seen: set[tuple] = set()
    for run in session.scalars(query):
        for topic in sorted(run.topics, key=lambda t: t.position):
            if kind == "ir4qa":
                for doc in sorted(topic.documents, key=lambda d: d.rank)[:depth]:
                    if (topic.topic_id, doc.docid) not in seen:
                        seen.add((topic.topic_id, doc.docid))
                        pool.entries.append(db.PoolEntry(topic_id=topic.topic_id, docid=doc.docid))
            else:
                for response in sorted(topic.responses, key=lambda r: r.rank)[:depth]:
                    pool.entries.append(db.PoolEntry(topic_id=topic.topic_id, response_id=response.id))
    session.add(pool)
    session.flush()
    return pool


def pool_rows(session: Session, name: str) -> tuple[list[str], list[tuple]]:
    """The pool as a table: (topic_id, docid) for IR4QA, (topic_id, run_id, answer_rank) for CCLQA."""
    pool = session.scalar(select(db.Pool).where(db.Pool.name == name))
    if pool is None:
        raise ImportRefused([f"no pool named {name}"])
    if pool.kind == "ir4qa":
        return ["topic_id", "docid"], sorted((e.topic_id, e.docid) for e in pool.entries)
    rows = session.execute(
        select(db.PoolEntry.topic_id, db.Run.run_id, db.Response.rank)
        .join(db.Response, db.PoolEntry.response_id == db.Response.id)
        .join(db.RunTopic, db.Response.run_topic_id == db.RunTopic.id).join(db.Run)
        .where(db.PoolEntry.pool_id == pool.id))
    return ["topic_id", "run_id", "answer_rank"], sorted(tuple(r) for r in rows)
