"""What the judging screens show of an assessor's queue and of the item judged, read with a few Core
queries into plain objects that have the mapped classes' attribute names (as `topic_view` does for
topics).

Loading the item as mapped objects (assignment, entry, responses, DOCIDs: four queries through the
ORM; then the document and the level) was a third of the screens' time (tools/bench_web.py). Saving
a judgment still loads the mapped item (`sepia.store.judging.queue_item`), as it changes it; these
are for reading only.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import bindparam, select
from sqlalchemy.engine import Connection

from sepia.store.models import (Assignment, Document, Pool, PoolEntry, RelevanceJudgment, Response, ResponseDocument,
                                pool_member)

_pool, _assignment, _entry = Pool.__table__, Assignment.__table__, PoolEntry.__table__
_response, _cited, _document, _level = (Response.__table__, ResponseDocument.__table__, Document.__table__,
                                        RelevanceJudgment.__table__)

# The pool with the assessor's items of one of its topics, in their order (none: no such pool, or
# nothing of the topic in the queue).
QUEUE = (select(_pool.c.id, _pool.c.name, _pool.c.kind, _pool.c.suggest, _pool.c.training,
                _assignment.c.id, _assignment.c.skipped, _assignment.c.judged_at)
         .join(_entry, _entry.c.id == _assignment.c.entry_id).join(_pool, _pool.c.id == _entry.c.pool_id)
         .where(_assignment.c.assessor == bindparam("assessor"), _entry.c.pool_id == bindparam("pool_id"),
                _entry.c.topic_id == bindparam("topic_id"))
         .order_by(_assignment.c.position))
_ITEM = (_assignment.c.id, _assignment.c.assessor, _assignment.c.comment, _assignment.c.skipped,
         _assignment.c.judged_at, _entry.c.id, _entry.c.topic_id, _entry.c.response_id, _entry.c.docid,
         _entry.c.control_id)
_item_entry = _assignment.join(_entry, _entry.c.id == _assignment.c.entry_id)
_of_item = _assignment.c.id == bindparam("assignment_id")
ITEM = select(*_ITEM).select_from(_item_entry).where(_of_item)
# An IR4QA item with its stored document and the assessor's level of it (uq_relevance_judgment: one).
LEVEL = (select(_level.c.level).where(_level.c.topic_id == _entry.c.topic_id, _level.c.docid == _entry.c.docid,
                                      _level.c.assessor == _assignment.c.assessor).scalar_subquery())
DOCUMENT_ITEM = (select(*_ITEM, _document.c.docid, _document.c.title, _document.c.text, LEVEL)
                 .select_from(_item_entry.outerjoin(_document, _document.c.docid == _entry.c.docid)).where(_of_item))
# A CCLQA entry's responses in the order of PoolEntry.members, each with its DOCIDs in their order.
MEMBERS = (select(_response.c.id, _response.c.text, _cited.c.docid)
           .join(pool_member, pool_member.c.response_id == _response.c.id)
           .outerjoin(_cited, _cited.c.response_id == _response.c.id)
           .where(pool_member.c.entry_id == bindparam("entry_id"))
           .order_by(_response.c.id, _cited.c.position, _cited.c.id))


@dataclass(frozen=True)
class PoolView:
    id: int
    name: str
    kind: str
    suggest: bool
    training: bool


@dataclass(frozen=True)
class QueueRow:
    id: int
    skipped: bool
    judged_at: datetime | None


@dataclass(frozen=True)
class DocidView:
    docid: str


@dataclass
class MemberView:
    id: int
    text: str
    docids: list[DocidView] = field(default_factory=list)


@dataclass
class EntryView:
    id: int
    topic_id: str
    response_id: int | None
    docid: str | None
    control_id: int | None
    members: list[MemberView] = field(default_factory=list)


@dataclass(frozen=True)
class DocumentView:
    docid: str
    title: str
    text: str


@dataclass
class ItemView:
    id: int
    assessor: str
    comment: str
    skipped: bool
    judged_at: datetime | None
    entry: EntryView
    document: DocumentView | None = None  # an IR4QA item's, when stored
    level: int | None = None  # the assessor's level of an IR4QA item's document, once judged


def read_queue(connection: Connection, assessor: str, pool_id: int, topic_id: str
               ) -> tuple[PoolView | None, list[QueueRow]]:
    """The pool and the assessor's items of one of its topics, in their order, all a screen shows
    of the queue, in one query; (None, []) when there is no such pool or nothing of the topic in
    the queue (the item judged is read by `read_item`)."""
    rows = connection.execute(QUEUE, {"assessor": assessor, "pool_id": pool_id, "topic_id": topic_id}).all()
    if not rows:
        return None, []
    return PoolView(*rows[0][:5]), [QueueRow(*row[5:]) for row in rows]


def read_item(connection: Connection, assignment_id: int, kind: str) -> ItemView | None:
    """The queue's item with its entry and what its pool's `kind` judges: a CCLQA item's responses
    and their DOCIDs, an IR4QA item's document and level; None when there is no such item."""
    if kind == "ir4qa":
        row = connection.execute(DOCUMENT_ITEM, {"assignment_id": assignment_id}).first()
        if row is None:
            return None
        document = DocumentView(*row[10:13]) if row[10] is not None else None
        return ItemView(*row[:5], entry=EntryView(*row[5:10]), document=document, level=row[13])
    row = connection.execute(ITEM, {"assignment_id": assignment_id}).first()
    if row is None:
        return None
    item = ItemView(*row[:5], entry=EntryView(*row[5:]))
    by_id: dict[int, MemberView] = {}
    for response_id, text, docid in connection.execute(MEMBERS, {"entry_id": item.entry.id}):
        member = by_id.get(response_id)
        if member is None:
            member = by_id[response_id] = MemberView(response_id, text)
            item.entry.members.append(member)
        if docid is not None:
            member.docids.append(DocidView(docid))
    return item
