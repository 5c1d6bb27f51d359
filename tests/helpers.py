"""Builders for small gold standards and runs used across the tests."""
from __future__ import annotations

from sepia.formats.model import (Answer, CCLQARun, CCLQATopic, GoldNugget, GoldStandard, GoldTopic, LangText,
                                 Metadata)
from sepia.store.models import User


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


def accounts(session, *assessors: str, organisers: tuple[str, ...] = (), inactive: tuple[str, ...] = ()) -> None:
    """Accounts to share judging work out to: active ASSESSORS; ORGANISERS and INACTIVE (deactivated
    assessors), whom it is refused to (`sepia.store.sharing.check_sharing`)."""
    session.add_all([User(username=n, password_hash="x", role="assessor") for n in assessors]
                    + [User(username=n, password_hash="x", role="organiser") for n in organisers]
                    + [User(username=n, password_hash="x", role="assessor", active=False) for n in inactive])
    session.flush()
