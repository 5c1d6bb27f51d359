"""submission.content becomes the last column on SQLite

SQLite builds a row's record in memory: a run file's bytes bound whole are copied twice (128 MB more
at the peak of a 64 MB run's import), and a zero blob to be written a megabyte at a time afterwards
is expanded all the same unless no column follows it. With content last, a run file is stored as
room for it (zeroblob) and then written in pieces (sepia.store.bulk.fill_large_binary). PostgreSQL
keeps its order: the rebuild would gain nothing there.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24
"""
from alembic import op

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None

BEFORE = ('id', 'run_id', 'kind', 'team', 'topic_set_id', 'filename', 'sha256', 'size', 'content', 'topics',
          'items', 'submitted_by', 'submitted_at', 'superseded_at')
AFTER = tuple(c for c in BEFORE if c != 'content') + ('content',)


def _rebuild(order: tuple[str, ...]) -> None:
    # submission is referenced by no other table, so SQLite's rebuild cannot cascade to other rows.
    if op.get_bind().dialect.name == 'sqlite':
        with op.batch_alter_table('submission', recreate='always', partial_reordering=[order]):
            pass


def upgrade() -> None:
    _rebuild(AFTER)


def downgrade() -> None:
    _rebuild(BEFORE)
