"""topic key terms: topic_text rows of kind key_term (gold key terms for Question Analysis runs)

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23
"""
from alembic import op

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None

KINDS = {'upgrade': "kind IN ('question', 'narrative', 'key_term')", 'downgrade': "kind IN ('question', 'narrative')"}


def _check(condition: str) -> None:
    # topic_text is referenced by no other table, so SQLite's batch rebuild (the only way it changes a
    # CHECK constraint) cannot cascade to other rows.
    with op.batch_alter_table('topic_text', recreate='always') as batch:
        batch.drop_constraint('ck_topic_text_kind', type_='check')
        batch.create_check_constraint('ck_topic_text_kind', condition)


def upgrade() -> None:
    _check(KINDS['upgrade'])


def downgrade() -> None:
    op.execute("DELETE FROM topic_text WHERE kind = 'key_term'")
    _check(KINDS['downgrade'])
