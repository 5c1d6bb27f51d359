"""The topics as the topic developers' pages read and change them: a topic with what a page needs
loaded, the lists with their counts, removing a topic, and its answer texts."""
from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session, joinedload, selectinload

from sepia.services.topic_edit import Passage, check_passage
from sepia.store.db import hold
from sepia.store.models import AnswerText, Nugget, Topic
from sepia.store.topic_view import TopicView, read_lang, read_topic
from sepia.vocab import TOPIC_COMPLETED

# What the views that change a topic load with it, in a few queries (never one per nugget or vote).
# The texts come in the topic's own query (a join); each collection below them in one query more.
VOTING = (joinedload(Topic.texts), selectinload(Topic.nuggets).selectinload(Nugget.votes))
NUGGETS = (joinedload(Topic.texts), selectinload(Topic.answer_texts),
           selectinload(Topic.nuggets).options(selectinload(Nugget.votes), selectinload(Nugget.sources),
                                               selectinload(Nugget.answer_texts)))
EVERYTHING = (*NUGGETS, selectinload(Topic.answer_texts).selectinload(AnswerText.nuggets))


def load_topic(session: Session, topic_id: str, loaded=EVERYTHING) -> Topic | None:
    """The topic, to change, with what `loaded` names already loaded; None when there is none."""
    return session.scalar(select(Topic).where(Topic.id == topic_id).options(*loaded))


def read_topic_view(session: Session, topic_id: str, **parts: bool) -> TopicView | None:
    """The topic as a page shows it, with the parts `sepia.store.topic_view.read_topic` names."""
    return read_topic(session.connection(), topic_id, **parts)


def read_topic_lang(session: Session, topic_id: str):
    """The topic's ID and language (`read_lang`), all a search pane needs; None when there is none."""
    return read_lang(session.connection(), topic_id)


def reread(session: Session, topic: Topic) -> Topic:
    """The topic as the store has it now (another request may have saved it)."""
    session.refresh(topic)
    return topic


def topic_by_id(session: Session, topic_id: str) -> Topic | None:
    return session.get(Topic, topic_id)


def hold_topic(session: Session, topic_id: str) -> None:
    """Lock the topic's row till the transaction ends: a second organiser deciding the same topic
    waits, then sees what the first decided."""
    hold(session, Topic.retired, Topic.id == topic_id)


def topic_rows(session: Session, lang: str | None = None, completed_only: bool = False) -> list[dict]:
    """The topics with their counts of answer texts and nuggets, for the lists of every screen."""
    answers = dict(session.execute(select(AnswerText.topic_id, func.count()).group_by(AnswerText.topic_id)).all())
    nuggets = dict(session.execute(select(Nugget.topic_id, func.count()).group_by(Nugget.topic_id)).all())
    query = select(Topic).where(Topic.retired.is_(False)).options(selectinload(Topic.texts)).order_by(Topic.lang, Topic.id)
    if lang:
        query = query.where(Topic.lang == lang)
    if completed_only:
        query = query.where(Topic.status == TOPIC_COMPLETED)
    rows = []
    for topic in session.scalars(query):
        question = topic.text_of("question", topic.lang) or topic.text_of("question", "EN") or ""
        rows.append({"topic": topic, "question": question,
                     "answers": answers.get(topic.id, 0), "nuggets": nuggets.get(topic.id, 0)})
    return rows


def remove_topic(session: Session, topic: Topic) -> bool:
    """Delete a topic nobody has built on yet, or retire one with nuggets (they and their votes
    stay); whether it was retired. The caller commits."""
    if topic.nuggets:
        topic.retired = True
        return True
    session.delete(topic)
    return False


def add_answer_text(session: Session, topic: Topic, passage: Passage, username: str) -> AnswerText:
    """Save a passage of a document as an answer text of the topic (`check_passage` first); the
    caller commits."""
    answer = check_passage(session, topic, passage)
    answer.created_by = username
    session.add(answer)
    return answer


def answer_text(session: Session, topic_id: str, answer_id: int) -> AnswerText | None:
    """The answer text of that ID, if it is the topic's."""
    answer = session.get(AnswerText, answer_id)
    return answer if answer is not None and answer.topic_id == topic_id else None


def delete_answer_text(session: Session, answer: AnswerText) -> int:
    """Delete an answer text; how many nuggets it was linked to (they keep their text). The caller
    commits."""
    linked = len(answer.nuggets)
    session.delete(answer)
    return linked
