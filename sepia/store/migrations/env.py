"""Alembic environment: runs migrations on the engine SEPIA hands over (see sepia.store.db)."""
from alembic import context

from sepia.store.models import Base

config = context.config
engine = config.attributes.get("engine")
if engine is None:  # run from the alembic command line
    from sepia.store.db import make_engine

    engine = make_engine(config.get_main_option("sqlalchemy.url") or None)

with engine.begin() as connection:
    context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()
