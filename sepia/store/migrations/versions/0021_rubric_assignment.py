"""rubric_assignment: the organiser may share the rubric answers out to assessors (topic by topic,
some graded twice) as pool items are; while none is assigned, every assessor grades every answer

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa


revision = '0021'
down_revision = '0020'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('rubric_assignment',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('run_topic_id', sa.Integer(), nullable=False),
    sa.Column('assessor', sa.String(length=100), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['run_topic_id'], ['run_topic.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('run_topic_id', 'assessor', name='uq_rubric_assignment')
    )
    op.create_index('ix_rubric_assignment_run_topic_id', 'rubric_assignment', ['run_topic_id'])
    op.create_index('ix_rubric_assignment_assessor', 'rubric_assignment', ['assessor'])


def downgrade() -> None:
    op.drop_index('ix_rubric_assignment_assessor', table_name='rubric_assignment')
    op.drop_index('ix_rubric_assignment_run_topic_id', table_name='rubric_assignment')
    op.drop_table('rubric_assignment')
