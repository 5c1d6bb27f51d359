"""judging plans: the topics of a pool that humans judge, drawn at random with a recorded seed

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24
"""
from alembic import op
import sqlalchemy as sa

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('judging_plan',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('pool_id', sa.Integer(), nullable=False),
    sa.Column('budget', sa.String(length=20), nullable=False),
    sa.Column('strata', sa.String(length=10), nullable=False),
    sa.Column('seed', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("strata IN ('none', 'type')", name='ck_judging_plan_strata'),
    sa.ForeignKeyConstraint(['pool_id'], ['pool.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('pool_id')
    )
    op.create_table('plan_topic',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('plan_id', sa.Integer(), nullable=False),
    sa.Column('topic_id', sa.String(length=64), nullable=False),
    sa.Column('stratum', sa.String(length=40), nullable=False),
    sa.Column('draw', sa.Integer(), nullable=False),
    sa.Column('seed', sa.Integer(), nullable=False),
    sa.Column('probability', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['plan_id'], ['judging_plan.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('plan_id', 'topic_id', name='uq_plan_topic')
    )
    with op.batch_alter_table('plan_topic', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_plan_topic_plan_id'), ['plan_id'], unique=False)


def downgrade() -> None:
    op.drop_table('plan_topic')
    op.drop_table('judging_plan')
