"""The DOCID lookup that `sepia validate`, `sepia qa` and `sepia import` hand the file checks: the
configured store's collections. A store is opened only when a file cites documents and one exists
(validation never creates one), so checking a file loads no database library otherwise."""
from __future__ import annotations

import os

from sepia import config


def store_is_configured() -> bool:
    """A store to ask exists already: validation never creates one."""
    if os.environ.get("SEPIA_DATABASE_URL"):
        return True
    return (config.home_path() / "sepia.db").exists()


def missing_in_configured_store(lang: str | None, docids: list[str]) -> set[str]:
    """`sepia.formats.docids.MissingDocuments` over the configured store; nothing without one."""
    if not store_is_configured():
        return set()
    from sepia.services.documents import missing_in  # the store's modules, only when there is one to ask
    from sepia.store.db import Store

    store = Store(config.database_url())
    try:
        with store.transaction() as session:
            return missing_in(session)(lang, docids)
    finally:
        store.dispose()
