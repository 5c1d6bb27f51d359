"""Upgrading a store keeps its data: every migration since the first, applied to a store full of
topics, nuggets, votes, runs, pools and judgments, loses no row (on SQLite a careless batch
operation rebuilds a table, and dropping the old one cascades to every row that references it)."""
from __future__ import annotations

from sqlalchemy import text

from sepia.store.db import make_engine, upgrade

ROWS = [
    "INSERT INTO topic (id, lang, status, version, updated_at) VALUES ('A-CS-0001', 'CS', 'completed', 1, '2026-01-01')",
    "INSERT INTO topic_text (id, topic_id, kind, lang, text, position) VALUES (1, 'A-CS-0001', 'question', 'CS', 'q', 0)",
    "INSERT INTO answer_text (id, topic_id, docid, text, created_at) VALUES (1, 'A-CS-0001', 'D1', 'a', '2026-01-01')",
    "INSERT INTO nugget (id, topic_id, label, text, position) VALUES (1, 'A-CS-0001', 'N001', 'x', 0)",
    "INSERT INTO nugget_answer_text (nugget_id, answer_text_id) VALUES (1, 1)",
    "INSERT INTO vote (id, nugget_id, assessor, vital, created_at) VALUES (1, 1, 'a', true, '2026-01-01')",
    "INSERT INTO run (id, run_id, kind, team, source_lang, target_lang, priority, variant, description, submitted_at)"
    " VALUES (1, 'T-CS-CS-01-T', 'cclqa', 'T', 'CS', 'CS', 1, 'T', '', '2026-01-01')",
    "INSERT INTO run_topic (id, run_id, topic_id, position) VALUES (1, 1, 'A-CS-0001', 0)",
    "INSERT INTO response (id, run_topic_id, rank, text) VALUES (1, 1, 1, 'x')",
    "INSERT INTO nugget_judgment (id, response_id, nugget_id, assessor, match, created_at)"
    " VALUES (1, 1, 1, 'a', true, '2026-01-01')",
    "INSERT INTO pool (id, name, kind, depth, created_at) VALUES (1, 'p', 'cclqa', 30, '2026-01-01')",
    "INSERT INTO pool_entry (id, pool_id, topic_id, response_id) VALUES (1, 1, 'A-CS-0001', 1)",
    "INSERT INTO user_account (id, username, password_hash, role, display_name, active, created_at)"
    " VALUES (1, 'u', 'h', 'assessor', '', true, '2026-01-01')",
]
TABLES = sorted({row.split()[2] for row in ROWS})


def test_every_migration_keeps_the_rows_of_a_full_store(store_url):
    engine = make_engine(store_url)
    upgrade(engine, "0001")
    with engine.begin() as connection:
        for row in ROWS:
            connection.execute(text(row))
    upgrade(engine)
    with engine.connect() as connection:
        counts = {t: connection.execute(text(f"SELECT count(*) FROM {t}")).scalar() for t in TABLES}
    engine.dispose()
    assert counts == {t: 1 for t in TABLES}
