"""Warn about documents a file cites that a collection does not hold. The check is handed its lookup
(the store's is in sepia.services.documents): the formats never open a store."""
from __future__ import annotations

from typing import Protocol

from sepia.formats.errors import MAX_PROBLEMS, Problem, capped
from sepia.formats.registry import format_of
from sepia.formats.xmlsafe import LoadedXml


class MissingDocuments(Protocol):
    def __call__(self, lang: str | None, docids: list[str]) -> set[str]:
        """The DOCIDs among `docids` that the collection of `lang` (of any language, when None) lacks;
        none when there is no such collection to compare with."""


def cited_docids(obj) -> tuple[str | None, list[str]]:
    """The collection language a file cites documents of, and those DOCIDs in file order."""
    kind = format_of(obj)
    return kind.cited(obj) if kind is not None and kind.cited is not None else (None, [])


def unknown_docid_warnings(loaded: LoadedXml, obj, missing: MissingDocuments | None = None) -> list[Problem]:
    """One warning per DOCID that `missing` says the collection of the file's language lacks; none
    without a lookup."""
    lang, docids = cited_docids(obj)
    return _warnings(loaded, lang, docids, missing)


def unknown_docid_warnings_in_tree(loaded: LoadedXml, lang: str | None,
                                   missing: MissingDocuments | None = None) -> list[Problem]:
    """The same warnings for a file that could not be read as its format (a refused run lists them
    beside its errors): the DOCIDs its elements name, looked up in the collection of `lang`."""
    docids = list(dict.fromkeys(docid for docid, _element, _of in _citations(loaded)))
    return _warnings(loaded, lang, docids, missing)


def _warnings(loaded: LoadedXml, lang: str | None, docids: list[str],
              missing: MissingDocuments | None) -> list[Problem]:
    if missing is None or not docids:
        return []
    absent = missing(lang, docids)
    if not absent:
        return []
    collection = f"the {lang} collection" if lang else "the collections"
    cited = list(_first_citations(loaded, absent).items())  # in file order: place only those shown
    return capped([loaded.problem(element, f"document {docid} is not in {collection}", "warning", of)
                   for docid, (element, of) in cited[:MAX_PROBLEMS + 1]], "unknown documents", len(cited))


def _first_citations(loaded: LoadedXml, docids: set[str]) -> dict[str, tuple]:
    """Where each of `docids` is cited first: the element, and the attribute or text that names it."""
    first: dict[str, tuple] = {}
    for docid, element, of in _citations(loaded):
        if docid in docids and docid not in first:
            first[docid] = element, of
    return first


def _citations(loaded: LoadedXml):
    """(DOCID, element, the attribute or text naming it) of every citation, in file order."""
    for element in loaded.root.iter("DOCUMENT", "SOURCE", "DOCID"):
        of = "#text" if element.tag == "DOCID" else "DOCID"
        docid = (element.text or "").strip() if of == "#text" else element.get("DOCID", "")
        if docid:
            yield docid, element, of
