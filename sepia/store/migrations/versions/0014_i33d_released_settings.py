"""released_settings: CCLQA scoring settings whose scores organisers released to the teams beside the
default settings' (the results pages)

Revision ID: 0014_i33d_released_settings
Revises: 0013
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa


revision = '0014_i33d_released_settings'
down_revision = '0013'
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
