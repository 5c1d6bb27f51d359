"""judging_plan.unit and plan_nugget: item-level judging plans, which sample nuggets within every
topic (the topics all planned, with probability 1) instead of whole topics

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-25
"""
from alembic import op
import sqlalchemy as sa


revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('judging_plan') as batch:
        batch.add_column(sa.Column('unit', sa.String(length=10), server_default='topics', nullable=False))
        batch.create_check_constraint('ck_judging_plan_unit', "unit IN ('topics', 'items')")
    op.create_table('plan_nugget',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('plan_id', sa.Integer(), nullable=False),
    sa.Column('topic_id', sa.String(length=64), nullable=False),
    sa.Column('label', sa.String(length=64), nullable=False),
    sa.Column('probability', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['plan_id'], ['judging_plan.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('plan_id', 'topic_id', 'label', name='uq_plan_nugget')
    )
    op.create_index('ix_plan_nugget_plan_id', 'plan_nugget', ['plan_id'])


def downgrade() -> None:
    op.drop_index('ix_plan_nugget_plan_id', table_name='plan_nugget')
    op.drop_table('plan_nugget')
    with op.batch_alter_table('judging_plan') as batch:
        batch.drop_constraint('ck_judging_plan_unit', type_='check')
        batch.drop_column('unit')
