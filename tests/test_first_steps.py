"""The organiser's first steps read from the store in one query, on SQLite and PostgreSQL: each
step ticked once the store shows it done, and no list once a topic exists."""
from __future__ import annotations

from sepia.store.models import Document, Topic, User
from sepia.services.first_steps import first_steps


def test_first_steps_follow_what_the_store_holds(store):
    with store.transaction() as session:
        assert [s.done for s in first_steps(session)] == [False] * 7
        session.add_all([User(username="org", password_hash="x", role="organiser"),
                         Document(docid="D1", lang="CS", text="文本")])
    with store.transaction() as session:
        assert [s.done for s in first_steps(session)][:2] == [True, False]  # the organiser alone is no team
        session.add(User(username="as1", password_hash="x", role="assessor"))
    with store.transaction() as session:
        assert [s.done for s in first_steps(session)][:3] == [True, True, False]
        session.add(Topic(id="SEPIA-CS-0001", lang="CS"))
    with store.transaction() as session:
        assert first_steps(session) is None
