"""rubric_version and rubric_grade: the campaign's rubric in versions, and the assessors' grades of
each run's answer to a topic on each rubric dimension

Revision ID: 0016_r36rubric
Revises: 0015
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa


revision = '0016_r36rubric'
down_revision = '0015'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('rubric_version',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('author', sa.String(length=100), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('version')
    )
    op.create_table('rubric_grade',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('run_topic_id', sa.Integer(), nullable=False),
    sa.Column('assessor', sa.String(length=100), nullable=False),
    sa.Column('dimension', sa.String(length=40), nullable=False),
    sa.Column('grade', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['run_topic_id'], ['run_topic.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('run_topic_id', 'assessor', 'dimension', name='uq_rubric_grade')
    )
    op.create_index('ix_rubric_grade_run_topic_id', 'rubric_grade', ['run_topic_id'])
    op.create_index('ix_rubric_grade_assessor', 'rubric_grade', ['assessor'])


def downgrade() -> None:
    op.drop_index('ix_rubric_grade_assessor', table_name='rubric_grade')
    op.drop_index('ix_rubric_grade_run_topic_id', table_name='rubric_grade')
    op.drop_table('rubric_grade')
    op.drop_table('rubric_version')
