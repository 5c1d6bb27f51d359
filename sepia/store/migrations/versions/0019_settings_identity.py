"""evaluation_result.settings_id and released_settings.settings_id: stored scores are kept and found
by a stable identity of their settings (the SHA-256 of their values as canonical JSON,
`sepia.store.results.settings_key`), no longer by the text `Settings.describe()` shows

A CCLQA scoring's settings were kept as `Settings.describe()`, whose allowance and tokens are
sentences; their values are read back from those sentences here (`Settings.identity()` is the
description with those two as values). IR4QA's and QA's settings are values already. The functions
below are this migration's own copy of the code's, frozen as they were when it was written
(tests/test_store_settings_identity.py checks that both give the same keys).

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-28
"""
import hashlib
import json
import re

from alembic import op
import sqlalchemy as sa


revision = '0019'
down_revision = '0018'
branch_labels = None
depends_on = None

EVERY_TYPE = re.compile(r"C = (\S+) for every type$")
MEAN = "C = mean gold nugget length per language and type"
TOKENS = re.compile(r"character unigrams for CJK, words otherwise; stemming (on|off), stop words (dropped|kept), "
                    r"as a (set|bag)$")


def allowance_values(text: str) -> dict:
    """`Allowance.describe()`'s sentence as the values it was made from."""
    if found := EVERY_TYPE.match(text):
        return {"per_type": {}, "all": float(found.group(1))}
    if not text.startswith(MEAN):
        raise ValueError(text)
    per_type, everywhere = {}, None
    overrides = text.removeprefix(MEAN).removeprefix("; overrides ")
    for part in overrides.split(", ") if overrides else ():
        if part.startswith("other types "):
            everywhere = float(part.removeprefix("other types "))
        else:
            answer_type, _, c = part.partition("=")
            per_type[answer_type] = float(c)
    return {"per_type": dict(sorted(per_type.items())), "all": everywhere}


def tokens_values(text: str) -> dict:
    """The tokenizer's sentence (with ", as a set" or ", as a bag") as its values."""
    found = TOKENS.match(text)
    if found is None:
        raise ValueError(text)
    return {"stem": found.group(1) == "on", "stopwords": found.group(2) == "dropped", "as_set": found.group(3) == "set"}


def identity(kind: str, kept: str) -> dict:
    """The values of the settings a row kept as JSON: a CCLQA description with its sentences read
    back (one that cannot be read keeps its text, which still tells it from every other)."""
    values = json.loads(kept)
    if kind == "cclqa" and isinstance(values.get("allowance"), str) and isinstance(values.get("tokens"), str):
        try:
            values = {**values, "allowance": allowance_values(values["allowance"]),
                      "tokens": tokens_values(values["tokens"])}
        except ValueError:
            pass
    return values


def canonical(value):
    if isinstance(value, dict):
        return {str(k): canonical(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return value


def settings_key(values: dict) -> str:
    text = json.dumps(canonical(values), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def upgrade() -> None:
    with op.batch_alter_table('evaluation_result') as batch:
        batch.add_column(sa.Column('settings_id', sa.String(length=64), nullable=True))
    with op.batch_alter_table('released_settings') as batch:
        batch.add_column(sa.Column('settings_id', sa.String(length=64), nullable=True))
    connection = op.get_bind()
    result, run = sa.table('evaluation_result', sa.column('run_id'), sa.column('settings'), sa.column('settings_id')), \
        sa.table('run', sa.column('id'), sa.column('kind'))
    kept = connection.execute(sa.select(run.c.kind, result.c.settings).distinct()
                              .join(run, run.c.id == result.c.run_id)).all()
    for kind, settings in kept:  # one UPDATE per distinct settings and task, a handful in a campaign
        connection.execute(sa.update(result).values(settings_id=settings_key(identity(kind, settings)))
                           .where(result.c.settings == settings,
                                  result.c.run_id.in_(sa.select(run.c.id).where(run.c.kind == kind))))
    released = sa.table('released_settings', sa.column('id'), sa.column('settings'), sa.column('settings_id'))
    for pk, settings in connection.execute(sa.select(released.c.id, released.c.settings)).all():
        connection.execute(sa.update(released).values(settings_id=settings_key(identity("cclqa", settings)))
                           .where(released.c.id == pk))
    with op.batch_alter_table('evaluation_result') as batch:
        batch.alter_column('settings_id', existing_type=sa.String(length=64), nullable=False)
        batch.create_index('ix_evaluation_result_settings_id', ['settings_id'], unique=False)
    with op.batch_alter_table('released_settings') as batch:
        batch.alter_column('settings_id', existing_type=sa.String(length=64), nullable=False)
        batch.create_index('ix_released_settings_settings_id', ['settings_id'], unique=True)


def downgrade() -> None:
    with op.batch_alter_table('released_settings') as batch:
        batch.drop_index('ix_released_settings_settings_id')
        batch.drop_column('settings_id')
    with op.batch_alter_table('evaluation_result') as batch:
        batch.drop_index('ix_evaluation_result_settings_id')
        batch.drop_column('settings_id')
