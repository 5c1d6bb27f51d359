"""Which topics of a topic set go out to the teams: the completed ones that have a question. A topic
still in development (or one reopened after it joined the set) stays in the store and out of the
topics file, which therefore always validates as a topic file."""
from __future__ import annotations

from sqlalchemy import and_, not_, select
from sqlalchemy.orm import Session

from sepia.formats.write import to_xml
from sepia.store.exchange.topics import export_topics
from sepia.store.models import Topic, TopicText
from sepia.vocab import TOPIC_COMPLETED

RELEASABLE = and_(Topic.status == TOPIC_COMPLETED, Topic.texts.any(TopicText.kind == "question"))


def split_releasable(session: Session, topic_ids: list[str]) -> tuple[list[str], list[str]]:
    """`topic_ids` as (completed with a question, the others), each sorted."""
    ready = set(session.scalars(select(Topic.id).where(Topic.id.in_(topic_ids), RELEASABLE)))
    return sorted(ready), sorted(set(topic_ids) - ready)


def unfinished(session: Session) -> dict[int | None, list[str]]:
    """Each topic set's topics that its topics file leaves out."""
    found: dict[int | None, list[str]] = {}
    for topic_id, set_id in session.execute(select(Topic.id, Topic.topic_set_id).where(
            Topic.topic_set_id.is_not(None), not_(RELEASABLE)).order_by(Topic.id)):
        found.setdefault(set_id, []).append(topic_id)
    return found


def topics_file(session: Session, set_id: int) -> bytes:
    """The topics file the teams download: the questions of the set's releasable topics."""
    ids = session.scalars(select(Topic.id).where(Topic.topic_set_id == set_id, RELEASABLE).order_by(Topic.id))
    return to_xml(export_topics(session, topic_ids=list(ids), questions_only=True))


def named(topic_ids: list[str], most: int = 10) -> str:
    """IDs for a message: the first `most`, then how many more."""
    more = len(topic_ids) - most
    return ", ".join(topic_ids[:most]) + (f" and {more} more" if more > 0 else "")
