"""released_settings: CCLQA scoring settings whose scores organisers released to the teams beside the
default settings' (the results pages)

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa


revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('released_settings',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('settings', sa.Text(), nullable=False),
    sa.Column('label', sa.String(length=200), nullable=False),
    sa.Column('released_by', sa.String(length=100), nullable=False),
    sa.Column('released_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('settings')
    )


def downgrade() -> None:
    op.drop_table('released_settings')
