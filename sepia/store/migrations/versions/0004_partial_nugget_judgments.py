"""nugget_judgment.match from Boolean to Float, so a partial support (0.5) can be stored

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24

On SQLite the batch rebuild copies nugget_judgment into a new table and drops the old one. That is
safe with foreign keys on: no table references nugget_judgment, so the DROP cascades nowhere.
True/False become 1.0/0.0. Downgrading turns a 0.5 into False (the strict reading).
"""
from alembic import op
import sqlalchemy as sa


revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('nugget_judgment', schema=None) as batch_op:
        batch_op.alter_column('match', existing_type=sa.Boolean(), type_=sa.Float(),
                              existing_nullable=False,
                              postgresql_using='CASE WHEN match THEN 1.0 ELSE 0.0 END')


def downgrade() -> None:
    # SQLite's batch copy keeps values as they are, so make them 1/0 first (0.5 -> 0), on every backend.
    op.execute("UPDATE nugget_judgment SET match = CASE WHEN match >= 1 THEN 1 ELSE 0 END")
    with op.batch_alter_table('nugget_judgment', schema=None) as batch_op:
        batch_op.alter_column('match', existing_type=sa.Float(), type_=sa.Boolean(),
                              existing_nullable=False,
                              postgresql_using='match >= 1')
