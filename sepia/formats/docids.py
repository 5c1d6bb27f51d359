"""Warn about documents a file cites that the campaign store's collection does not hold."""
from __future__ import annotations

import os

from sepia import config, vocab
from sepia.formats import model
from sepia.formats.errors import MAX_PROBLEMS, Problem, capped
from sepia.formats.xmlsafe import LoadedXml


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


def unknown_docid_warnings(loaded: LoadedXml, obj, session=None) -> list[Problem]:
    """One warning per DOCID the store's collection of that language lacks (none when it has no such
    collection: then nothing can be said). The store is `session`'s, else the configured one."""
    lang, docids = cited_docids(obj)
    if not docids:
        return []
    if session is not None:
        missing = _missing(session, lang, docids)
    elif not store_is_configured():
        return []
    else:
        from sepia.store.db import Store

        store = Store(config.database_url())
        try:
            with store.transaction() as own:
                missing = _missing(own, lang, docids)
        finally:
            store.dispose()
    if not missing:
        return []
    collection = f"the {lang} collection" if lang else "the collections"
    cited = list(_first_citations(loaded, missing).items())  # in file order: place only those shown
    return capped([loaded.problem(element, f"document {docid} is not in {collection}", "warning", of)
                   for docid, (element, of) in cited[:MAX_PROBLEMS + 1]], "unknown documents", len(cited))


def _missing(session, lang: str | None, docids: list[str]) -> set[str]:
    from sepia.corpus.lookup import document_counts, missing_docids

    counts = document_counts(session)
    if (lang and not counts.get(lang)) or not counts:
        return set()
    return missing_docids(session, docids)  # one query per few hundred DOCIDs


def _first_citations(loaded: LoadedXml, docids: set[str]) -> dict[str, tuple]:
    """Where each of `docids` is cited first: the element, and the attribute or text that names it."""
    first: dict[str, tuple] = {}
    for element in loaded.root.iter("DOCUMENT", "SOURCE", "DOCID"):
        of = "#text" if element.tag == "DOCID" else "DOCID"
        docid = (element.text or "").strip() if of == "#text" else element.get("DOCID", "")
        if docid in docids and docid not in first:
            first[docid] = element, of
    return first
