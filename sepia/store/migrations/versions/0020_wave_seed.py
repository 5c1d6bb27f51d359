"""judging_plan.wave_seed and wave_expected: an item-level plan's active wave (wave 1) is stored with
the seed it was drawn with and the number of pairs it was asked to expect, so that the draw can be
told and repeated (before, both were printed once and lost)

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-28
"""
from alembic import op
import sqlalchemy as sa


revision = '0020'
down_revision = '0019'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('judging_plan') as batch:
        batch.add_column(sa.Column('wave_seed', sa.Integer(), nullable=True))
        batch.add_column(sa.Column('wave_expected', sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('judging_plan') as batch:
        batch.drop_column('wave_expected')
        batch.drop_column('wave_seed')
