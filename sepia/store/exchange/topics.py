"""Topic sets into the campaign store and back (`TOPIC_SET`), in the caller's transaction."""
from __future__ import annotations

from typing import Iterable

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from sepia import vocab
from sepia.formats import model
from sepia.store import models as db
from sepia.store.bulk import CHUNK
from sepia.store.errors import ImportRefused


def topic_lang(topic_id: str, fallback: str | None) -> str:
    return vocab.topic_language(topic_id) or fallback or "EN"


def _existing_topics(session: Session, ids: Iterable[str]) -> dict[str, db.Topic]:
    ids = list(ids)
    found: dict[str, db.Topic] = {}
    for i in range(0, len(ids), CHUNK):
        found.update((t.id, t) for t in session.scalars(
            select(db.Topic).where(db.Topic.id.in_(ids[i:i + CHUNK])).options(
                selectinload(db.Topic.texts), selectinload(db.Topic.nuggets))))
    return found


def import_topics(session: Session, topic_set: model.TopicSet, replace: bool = False) -> int:
    """Add the topics (or, with replace, overwrite those that exist). Returns how many were written."""
    existing = _existing_topics(session, [t.topic_id for t in topic_set.topics])
    if existing and not replace:
        raise ImportRefused([f"topic {t} already exists (use replace to overwrite)" for t in existing])
    for topic in topic_set.topics:
        row = existing.get(topic.topic_id) or db.Topic(id=topic.topic_id)
        row.lang = topic_lang(topic.topic_id, topic_set.lang)
        row.answer_type = topic.answer_type
        row.status = topic.status or "in_progress"
        row.memo = topic.memo
        row.texts = [db.TopicText(kind="question", lang=q.lang, text=q.text, position=i)
                     for i, q in enumerate(topic.questions)]
        after = [("narrative", t) for t in topic.narratives] + [("key_term", t) for t in topic.key_terms]
        row.texts += [db.TopicText(kind=kind, lang=t.lang, text=t.text, position=len(topic.questions) + i)
                      for i, (kind, t) in enumerate(after)]
        session.add(row)
    session.flush()
    return len(topic_set.topics)


def of_topics(query, lang: str | None, topic_ids: Iterable[str] | None):
    """A query of topics narrowed to one language and to the IDs named, when given."""
    if lang:
        query = query.where(db.Topic.lang == lang)
    if topic_ids is not None:
        query = query.where(db.Topic.id.in_(list(topic_ids)))
    return query


def export_topics(session: Session, lang: str | None = None, topic_ids: Iterable[str] | None = None,
                  questions_only: bool = False) -> model.TopicSet:
    """The stored topics as a topic set. `questions_only` is what participants receive: the questions,
    nothing a run is scored against or that helps answer them (answer type, narratives, key terms,
    status, memo)."""
    query = select(db.Topic).options(selectinload(db.Topic.texts)).order_by(db.Topic.id)
    topics = []
    for row in session.scalars(of_topics(query, lang, topic_ids)):
        texts = sorted(row.texts, key=lambda t: t.position)
        questions = [model.LangText(t.lang, t.text) for t in texts if t.kind == "question"]
        if questions_only:
            topics.append(model.Topic(row.id, questions))
            continue
        of_kind = {kind: [model.LangText(t.lang, t.text) for t in texts if t.kind == kind]
                   for kind in ("narrative", "key_term")}
        topics.append(model.Topic(row.id, questions, of_kind["narrative"], row.answer_type, row.status, row.memo,
                                  of_kind["key_term"]))
    return model.TopicSet(topics, lang)
