"""Nugget suggestions for a stored topic: its question and saved answer passages, handed to the LLM
(sepia.llm.nuggetize) with the llm matcher's options. Nothing is stored: the nugget creator
accepts, edits or discards each suggestion."""
from __future__ import annotations

from typing import Mapping

from sepia.llm.assessor import Assessor, Config
from sepia.llm.nuggetize import MAX_NUGGETS, Passage, Suggestion, suggest
from sepia.store import models as db


class NoPassages(ValueError):
    """The topic is unknown, or has no saved answer passages to read."""


def topic_passages(session, topic_id: str) -> tuple[str, str, list[Passage]]:
    """(language, question, saved answer passages in the order saved) of a stored topic."""
    topic = session.get(db.Topic, topic_id)
    if topic is None:
        raise NoPassages(f"the store has no topic {topic_id}")
    passages = [Passage(a.docid, a.text) for a in topic.answer_texts]
    if not passages:
        raise NoPassages(f"topic {topic_id} has no saved answer passages to suggest nuggets from")
    question = topic.text_of("question", topic.lang) or topic.text_of("question", "EN") or ""
    return topic.lang, question, passages


def suggestions(store, topic_id: str, options: Mapping[str, str], most: int = MAX_NUGGETS) -> tuple[list[Suggestion], Assessor]:
    """The model's suggestions for a stored topic; ValueError (one line) for bad options, a server that
    cannot be used, a topic without passages."""
    with store.transaction() as session:
        lang, question, passages = topic_passages(session, topic_id)
    assessor = Assessor(Config.parse(options)).identify()
    return suggest(assessor, lang, question, passages, most), assessor
