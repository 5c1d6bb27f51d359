"""guideline and guideline_read: versioned guidelines for assessors per judging task, and which
assessor acknowledged which version

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa


revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('guideline',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('task', sa.String(length=20), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('author', sa.String(length=100), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('task', 'version', name='uq_guideline')
    )
    op.create_table('guideline_read',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('guideline_id', sa.Integer(), nullable=False),
    sa.Column('assessor', sa.String(length=100), nullable=False),
    sa.Column('read_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['guideline_id'], ['guideline.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('guideline_id', 'assessor', name='uq_guideline_read')
    )
    op.create_index('ix_guideline_read_guideline_id', 'guideline_read', ['guideline_id'])


def downgrade() -> None:
    op.drop_index('ix_guideline_read_guideline_id', table_name='guideline_read')
    op.drop_table('guideline_read')
    op.drop_table('guideline')
