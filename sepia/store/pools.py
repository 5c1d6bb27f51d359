"""Pools for assessment: what runs retrieved (IR4QA documents) or answered (CCLQA responses), taken
from runs by priority to a chosen depth, each item once per topic, and shared out to assessors.

A CCLQA item is a response text: responses of a topic whose normalised text (NFKC, lower case, white
space folded) is the same are one item, judged once, and the judgment holds for every run that
returned it (TREC RAG 2024's own data has 53 such duplicates among 927 answers, judged
inconsistently)."""
from __future__ import annotations

import random
import secrets
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

from sqlalchemy import func, literal, select
from sqlalchemy.orm import Session, selectinload

from sepia.text.tokenize import normalize
from sepia.store import models as db
from sepia.store.db import hold
from sepia.store.bulk import BATCH, insert_rows, inserted_ids
from sepia.store.errors import ImportRefused
from sepia.store.planned import planned_entries, planned_topics

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
    pool = db.Pool(name=name, kind=kind, depth=depth, max_priority=max_priority, lang=lang,
                   priorities=",".join(map(str, wanted)) or None)
    session.add(pool)
    session.flush()
    runs = select(db.Run.id).where(db.Run.kind == kind)
    if max_priority is not None:
        runs = runs.where(db.Run.priority <= max_priority)
    if wanted:
        runs = runs.where(db.Run.priority.in_(wanted))
    if lang:
        runs = runs.where(db.Run.target_lang == lang)
    if not _store_items(session, pool.id, kind, _pooled(session, kind, runs, depth)):
        # nothing for anyone to judge: a mistake of language, task or priorities
        among = " ".join(filter(None, [lang, kind.upper(), "run", f"of priority {pool.priorities}" if wanted else ""]))
        raise ImportRefused([f"pool {name} would be empty: no stored {among} has a topic to pool"])
    if old is not None:  # only now: SQLite gives a new row the highest ID + 1, which was the old pool's
        session.delete(old)
        session.flush()
    return pool


def _pooled(session: Session, kind: str, runs, depth: int) -> Iterator[tuple[str, str, int | None]]:
    """(topic_id, item key, response_id) of the top `depth` responses (CCLQA; docid as key and None for
    IR4QA) of each topic of the `runs`, topic by topic, then by run priority and run ID, then rank;
    retired topics left out. Streamed from the database: memory does not grow with the runs."""
    ranked: Any  # a mapped class, and two of its columns
    key: Any
    member: Any
    if kind == "ir4qa":
        ranked, key, member = db.RetrievedDocument, db.RetrievedDocument.docid, literal(None)
    else:
        ranked, key, member = db.Response, db.Response.text, db.Response.id
    top = (select(db.RunTopic.topic_id, key.label("key"), member.label("member"), db.Run.priority, db.Run.run_id,
                  ranked.rank, func.row_number().over(partition_by=ranked.run_topic_id, order_by=ranked.rank)
                  .label("n"))
           .join(db.RunTopic, ranked.run_topic_id == db.RunTopic.id).join(db.Run)
           .where(db.Run.id.in_(runs),
                  db.RunTopic.topic_id.not_in(select(db.Topic.id).where(db.Topic.retired.is_(True))))
           .subquery())
    rows = session.execute(select(top.c.topic_id, top.c.key, top.c.member).where(top.c.n <= depth)
                           .order_by(top.c.topic_id, top.c.priority, top.c.run_id, top.c.rank)
                           .execution_options(yield_per=BATCH))
    for topic_id, text, member in rows:
        yield topic_id, (text if kind == "ir4qa" else item_key(text)), member


def _store_items(session: Session, pool_id: int, kind: str, pooled: Iterator[tuple[str, str, int | None]]) -> int:
    """Insert the pool's items (one per topic and key, in the order first seen) and their members,
    a batch of whole topics at a time; the number of items."""
    count = 0
    entries: list[dict] = []  # the batch's items
    members: list[tuple[int, int]] = []  # (index in entries, response_id)
    seen: dict[str, int] = {}  # the current topic's item keys -> index in entries
    current = None

    def store() -> None:
        ids = inserted_ids(session, db.PoolEntry, entries)
        insert_rows(session, db.pool_member, ("entry_id", "response_id"), ((ids[i], r) for i, r in members))
        entries.clear()
        members.clear()

    for topic_id, key, member in pooled:
        if topic_id != current:
            if len(entries) >= BATCH:
                store()
            seen, current = {}, topic_id
        index = seen.get(key)
        if index is None:
            index = seen[key] = len(entries)
            entries.append({"pool_id": pool_id, "topic_id": topic_id, "response_id": member,
                            "docid": key if kind == "ir4qa" else None})
            count += 1
        if member is not None:
            members.append((index, member))
    if entries:
        store()
    return count


class PoolSize(NamedTuple):
    items: int
    topics: int
    responses: int  # pooled responses (CCLQA items stand for one or more); 0 for IR4QA


def pool_size(session: Session, pool_id: int) -> PoolSize:
    """How many items, topics and pooled responses a pool holds (control items left out), counted
    by the database rather than by loading the pool."""
    items, topics = session.execute(select(func.count(), func.count(db.PoolEntry.topic_id.distinct()))
                                    .where(db.PoolEntry.pool_id == pool_id, db.PoolEntry.control_id.is_(None))).one()
    responses = session.scalar(select(func.count()).select_from(db.pool_member)
                               .join(db.PoolEntry, db.pool_member.c.entry_id == db.PoolEntry.id)
                               .where(db.PoolEntry.pool_id == pool_id, db.PoolEntry.control_id.is_(None)))
    return PoolSize(items, topics, responses or 0)


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
    assessor (items of a topic stay together). With a judging plan (sepia.store.plans), only its topics
    are shared out, and with an item-level plan only the items it judges some nugget of. Returns how
    many assignments were added.

    What is there counts: an item assigned to or judged by an assessor is never handed to them again; a
    topic already shared out stays with its assessors (topics added to a plan later shift the turns
    of the others, which must not move); an item held by one assessor needs nobody else, and only the
    overlap a topic still lacks (items held by two or more count towards it) is added."""
    if not assessors:
        raise ValueError("name at least one assessor")
    if not 0 <= overlap <= 1:
        raise ValueError("overlap is a share between 0 and 1")
    if overlap and len(assessors) < 2:
        raise ValueError("overlap needs at least two assessors")
    pool = get_pool(session, name)
    entries = session.scalars(select(db.PoolEntry).where(db.PoolEntry.pool_id == pool.id,
                                                         db.PoolEntry.control_id.is_(None))
                              .options(selectinload(db.PoolEntry.assignments)).order_by(db.PoolEntry.id)).all()
    holders = _holders(session, pool, entries)
    planned, judged_for = planned_topics(session, pool.id), planned_entries(session, pool.id)
    by_topic: dict[str, list[db.PoolEntry]] = {}
    for entry in entries:
        # a judging plan: only its topics go to the assessors; an item-level plan: only items it judges
        if (planned is None or entry.topic_id in planned) and (judged_for is None or entry.id in judged_for):
            by_topic.setdefault(entry.topic_id, []).append(entry)
    rng = random.Random(f"{seed}:{name}")
    wanted: list[tuple[db.PoolEntry, str]] = []
    for (_topic_id, items), (first, second) in zip(sorted(by_topic.items()),
                                                   _topic_assessors(assessors, by_topic, holders)):
        fresh = [e for e in items if not holders[e.id]]
        wanted += [(e, first) for e in fresh]
        held = [holders[e.id] or {first} for e in items]
        single = [i for i, h in enumerate(held) if len(h) == 1]
        lacking = round(overlap * len(items)) - sum(len(h) > 1 for h in held)
        for i in sorted(single[k] for k in rng.sample(range(len(single)), max(0, min(lacking, len(single))))):
            wanted.append((items[i], second if second not in held[i] else first))
    added = 0
    for assessor in assessors:
        mine = [e for e, a in wanted if a == assessor]
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


def _topic_assessors(assessors: list[str], by_topic: dict[str, list[db.PoolEntry]],
                     holders: dict[int, set[str]]) -> list[tuple[str, str]]:
    """(first, second) assessor of each topic, in topic ID order. A topic shared out already keeps the
    named assessors who hold most of its items; a topic nobody holds goes to the one with the fewest
    topics so far (in turn where they tie, as on a first assignment), its overlap to the next one."""
    topics = sorted(by_topic)
    held = {t: {a: sum(a in holders[e.id] for e in by_topic[t]) for a in assessors} for t in topics}
    chosen: dict[str, list[str]] = {}
    load = dict.fromkeys(assessors, 0)
    for t in topics:
        if any(held[t].values()):
            chosen[t] = sorted(assessors, key=lambda a: -held[t][a])  # stable: ties in the assessors' order
            load[chosen[t][0]] += 1
    for turn, t in enumerate(topics):
        if t not in chosen:
            by_turn = [assessors[(turn + k) % len(assessors)] for k in range(len(assessors))]
            first = min(by_turn, key=lambda a: load[a])
            load[first] += 1
            chosen[t] = [first, assessors[(assessors.index(first) + 1) % len(assessors)]]
    return [(chosen[t][0], chosen[t][1 % len(chosen[t])]) for t in topics]


def _holders(session: Session, pool: db.Pool, entries: Sequence[db.PoolEntry]) -> dict[int, set[str]]:
    """Entry ID -> the assessors who hold the item: assigned it, or judged it (imported judgments too;
    the organiser's adjudication is nobody's)."""
    from sepia.scoring.adjudication import ADJUDICATED

    held = {e.id: {a.assessor for a in e.assignments} for e in entries}
    if pool.kind == "cclqa":
        by_response = {e.response_id: e.id for e in entries}
        judged = session.execute(select(db.NuggetJudgment.response_id, db.NuggetJudgment.assessor).distinct()
                                 .join(db.PoolEntry, db.PoolEntry.response_id == db.NuggetJudgment.response_id)
                                 .where(db.PoolEntry.pool_id == pool.id))
        for response_id, assessor in judged:
            if response_id in by_response:
                held[by_response[response_id]].add(assessor)
    else:
        by_doc = {(e.topic_id, e.docid): e.id for e in entries}
        relevance = session.execute(select(db.RelevanceJudgment.topic_id, db.RelevanceJudgment.docid,
                                           db.RelevanceJudgment.assessor).distinct()
                                    .join(db.PoolEntry, (db.PoolEntry.topic_id == db.RelevanceJudgment.topic_id)
                                          & (db.PoolEntry.docid == db.RelevanceJudgment.docid))
                                    .where(db.PoolEntry.pool_id == pool.id))
        for topic_id, docid, assessor in relevance:
            if (topic_id, docid) in by_doc:
                held[by_doc[(topic_id, docid)]].add(assessor)
    for h in held.values():
        h.discard(ADJUDICATED)
    return held
