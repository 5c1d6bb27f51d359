"""support_judgment: TREC RAG's citation support, per response, cited document and assessor

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24
"""
from alembic import op
import sqlalchemy as sa


revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('support_judgment',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('response_id', sa.Integer(), nullable=False),
    sa.Column('docid', sa.String(length=200), nullable=False),
    sa.Column('assessor', sa.String(length=100), nullable=False),
    sa.Column('support', sa.Float(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['response_id'], ['response.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('response_id', 'docid', 'assessor', name='uq_support_judgment')
    )
    with op.batch_alter_table('support_judgment', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_support_judgment_response_id'), ['response_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('support_judgment', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_support_judgment_response_id'))
    op.drop_table('support_judgment')
