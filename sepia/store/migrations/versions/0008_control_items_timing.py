"""control items (qualification), training pools, seconds per judged item

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24
"""
from alembic import op
import sqlalchemy as sa


revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('control_item',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=10), nullable=False),
    sa.Column('topic_id', sa.String(length=64), nullable=False),
    sa.Column('response_id', sa.Integer(), nullable=True),
    sa.Column('docid', sa.String(length=200), nullable=True),
    sa.Column('expected', sa.Text(), nullable=False),
    sa.Column('reason', sa.Text(), nullable=False),
    sa.Column('source', sa.String(length=200), nullable=False),
    sa.Column('created_by', sa.String(length=100), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("kind IN ('cclqa', 'ir4qa')", name='ck_control_item_kind'),
    sa.ForeignKeyConstraint(['response_id'], ['response.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('control_item', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_control_item_topic_id'), ['topic_id'], unique=False)

    op.create_table('control_answer',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('entry_id', sa.Integer(), nullable=False),
    sa.Column('control_id', sa.Integer(), nullable=False),
    sa.Column('assessor', sa.String(length=100), nullable=False),
    sa.Column('answer', sa.Text(), nullable=False),
    sa.Column('correct', sa.Boolean(), nullable=False),
    sa.Column('answered_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['control_id'], ['control_item.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['entry_id'], ['pool_entry.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('entry_id', 'assessor', name='uq_control_answer')
    )
    with op.batch_alter_table('control_answer', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_control_answer_assessor'), ['assessor'], unique=False)
        batch_op.create_index(batch_op.f('ix_control_answer_control_id'), ['control_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_control_answer_entry_id'), ['entry_id'], unique=False)

    # Not batch mode: on SQLite a batch may rebuild the table, and dropping the old pool_entry would
    # cascade to its assignments. ADD COLUMN (with an inline REFERENCES on SQLite) changes it in place.
    if op.get_bind().dialect.name == 'sqlite':
        op.execute('ALTER TABLE pool_entry ADD COLUMN control_id INTEGER REFERENCES control_item (id)')
    else:
        op.add_column('pool_entry', sa.Column('control_id', sa.Integer(), nullable=True))
        op.create_foreign_key(None, 'pool_entry', 'control_item', ['control_id'], ['id'])
    op.create_index(op.f('ix_pool_entry_control_id'), 'pool_entry', ['control_id'], unique=False)
    op.add_column('pool', sa.Column('training', sa.Boolean(), server_default=sa.false(), nullable=False))
    op.add_column('assignment', sa.Column('seconds', sa.Float(), nullable=True))


def downgrade() -> None:
    op.execute('DELETE FROM pool_entry WHERE control_id IS NOT NULL')  # control items mixed into pools
    op.drop_index(op.f('ix_pool_entry_control_id'), table_name='pool_entry')
    # Not batch mode (see upgrade): SQLite drops these columns in place.
    for table, column in (('assignment', 'seconds'), ('pool', 'training'), ('pool_entry', 'control_id')):
        if op.get_bind().dialect.name == 'sqlite':
            op.execute(f'ALTER TABLE {table} DROP COLUMN {column}')
        else:
            op.drop_column(table, column)
    op.drop_table('control_answer')
    op.drop_table('control_item')
