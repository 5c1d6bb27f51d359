"""Citation support judgments in the store (TREC RAG): for each response of a topic's CCLQA runs and
each document it cites, an assessor's full (1), partial (0.5) or no (0) support."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from sqlalchemy import delete, select, tuple_
from sqlalchemy.orm import Session

from sepia.formats.model import Judgment
from sepia.scoring.adjudication import ADJUDICATED, official
from sepia.store.models import (Assignment, Document, Pool, PoolEntry, Response, ResponseDocument, Run, RunTopic,
                                SupportJudgment, pool_member)

LEVELS = {"1": 1.0, "0.5": 0.5, "0": 0.0}  # form value -> support


@dataclass
class Citation:
    response_id: int
    text: str  # the answer sentence
    docid: str
    title: str | None  # of the cited document, None when the collection lacks it
    excerpt: str | None
    support: float | None  # this assessor's judgment, None when not yet judged


def assigned_responses(assessor: str, topic_id: str):
    """The topic's responses in the assessor's CCLQA queues (a pool entry stands for its members;
    control items are judged for nuggets only), as a subquery."""
    return (select(pool_member.c.response_id).join(PoolEntry, pool_member.c.entry_id == PoolEntry.id)
            .join(Assignment, Assignment.entry_id == PoolEntry.id).join(Pool, PoolEntry.pool_id == Pool.id)
            .where(Assignment.assessor == assessor, PoolEntry.topic_id == topic_id, Pool.kind == "cclqa",
                   PoolEntry.control_id.is_(None)))


def citations(session: Session, topic_id: str, assessor: str, excerpt_chars: int = 600,
              assigned_only: bool = False) -> list[Citation]:
    """Every (response, cited document) pair of the topic's CCLQA runs (with `assigned_only`, of the
    responses in the assessor's queues), in run and rank order, without the runs' names (assessors
    judge blind); one query for the pairs, one for their documents, one for the judgments."""
    query = (select(Response.id, Response.text, ResponseDocument.docid)
             .join(ResponseDocument, ResponseDocument.response_id == Response.id)
             .join(RunTopic, Response.run_topic_id == RunTopic.id).join(Run, RunTopic.run_id == Run.id)
             .where(RunTopic.topic_id == topic_id, Run.kind == "cclqa")
             .order_by(Run.run_id, Response.rank, ResponseDocument.position))
    if assigned_only:
        query = query.where(Response.id.in_(assigned_responses(assessor, topic_id)))
    rows = session.execute(query).all()
    docids = {docid for _, _, docid in rows}
    documents = {d.docid: (d.title, d.text[:excerpt_chars]) for d in session.execute(
        select(Document.docid, Document.title, Document.text).where(Document.docid.in_(docids)))} if docids else {}
    judged = {(r, d): s for r, d, s in session.execute(
        select(SupportJudgment.response_id, SupportJudgment.docid, SupportJudgment.support)
        .where(SupportJudgment.assessor == assessor,
               SupportJudgment.response_id.in_({r for r, _, _ in rows})))} if rows else {}
    pairs = dict.fromkeys((r, text, d) for r, text, d in rows)  # a document cited twice is judged once
    return [Citation(r, text, d, *documents.get(d, (None, None)), judged.get((r, d))) for r, text, d in pairs]


def save_support(session: Session, assessor: str, values: Mapping[tuple[int, str], float]) -> int:
    """Replace the assessor's judgments of these (response, docid) pairs; the caller commits."""
    if not values:
        return 0
    session.execute(delete(SupportJudgment).where(
        SupportJudgment.assessor == assessor,
        tuple_(SupportJudgment.response_id, SupportJudgment.docid).in_(list(values))))
    session.add_all(SupportJudgment(response_id=r, docid=d, assessor=assessor, support=v) for (r, d), v in values.items())
    session.flush()
    return len(values)


@dataclass
class SupportDispute:
    """A citation two or more assessors judged differently, and the organiser's decision if any."""
    response_id: int
    text: str
    docid: str
    by_assessor: dict[str, float]
    decided: float | None


def decisions_token(disputes: list[SupportDispute]) -> str:
    """The decisions the organiser's form showed ("" for none), sent back with it so that a decision
    another organiser made meanwhile is told, not overwritten."""
    return ",".join(sorted(f"{d.response_id}:{d.docid}:{d.decided:g}" for d in disputes if d.decided is not None))


def support_disputes(session: Session, topic_id: str) -> list[SupportDispute]:
    """The topic's disputed citations in run and rank order (adjudicated ones included, with their
    decision); one query."""
    found: dict[tuple[int, str], SupportDispute] = {}
    for response_id, text, docid, assessor, value in session.execute(
            select(Response.id, Response.text, SupportJudgment.docid, SupportJudgment.assessor, SupportJudgment.support)
            .join(Response, SupportJudgment.response_id == Response.id)
            .join(RunTopic, Response.run_topic_id == RunTopic.id).join(Run, RunTopic.run_id == Run.id)
            .where(RunTopic.topic_id == topic_id)
            .order_by(Run.run_id, Response.rank, SupportJudgment.docid, SupportJudgment.assessor)):
        item = found.setdefault((response_id, docid), SupportDispute(response_id, text, docid, {}, None))
        if assessor == ADJUDICATED:
            item.decided = value
        else:
            item.by_assessor[assessor] = value
    return [d for d in found.values() if len(set(d.by_assessor.values())) > 1]


@dataclass
class TopicSupport:
    """How far a topic's citation support is judged: for the organiser's overview."""
    topic_id: str
    citations: int = 0  # citations judged by someone
    judgments: int = 0  # the assessors' own
    disputed: int = 0
    decided: int = 0  # disputed citations the organiser decided


def support_overview(session: Session) -> list[TopicSupport]:
    """Every topic with support judgments, in topic order; one query."""
    by_citation: dict[tuple[str, int, str], dict[str, float]] = {}
    for topic_id, response_id, docid, assessor, value in session.execute(
            select(RunTopic.topic_id, SupportJudgment.response_id, SupportJudgment.docid, SupportJudgment.assessor,
                   SupportJudgment.support)
            .join(Response, SupportJudgment.response_id == Response.id)
            .join(RunTopic, Response.run_topic_id == RunTopic.id).order_by(RunTopic.topic_id)):
        by_citation.setdefault((topic_id, response_id, docid), {})[assessor] = value
    topics: dict[str, TopicSupport] = {}
    for (topic_id, _, _), values in by_citation.items():
        topic = topics.setdefault(topic_id, TopicSupport(topic_id))
        decided = values.pop(ADJUDICATED, None)
        topic.citations += 1
        topic.judgments += len(values)
        if len(set(values.values())) > 1:
            topic.disputed += 1
            topic.decided += decided is not None
    return list(topics.values())


def adjudicate_support(session: Session, values: Mapping[tuple[int, str], float]) -> int:
    """The official support of these disputed citations; the assessors' own stay as they are."""
    return save_support(session, ADJUDICATED, values)


def support_judgments(session: Session, individual: bool = False) -> list[Judgment]:
    """The support judgments that count as rows of the support TSV: where an organiser adjudicated a
    citation, that decision only; with `individual`, every assessor's own and no adjudication."""
    rows = session.execute(
        select(RunTopic.topic_id, Run.run_id, Response.rank, SupportJudgment.docid, SupportJudgment.support,
               SupportJudgment.assessor)
        .join(Response, SupportJudgment.response_id == Response.id)
        .join(RunTopic, Response.run_topic_id == RunTopic.id).join(Run, RunTopic.run_id == Run.id)
        .order_by(RunTopic.topic_id, Run.run_id, Response.rank, SupportJudgment.docid, SupportJudgment.assessor))
    judgments = [Judgment(*row) for row in rows]
    if individual:
        return [j for j in judgments if j.assessor != ADJUDICATED]
    return official(judgments, key=lambda j: (j.topic_id, j.run_id, j.answer_rank, j.nugget_id))
