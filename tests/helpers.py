"""Builders for small gold standards and runs used across the tests."""
from __future__ import annotations

from sepia.formats.model import (Answer, CCLQARun, CCLQATopic, GoldNugget, GoldStandard, GoldTopic, LangText,
                                 Metadata)


def nugget(nugget_id: str, text: str, vital: int, voters: int) -> GoldNugget:
    votes = [(f"a{i}", i < vital) for i in range(voters)]
    return GoldNugget(nugget_id, text, None, [], votes)


def gold(lang: str, *topics: GoldTopic) -> GoldStandard:
    return GoldStandard(lang, list(topics))


def topic(topic_id: str, answer_type: str, *nuggets: GoldNugget) -> GoldTopic:
    return GoldTopic(topic_id, answer_type, [LangText(topic_id.split("-")[1], "?")], list(nuggets))


def run(run_id: str, answers: dict[str, list[str]]) -> CCLQARun:
    return CCLQARun(Metadata(run_id, "test run"), [
        CCLQATopic(topic_id, [Answer(i + 1, text, []) for i, text in enumerate(texts)])
        for topic_id, texts in answers.items()])
