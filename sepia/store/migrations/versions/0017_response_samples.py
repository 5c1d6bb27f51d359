"""plan_nugget.run_id and plan_nugget.wave: item-level plans that sample each response's nuggets on
its own (the run whose response judges the nugget; NULL keeps an older plan's meaning, every run's
response) and draw later waves of pairs

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa


revision = '0017'
down_revision = '0016'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('plan_nugget') as batch:
        batch.add_column(sa.Column('run_id', sa.String(length=200), nullable=True))
        batch.add_column(sa.Column('wave', sa.Integer(), server_default='0', nullable=False))
        batch.drop_constraint('uq_plan_nugget', type_='unique')
        batch.create_unique_constraint('uq_plan_nugget', ['plan_id', 'topic_id', 'run_id', 'label'])


def downgrade() -> None:
    # an older SEPIA reads one sample per topic: the per-response rows cannot be kept
    op.execute("DELETE FROM plan_nugget WHERE run_id IS NOT NULL OR wave > 0")
    with op.batch_alter_table('plan_nugget') as batch:
        batch.drop_constraint('uq_plan_nugget', type_='unique')
        batch.create_unique_constraint('uq_plan_nugget', ['plan_id', 'topic_id', 'label'])
        batch.drop_column('wave')
        batch.drop_column('run_id')
