"""A topic's nuggets as the nugget pages change them: added with the answer texts they come from,
edited, deleted. The callers commit (`sepia.services.writes.commit`: two people adding at once may
take the same label, an edit may meet another's)."""
from __future__ import annotations

from typing import Sequence

from sqlalchemy.orm import Session

from sepia.store.models import AnswerText, Nugget, Topic


def add_nugget(topic: Topic, label: str, text: str, username: str, answers: Sequence[AnswerText]) -> Nugget:
    """A new nugget at the end of the topic's, linked to the answer texts it comes from."""
    nugget = Nugget(topic_id=topic.id, label=label, text=text, position=len(topic.nuggets), created_by=username)
    nugget.answer_texts = list(answers)
    topic.nuggets.append(nugget)
    return nugget


def nugget_by_id(session: Session, nugget_id: int, topic_id: str | None = None) -> Nugget | None:
    """The nugget of that ID (if it is the topic's, when one is named)."""
    nugget = session.get(Nugget, nugget_id)
    return nugget if nugget is not None and topic_id in (None, nugget.topic_id) else None


def edit_nugget(nugget: Nugget, text: str, answers: Sequence[AnswerText]) -> bool:
    """Give the nugget this text and these answer texts; whether its text changed."""
    changed = text != nugget.text
    nugget.text = text
    nugget.answer_texts = list(answers)
    return changed


def delete_nugget(topic: Topic, nugget: Nugget) -> None:
    """Delete the nugget (its votes and links with it)."""
    topic.nuggets.remove(nugget)
