"""Pools for assessment: what runs retrieved (IR4QA documents) or answered (CCLQA responses), taken
from runs by priority to a chosen depth, each item once per topic, and shared out to assessors.

A CCLQA item is a response text: responses of a topic whose normalised text (NFKC, lower case, white
space folded) is the same are one item, judged once, and the judgment holds for every run that
returned it (TREC RAG 2024's own data has 53 such duplicates among 927 answers, judged
inconsistently)."""
from __future__ import annotations

import random
import secrets
from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

from sqlalchemy import delete, func, literal, select
from sqlalchemy.orm import Session, selectinload

from sepia.text.tokenize import normalize
from sepia.store import models as db
from sepia.store.db import hold
from sepia.store.bulk import BATCH, insert_rows, inserted_ids
from sepia.store.errors import ImportRefused
from sepia.store.planned import planned_entries, planned_topics
from sepia.store.sharing import check_sharing, queue_order, share_out

DEFAULT_DEPTH = {"cclqa": 30, "ir4qa": 100}  # ACLIA judged up to 30 responses per run and question


def item_key(text: str) -> str:
    """What makes two responses one pool item."""
    return " ".join(normalize(text).split())


def build_pool(session: Session, name: str, kind: str, depth: int, max_priority: int | None = None,
               replace: bool = False, lang: str | None = None, priorities: Iterable[int] | None = None) -> db.Pool:
    """Pool the top `depth` documents (ir4qa) or responses (cclqa) of every run of that kind (of that
    target language; of those priorities, or of priority at most `max_priority`; all when neither),
    on every topic that is not retired. Refuses (ImportRefused) a pool that exists unless `replace`,
    and a pool that would be empty.

    The items are gathered first, by reads only, and the runs held (on SQLite, the store's one write
    lock) only for the writes: judging saves and uploads go on meanwhile. Runs changed meanwhile (one
    replaced, added or reprioritised) are gathered again under the hold, so that a pool is never
    built from responses that are gone."""
    if kind not in DEFAULT_DEPTH:
        raise ValueError(f"pool kind must be ir4qa or cclqa, not {kind!r}")
    if depth < 1:
        raise ValueError("pool depth must be at least 1")
    if not replace and session.scalar(select(db.Pool.id).where(db.Pool.name == name)) is not None:
        raise ImportRefused([f"pool {name} exists (use replace to rebuild it)"])
    wanted = sorted(set(priorities or ()))
    runs = select(db.Run.id).where(db.Run.kind == kind)
    if max_priority is not None:
        runs = runs.where(db.Run.priority <= max_priority)
    if wanted:
        runs = runs.where(db.Run.priority.in_(wanted))
    if lang:
        runs = runs.where(db.Run.target_lang == lang)
    seen = _runs_state(session, kind)
    items = _gathered(_pooled(session, kind, runs, depth))
    hold(session, db.Run.priority, db.Run.kind == kind)  # a team replacing a run waits for the pool, or the pool for it
    if _runs_state(session, kind) != seen:
        items = _gathered(_pooled(session, kind, runs, depth))
    old = session.scalar(select(db.Pool).where(db.Pool.name == name))
    if old is not None:
        if not replace:  # built meanwhile
            raise ImportRefused([f"pool {name} exists (use replace to rebuild it)"])
        old.name = f"(rebuilt) {secrets.token_hex(16)}"  # it goes once its successor has a new ID
        session.flush()
    if not items.size:
        # nothing for anyone to judge: a mistake of language, task or priorities
        among = " ".join(filter(None, [lang, kind.upper(), "run", f"of priority {','.join(map(str, wanted))}"
                                       if wanted else ""]))
        raise ImportRefused([f"pool {name} would be empty: no stored {among} has a topic to pool"])
    pool = db.Pool(name=name, kind=kind, depth=depth, max_priority=max_priority, lang=lang,
                   priorities=",".join(map(str, wanted)) or None)
    session.add(pool)
    session.flush()
    _store_items(session, pool.id, kind, items)
    if old is not None:  # only now: SQLite gives a new row the highest ID + 1, which was the old pool's
        # one statement: the database's ON DELETE CASCADE takes its items, their members, assignments
        # and control answers, and its judging plan (the ORM would load and delete them a row at a time)
        session.execute(delete(db.Pool).where(db.Pool.id == old.id))
    return pool


def _runs_state(session: Session, kind: str) -> list[tuple]:
    """What tells whether the runs of that kind changed: each one's row, run ID, priority and time of
    submission (a replaced run is a new row, submitted later, though SQLite may give it the same ID)."""
    return [tuple(row) for row in session.execute(select(db.Run.id, db.Run.run_id, db.Run.priority, db.Run.submitted_at)
                                                  .where(db.Run.kind == kind).order_by(db.Run.id))]


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


class Gathered(NamedTuple):
    """A pool's items before they are stored, compactly (a few bytes per pooled response): per topic,
    in order, how many items; each item's key (IR4QA: the docid) or first response (CCLQA); and the
    (item, response) pairs of its members."""
    topics: list[tuple[str, int]]
    keys: list[str]
    firsts: array
    members: array  # item index, response ID, item index, ...

    @property
    def size(self) -> int:
        return sum(n for _, n in self.topics)


def _gathered(pooled: Iterator[tuple[str, str, int | None]]) -> Gathered:
    """The items of the pooled rows (one per topic and key, in the order first seen) and their members."""
    items = Gathered([], [], array("q"), array("q"))
    seen: dict[str, int] = {}  # the current topic's item keys -> item index
    current = None
    for topic_id, key, member in pooled:
        if topic_id != current:
            seen, current = {}, topic_id
            items.topics.append((topic_id, 0))
        index = seen.get(key)
        if index is None:
            index = seen[key] = len(items.keys) + len(items.firsts)
            if member is None:
                items.keys.append(key)
            else:
                items.firsts.append(member)
            items.topics[-1] = (topic_id, items.topics[-1][1] + 1)
        if member is not None:
            items.members.extend((index, member))
    return items


def _store_items(session: Session, pool_id: int, kind: str, items: Gathered) -> None:
    """Insert the pool's items and their members, a batch of whole topics at a time."""
    members = iter(zip(items.members[::2], items.members[1::2]))
    pending: tuple[int, int] | None = next(members, None)
    first = 0  # the batch's first item index
    entries: list[dict] = []

    def store() -> None:
        nonlocal first, pending
        ids = inserted_ids(session, db.PoolEntry, entries)
        batch: list[tuple[int, int]] = []
        while pending is not None and pending[0] < first + len(entries):
            batch.append((ids[pending[0] - first], pending[1]))
            pending = next(members, None)
        insert_rows(session, db.pool_member, ("entry_id", "response_id"), batch)
        first += len(entries)
        entries.clear()

    index = 0
    for topic_id, count in items.topics:
        if len(entries) >= BATCH:
            store()
        for _ in range(count):
            entries.append({"pool_id": pool_id, "topic_id": topic_id,
                            "response_id": items.firsts[index] if kind == "cclqa" else None,
                            "docid": items.keys[index] if kind == "ir4qa" else None})
            index += 1
    if entries:
        store()


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
    check_sharing(session, assessors, overlap)
    pool = get_pool(session, name)
    entries = session.scalars(select(db.PoolEntry).where(db.PoolEntry.pool_id == pool.id,
                                                         db.PoolEntry.control_id.is_(None))
                              .options(selectinload(db.PoolEntry.assignments)).order_by(db.PoolEntry.id)).all()
    holders = _holders(session, pool, entries)
    planned, judged_for = planned_topics(session, pool.id), planned_entries(session, pool.id)
    by_topic: dict[str, list[int]] = {}
    for entry in entries:
        # a judging plan: only its topics go to the assessors; an item-level plan: only items it judges
        if (planned is None or entry.topic_id in planned) and (judged_for is None or entry.id in judged_for):
            by_topic.setdefault(entry.topic_id, []).append(entry.id)
    wanted = share_out(by_topic, holders, assessors, overlap, random.Random(f"{seed}:{name}"))
    by_id = {e.id: e for e in entries}
    topic_of = {e.id: e.topic_id for e in entries}
    added = 0
    for assessor in assessors:
        mine = [item for item, a in wanted if a == assessor]
        start = max((x.position for e in entries for x in e.assignments if x.assessor == assessor), default=-1) + 1
        queue = queue_order(mine, topic_of, random.Random(f"{seed}:{name}:{assessor}"))
        for position, item in enumerate(queue, start):
            by_id[item].assignments.append(db.Assignment(assessor=assessor, position=position))
            added += 1
    session.flush()
    return added


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
