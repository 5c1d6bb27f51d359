"""Runs of every task (CCLQA, IR4QA, Question Analysis) into the campaign store and back."""
from __future__ import annotations

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session, selectinload

from sepia import vocab
from sepia.formats import model
from sepia.formats.registry import run_kind
from sepia.store import models as db
from sepia.store.bulk import insert_rows, inserted_ids
from sepia.store.db import hold
from sepia.store.errors import ImportRefused


def import_run(session: Session, run, submitted_by: str | None = None, replace: bool = False) -> db.Run:
    """Store a Question Analysis, IR4QA or CCLQA run; a run ID already stored is refused unless replace."""
    metadata = run.metadata
    parsed = vocab.parse_run_id(metadata.run_id)
    if parsed is None:
        raise ImportRefused([f"run ID {metadata.run_id!r} is not of the form TEAM-SRC-TGT-NN-X"])
    kind = run_kind(run)
    old = session.scalar(select(db.Run).where(db.Run.run_id == metadata.run_id, db.Run.kind == kind))
    if old is not None:
        if not replace:
            raise ImportRefused([f"{kind} run {metadata.run_id} is already stored (use replace to overwrite)"])
        held = _held_by(session, old.id)
        if held:
            raise ImportRefused([f"{kind} run {metadata.run_id} can no longer be replaced: its responses are held "
                                 f"by {held}, which replacing it would lose; ask the organisers"])
        session.execute(delete(db.Run).where(db.Run.id == old.id))  # the store deletes its items (ON DELETE CASCADE)
        session.expunge(old)
    row = db.Run(run_id=metadata.run_id, kind=kind, team=parsed.team, source_lang=parsed.source_lang,
                 target_lang=parsed.target_lang, priority=parsed.priority, variant=parsed.variant,
                 description=metadata.description, ir4qa_run=metadata.ir4qa_run_id, submitted_by=submitted_by)
    session.add(row)
    session.flush()
    topic_ids = inserted_ids(session, db.RunTopic, [{"run_id": row.id, "topic_id": t.topic_id, "position": i}
                                                 for i, t in enumerate(run.topics)])
    in_topics = list(zip(topic_ids, run.topics))
    if kind == "ir4qa":
        insert_rows(session, db.RetrievedDocument, ("run_topic_id", "rank", "docid", "score"),
                ((pk, d.rank, d.docid, d.score) for pk, topic in in_topics for d in topic.documents))
    elif kind == "qa":
        insert_rows(session, db.KeyTerm, ("run_topic_id", "lang", "score", "text", "position"),
                ((pk, k.lang, k.score, k.text, i) for pk, topic in in_topics for i, k in enumerate(topic.key_terms)))
        insert_rows(session, db.AnswerTypeGuess, ("run_topic_id", "answer_type", "score", "position"),
                ((pk, a.answer_type, a.score, i) for pk, topic in in_topics for i, a in enumerate(topic.answer_types)))
    else:
        answers = [a for _pk, topic in in_topics for a in topic.answers]
        response_ids = inserted_ids(session, db.Response, [{"run_topic_id": pk, "rank": a.rank, "text": a.text}
                                                         for pk, topic in in_topics for a in topic.answers])
        insert_rows(session, db.ResponseDocument, ("response_id", "docid", "position"),
                ((pk, d, i) for pk, answer in zip(response_ids, answers) for i, d in enumerate(answer.docids)))
    return row


def _held_by(session: Session, run_pk: int) -> str:
    """What the ON DELETE CASCADE of a run's responses would take with them: the pools holding them,
    judgments and control items ("" when nothing). The run is held first: a pool build holds it too."""
    hold(session, db.Run.priority, db.Run.id == run_pk)
    responses = (select(db.Response.id).join(db.RunTopic, db.Response.run_topic_id == db.RunTopic.id)
                 .where(db.RunTopic.run_id == run_pk))
    pools = session.scalars(select(db.Pool.name).join(db.PoolEntry).join(
        db.pool_member, db.pool_member.c.entry_id == db.PoolEntry.id)
        .where(db.pool_member.c.response_id.in_(responses)).distinct().order_by(db.Pool.name)).all()
    held = [f"pool{'s' if len(pools) > 1 else ''} {', '.join(pools)}"] if pools else []
    for table, what in ((db.NuggetJudgment, "nugget judgment"), (db.SupportJudgment, "support judgment"),
                        (db.ControlItem, "control item")):
        n = session.scalar(select(func.count()).select_from(table).where(table.response_id.in_(responses)))
        held += [f"{n:,} {what}{'s' if n > 1 else ''}"] if n else []
    return ", ".join(held[:-1]) + " and " + held[-1] if len(held) > 1 else "".join(held)



def export_run(session: Session, run_id: str, kind: str = "cclqa"):
    """The stored run of that kind as its exchange-format object; None when no such run."""
    row = session.scalar(select(db.Run).where(db.Run.run_id == run_id, db.Run.kind == kind).options(
        selectinload(db.Run.topics).selectinload(db.RunTopic.responses).selectinload(db.Response.docids),
        selectinload(db.Run.topics).selectinload(db.RunTopic.documents),
        selectinload(db.Run.topics).selectinload(db.RunTopic.key_terms),
        selectinload(db.Run.topics).selectinload(db.RunTopic.answer_types)))
    if row is None:
        return None
    metadata = model.Metadata(row.run_id, row.description, row.ir4qa_run)
    topics = sorted(row.topics, key=lambda t: t.position)
    if row.kind == "cclqa":
        return model.CCLQARun(metadata, [model.CCLQATopic(t.topic_id, [
            model.Answer(r.rank, r.text, [d.docid for d in sorted(r.docids, key=lambda d: d.position)])
            for r in sorted(t.responses, key=lambda r: r.rank)]) for t in topics])
    if row.kind == "ir4qa":
        return model.IR4QARun(metadata, [model.IR4QATopic(t.topic_id, [
            model.RetrievedDoc(d.rank, d.docid, d.score) for d in sorted(t.documents, key=lambda d: d.rank)])
            for t in topics])
    return model.QARun(metadata, [model.QATopic(
        t.topic_id,
        [model.KeyTerm(k.text, k.lang, k.score) for k in sorted(t.key_terms, key=lambda k: k.position)],
        [model.AnswerTypeScore(a.answer_type, a.score) for a in sorted(t.answer_types, key=lambda a: a.position)])
        for t in topics])


def run_ids(session: Session, kind: str | None = None) -> list[str]:
    query = select(db.Run.run_id).order_by(db.Run.target_lang, db.Run.run_id)
    if kind:
        query = query.where(db.Run.kind == kind)
    return list(session.scalars(query))
