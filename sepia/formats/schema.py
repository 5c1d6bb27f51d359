"""A parsed file against its format's XSD, in time linear in the file however many problems it has."""
from __future__ import annotations

from functools import lru_cache

from lxml import etree

from sepia.formats.errors import MAX_PROBLEMS, Problem, capped
from sepia.formats.xmlsafe import LoadedXml
from sepia.resources import schema_path

# lxml names the element of every schema error by counting the siblings before it, so errors on many
# siblings would cost their product: the root's children are validated this many at a time.
WINDOW = 100
# Run files begin with a METADATA: the windows after the first get this stand-in, which is valid.
STAND_IN = b"<METADATA><RUNID>STAND-IN</RUNID><DESCRIPTION/></METADATA>"
WITH_METADATA = ("qa", "ir4qa", "cclqa")


@lru_cache(maxsize=None)
def _schema(format_name: str) -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(schema_path(format_name))))


def schema_problems(loaded: LoadedXml, format_name: str) -> list[Problem]:
    """Every way the file breaks its schema (none: it is valid), the first MAX_PROBLEMS of them
    placed and the rest counted."""
    found, total = _errors(loaded.root, format_name)
    return capped([_problem(loaded, entry, element, format_name) for entry, element in found],
                  "schema problems", total)


def _errors(root: etree._Element, format_name: str) -> tuple[list[tuple], int]:
    """The first MAX_PROBLEMS + 1 errors, each with its element (None when not found), and how many
    errors there are in all."""
    schema, found = _schema(format_name), []
    children = list(root)
    if len(children) <= WINDOW + 1:  # no more than a window holds (its topics and the stand-in)
        return found, _validate(schema, root, found)
    attributes = dict(root.attrib)
    stand_in = [etree.fromstring(STAND_IN)] if format_name in WITH_METADATA else []
    total = 0
    try:
        for start in range(0, len(children), WINDOW):
            root[:] = (stand_in if start else []) + children[start:start + WINDOW]
            total += _validate(schema, root, found)
            root.attrib.clear()  # the root's own attributes are checked with the first window
    finally:
        root[:] = children
        root.attrib.update(attributes)
    return found, total


def _validate(schema: etree.XMLSchema, root: etree._Element, found: list[tuple]) -> int:
    """Validate; add the errors (with their elements) to `found` while it holds fewer than
    MAX_PROBLEMS + 1; return how many errors there were."""
    schema.validate(root)
    errors = schema.error_log
    found += [(entry, _element(root, entry)) for entry in errors[:MAX_PROBLEMS + 1 - len(found)]]
    return len(errors)


def _element(root: etree._Element, entry) -> etree._Element | None:
    try:
        found = root.getroottree().xpath(entry.path) if entry.path else []
    except etree.XPathError:  # a path with namespace prefixes the schema does not know
        return None
    return found[0] if found and isinstance(found[0], etree._Element) else None


def _problem(loaded: LoadedXml, entry, element: etree._Element | None, format_name: str) -> Problem:
    """libxml2 gives schema errors a line but no column: the element's start tag gives both."""
    line, column = loaded.position(element) if element is not None else (entry.line, max(entry.column, 1))
    return Problem(loaded.path, line, column, f"{entry.message} ({format_name} schema)")
