"""Pools for assessment: what runs retrieved (IR4QA documents) or answered (CCLQA responses), taken
from runs by priority to a chosen depth, each item once per topic, and shared out to assessors.

A CCLQA item is a response text: responses of a topic whose normalised text (NFKC, lower case, white
space folded) is the same are one item, judged once, and the judgment holds for every run that
returned it (TREC RAG 2024's own data has 53 such duplicates among 927 answers, judged
inconsistently)."""
from __future__ import annotations

import random
import secrets
from collections.abc import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from sepia.scoring.tokenize import normalize
from sepia.store import models as db
from sepia.store.db import hold
from sepia.store.io import ImportRefused

DEFAULT_DEPTH = {"cclqa": 30, "ir4qa": 100}  # ACLIA judged up to 30 responses per run and question


def item_key(text: str) -> str:
    """What makes two responses one pool item."""
    return " ".join(normalize(text).split())


def build_pool(session: Session, name: str, kind: str, depth: int, max_priority: int | None = None,
               replace: bool = False, lang: str | None = None, priorities: Iterable[int] | None = None) -> db.Pool:
    """Pool the top `depth` documents (ir4qa) or responses (cclqa) of every run of that kind (of that
    target language; of those priorities, or of priority at most `max_priority`; all when neither),
    on every topic that is not retired. Refuses (ImportRefused) a pool that exists unless `replace`,
    and a pool that would be empty."""
    if kind not in DEFAULT_DEPTH:
        raise ValueError(f"pool kind must be ir4qa or cclqa, not {kind!r}")
    if depth < 1:
        raise ValueError("pool depth must be at least 1")
    hold(session, db.Run.priority, db.Run.kind == kind)  # a team replacing a run waits for the pool, or the pool for it
    old = session.scalar(select(db.Pool).where(db.Pool.name == name))
    if old is not None:
        if not replace:
            raise ImportRefused([f"pool {name} exists (use replace to rebuild it)"])
        old.name = f"(rebuilt) {secrets.token_hex(16)}"  # it goes once its successor has a new ID
        session.flush()
    wanted = sorted(set(priorities or ()))
    query = (select(db.Run).where(db.Run.kind == kind).order_by(db.Run.priority, db.Run.run_id)
             .options(selectinload(db.Run.topics).selectinload(db.RunTopic.documents),
                      selectinload(db.Run.topics).selectinload(db.RunTopic.responses)))
    if max_priority is not None:
        query = query.where(db.Run.priority <= max_priority)
    if wanted:
        query = query.where(db.Run.priority.in_(wanted))
    if lang:
        query = query.where(db.Run.target_lang == lang)
    pool = db.Pool(name=name, kind=kind, depth=depth, max_priority=max_priority, lang=lang,
                   priorities=",".join(map(str, wanted)) or None)
    items: dict[tuple[str, str], db.PoolEntry] = {}
    retired = set(session.scalars(select(db.Topic.id).where(db.Topic.retired.is_(True))))
    for run in session.scalars(query):
        for topic in sorted(run.topics, key=lambda t: t.position):
            if topic.topic_id in retired:
                continue
            if kind == "ir4qa":
                for doc in sorted(topic.documents, key=lambda d: d.rank)[:depth]:
                    if (topic.topic_id, doc.docid) not in items:
                        items[topic.topic_id, doc.docid] = entry = db.PoolEntry(topic_id=topic.topic_id, docid=doc.docid)
                        pool.entries.append(entry)
            else:
                for response in sorted(topic.responses, key=lambda r: r.rank)[:depth]:
                    key = (topic.topic_id, item_key(response.text))
                    if key not in items:
                        items[key] = db.PoolEntry(topic_id=topic.topic_id, response_id=response.id)
                        pool.entries.append(items[key])
                    items[key].members.append(response)
    if not pool.entries:  # nothing for anyone to judge: a mistake of language, task or priorities
        among = " ".join(filter(None, [lang, kind.upper(), "run", f"of priority {pool.priorities}" if wanted else ""]))
        raise ImportRefused([f"pool {name} would be empty: no stored {among} has a topic to pool"])
    session.add(pool)
    session.flush()
    if old is not None:  # only now: SQLite gives a new row the highest ID + 1, which was the old pool's
        session.delete(old)
        session.flush()
    return pool


def get_pool(session: Session, name: str) -> db.Pool:
    pool = session.scalar(select(db.Pool).where(db.Pool.name == name))
    if pool is None:
        raise ImportRefused([f"no pool named {name}"])
    return pool


def pool_rows(session: Session, name: str) -> tuple[list[str], list[tuple]]:
    """The pool as a table: (topic_id, docid) for IR4QA; for CCLQA one line per pooled response,
    (topic_id, item, run_id, answer_rank, text), where `item` numbers the pool's items so that the
    responses judged as one share it."""
    pool = get_pool(session, name)
    if pool.kind == "ir4qa":
        return ["topic_id", "docid"], sorted((e.topic_id, e.docid) for e in pool.entries if e.control_id is None)
    rows = session.execute(
        select(db.PoolEntry.topic_id, db.PoolEntry.id, db.Run.run_id, db.Response.rank, db.Response.text)
        .join(db.pool_member, db.pool_member.c.entry_id == db.PoolEntry.id)
        .join(db.Response, db.pool_member.c.response_id == db.Response.id)
        .join(db.RunTopic, db.Response.run_topic_id == db.RunTopic.id).join(db.Run)
        .where(db.PoolEntry.pool_id == pool.id, db.PoolEntry.control_id.is_(None)))
    return ["topic_id", "item", "run_id", "answer_rank", "text"], sorted(tuple(r) for r in rows)


def pool_document(session: Session, name: str) -> dict:
    """The pool for assessors outside SEPIA, as JSON: per topic its nuggets and the items, each with
    its text (CCLQA) or document (IR4QA) and the runs that returned it."""
    pool = get_pool(session, name)
    header, rows = pool_rows(session, name)
    topic_ids = sorted({r[0] for r in rows})
    nuggets: dict[str, list[dict]] = {}
    for topic_id, label, text in session.execute(
            select(db.Nugget.topic_id, db.Nugget.label, db.Nugget.text)
            .where(db.Nugget.topic_id.in_(topic_ids)).order_by(db.Nugget.topic_id, db.Nugget.position)):
        nuggets.setdefault(topic_id, []).append({"nugget_id": label, "text": text})
    topics: dict[str, dict] = {t: {"topic_id": t, "nuggets": nuggets.get(t, []), "items": []} for t in topic_ids}
    if pool.kind == "ir4qa":
        for topic_id, docid in rows:
            topics[topic_id]["items"].append({"docid": docid})
    else:
        by_item: dict[int, dict] = {}
        for topic_id, item, run_id, rank, text in rows:
            entry = by_item.get(item)
            if entry is None:
                entry = by_item[item] = {"item": item, "text": text, "responses": []}
                topics[topic_id]["items"].append(entry)
            entry["responses"].append({"run_id": run_id, "answer_rank": rank})
    return {"pool": pool.name, "kind": pool.kind, "lang": pool.lang, "depth": pool.depth,
            "topics": list(topics.values())}


def assign_pool(session: Session, name: str, assessors: list[str], overlap: float = 0.0, seed: int = 0) -> int:
    """Share a pool's items out to assessors, topic by topic in turn (each topic's items to one
    assessor, so an assessor keeps a topic in mind), and a share `overlap` of every topic's items to a
    second assessor as well, for agreement. Each assessor's queue is in a random order fixed for that
    assessor (items of a topic stay together). Items already assigned are kept; returns how many
    assignments were added. With a judging plan (sepia.store.plans), only its topics are shared out."""
    if not assessors:
        raise ValueError("name at least one assessor")
    if not 0 <= overlap <= 1:
        raise ValueError("overlap is a share between 0 and 1")
    if overlap and len(assessors) < 2:
        raise ValueError("overlap needs at least two assessors")
    from sepia.store.plans import planned_topics

    pool = get_pool(session, name)
    entries = session.scalars(select(db.PoolEntry).where(db.PoolEntry.pool_id == pool.id,
                                                         db.PoolEntry.control_id.is_(None))
                              .options(selectinload(db.PoolEntry.assignments)).order_by(db.PoolEntry.id)).all()
    planned = planned_topics(session, pool.id)
    if planned is not None:  # a judging plan: only its topics go to the assessors
        entries = [e for e in entries if e.topic_id in planned]
    by_topic: dict[str, list[db.PoolEntry]] = {}
    for entry in entries:
        by_topic.setdefault(entry.topic_id, []).append(entry)
    rng = random.Random(f"{seed}:{name}")
    wanted: list[tuple[db.PoolEntry, str]] = []
    for turn, (_topic_id, items) in enumerate(sorted(by_topic.items())):
        first = assessors[turn % len(assessors)]
        second = assessors[(turn + 1) % len(assessors)]
        doubled = set(rng.sample(range(len(items)), round(overlap * len(items))))
        for i, entry in enumerate(items):
            wanted.append((entry, first))
            if i in doubled:
                wanted.append((entry, second))
    added = 0
    for assessor in assessors:
        mine = [e for e, a in wanted if a == assessor and all(x.assessor != assessor for x in e.assignments)]
        order = random.Random(f"{seed}:{name}:{assessor}")
        topics = sorted({e.topic_id for e in mine})
        order.shuffle(topics)
        start = max((x.position for e in entries for x in e.assignments if x.assessor == assessor), default=-1) + 1
        queue = []
        for topic_id in topics:
            items = [e for e in mine if e.topic_id == topic_id]
            order.shuffle(items)
            queue += items
        for position, entry in enumerate(queue, start):
            entry.assignments.append(db.Assignment(assessor=assessor, position=position))
            added += 1
    session.flush()
    return added
