"""Warn about documents a file cites that the campaign store's collection does not hold."""
from __future__ import annotations

import os

from sepia import config, vocab
from sepia.formats import model
from sepia.formats.errors import Problem


def cited_docids(obj) -> tuple[str | None, list[str]]:
    """The collection language a file cites documents of, and those DOCIDs in file order."""
    if isinstance(obj, model.CCLQARun):
        docids = [d for t in obj.topics for a in t.answers for d in a.docids]
    elif isinstance(obj, model.IR4QARun):
        docids = [d.docid for t in obj.topics for d in t.documents]
    elif isinstance(obj, model.GoldStandard):
        return obj.lang, [d for t in obj.topics for n in t.nuggets for d in n.sources]
    else:
        return None, []
    parsed = vocab.parse_run_id(obj.metadata.run_id)
    return (parsed.target_lang if parsed else None), docids


def store_is_configured() -> bool:
    """A store to ask exists already: validation never creates one."""
    if os.environ.get("SEPIA_DATABASE_URL"):
        return True
    return (config.home_path() / "sepia.db").exists()


def unknown_docid_warnings(path: str, data: bytes, obj) -> list[Problem]:
    """One warning per DOCID the store's collection of that language lacks (none when it has no such
    collection: then nothing can be said)."""
    lang, docids = cited_docids(obj)
    if not docids or not store_is_configured():
        return []
    from sepia.corpus.lookup import document_counts, missing_docids
    from sepia.store.db import Store

    store = Store(config.database_url())
    try:
        with store.transaction() as session:
            counts = document_counts(session)
            if (lang and not counts.get(lang)) or not counts:
                return []
            missing = missing_docids(session, docids)
    finally:
        store.dispose()
    collection = f"the {lang} collection" if lang else "the collections"
    return [Problem(path, *_position(data, docid), f"document {docid} is not in {collection}", "warning")
            for docid in dict.fromkeys(d for d in docids if d in missing)]


def _position(data: bytes, docid: str) -> tuple[int, int]:
    needle = docid.encode()
    for pattern in (b'"' + needle + b'"', b">" + needle + b"<"):
        offset = data.find(pattern)
        if offset >= 0:
            offset += 1
            line = data.count(b"\n", 0, offset) + 1
            return line, len(data[data.rfind(b"\n", 0, offset) + 1:offset].decode("utf-8", "replace")) + 1
    return 1, 1
