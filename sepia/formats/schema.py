"""A parsed file against its format's XSD, in time linear in the file however many problems it has."""
from __future__ import annotations

from functools import lru_cache
from itertools import islice

from lxml import etree

from sepia.formats import registry
from sepia.formats.errors import MAX_PROBLEMS, Problem, capped
from sepia.formats.xmlsafe import LoadedXml

# lxml names the element of every schema error by counting the siblings before it, so errors on many
# siblings would cost their product: the root's children are validated this many at a time.
WINDOW = 100
# Below the root no element may hold more children than this (docs/spec.md's limit of 1,000 documents a
# topic, for every element): the excess is reported, not validated, so that an error costs at most
# this many siblings' count whatever the file.
MAX_CHILDREN = 1000
# Run files begin with a METADATA: the windows after the first get this stand-in, which is valid.
STAND_IN = b"<METADATA><RUNID>STAND-IN</RUNID><DESCRIPTION/></METADATA>"
XS = "http://www.w3.org/2001/XMLSchema"


@lru_cache(maxsize=None)
def _schema(format_name: str) -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(registry.named(format_name).schema)))


@lru_cache(maxsize=None)
def _repeating_parents(format_name: str) -> tuple[str, ...]:
    """The elements whose content lets a child repeat without bound: the only places where many
    siblings can each have an error (after a child it does not expect, libxml2 checks no more
    siblings)."""
    element = f"{{{XS}}}element"
    names = set()
    for declared in etree.parse(str(registry.named(format_name).schema)).iter(element):
        parent = next(declared.iterancestors(element), None)
        if declared.get("maxOccurs") == "unbounded" and parent is not None:
            names.add(parent.get("name"))
    return tuple(sorted(names))


def schema_problems(loaded: LoadedXml, format_name: str) -> list[Problem]:
    """Every way the file breaks its schema (none: it is valid), the first MAX_PROBLEMS of them
    placed and the rest counted; and each element with more than MAX_CHILDREN children, whose
    excess is left out of the validation."""
    crowded = _crowded(loaded.root, format_name)
    whole = [(parent, list(parent)) for parent, _first, _count in crowded]
    for (parent, children), (_parent, first, _count) in zip(whole, crowded):
        parent[:] = _validated_part(children, children.index(first))
    try:
        found, total = _errors(loaded.root, format_name)
    finally:
        for parent, children in whole:
            parent[:] = children
    too_many = [Problem(loaded.path, *loaded.position(first),
                        f"{count:,} elements in one {parent.tag}, more than the {MAX_CHILDREN:,} allowed (of those "
                        "beyond, only the first of each name not seen before is checked against the schema)")
                for parent, first, count in crowded]
    return too_many + capped([_problem(loaded, entry, element, format_name) for entry, element in found],
                             "schema problems", total)


def _validated_part(children: list, cut: int) -> list:
    """The children validated of a parent with too many: those before `cut`, and after it the first
    of each name not seen before it, so that a content model of several groups in order (KEY_TERM*
    then ANSWER_TYPE+) still finds each of its groups."""
    seen = {child.tag for child in children[:cut]}
    kept = children[:cut]
    for child in children[cut:]:
        if child.tag not in seen:
            seen.add(child.tag)
            kept.append(child)
    return kept


def _crowded(root: etree._Element, format_name: str) -> list[tuple[etree._Element, etree._Element, int]]:
    """(parent, its first child element beyond MAX_CHILDREN, how many child elements it has) of every
    element below the root with more than MAX_CHILDREN child elements (comments do not count)."""
    found = []
    for parent in root.iter(*_repeating_parents(format_name)):
        if len(parent) > MAX_CHILDREN and parent is not root:
            beyond = list(islice(parent.iterchildren(etree.Element), MAX_CHILDREN, None))
            if beyond:
                found.append((parent, beyond[0], MAX_CHILDREN + len(beyond)))
    return found


def _errors(root: etree._Element, format_name: str) -> tuple[list[tuple], int]:
    """The first MAX_PROBLEMS + 1 errors, each with its element (None when not found), and how many
    errors there are in all."""
    schema, found = _schema(format_name), list[tuple]()
    children = list(root)
    if len(children) <= WINDOW + 1:  # no more than a window holds (its topics and the stand-in)
        return found, _validate(schema, root, found)
    attributes = dict(root.attrib)
    stand_in = [etree.fromstring(STAND_IN)] if format_name in registry.run_names() else []
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
