"""The pieces every XML format's writer builds with: elements and attributes whose text is kept exactly."""
from __future__ import annotations

import logging

from lxml import etree

from sepia.formats import model
from sepia.formats.xmlchars import describe, first_unwritable, without_unwritable

log = logging.getLogger(__name__)


def _number(value: float) -> str:
    """Shortest text that reads back as the same float (repr), without a pointless '.0'."""
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else repr(float(value))


def set_attributes(element, **attributes) -> None:
    """Set those of `attributes` that are not None (floats written as _number does)."""
    for name, value in attributes.items():
        if value is not None:
            value = _number(value) if isinstance(value, float) else str(value)
            try:
                element.set(name, value)
            except ValueError:  # lxml refuses what XML cannot carry: looked for only then, at no cost otherwise
                element.set(name, _writable(value, element, name))


def child(parent, tag: str, text: str | None = None, **attributes):
    """A new element under `parent`, with its text and the attributes that are not None."""
    element = etree.SubElement(parent, tag)
    if text is not None:
        try:
            element.text = text
        except ValueError:
            element.text = _writable(text, element, tag)
    set_attributes(element, **attributes)
    return element


def _writable(value: str, element, what: str) -> str:
    """A value stored before the web tool refused such characters (a NUL, a vertical tab): exported
    without them, with a warning that names the record, rather than not at all."""
    clean, dropped = without_unwritable(value)
    first = first_unwritable(value)
    if not dropped or first is None:
        raise ValueError(f"{_record(element)}: {what} cannot be written as XML")
    log.warning("warning: %s: %d character(s) XML cannot carry (first %s) dropped from %s",
                _record(element), dropped, describe(first), what)
    return clean


def _record(element) -> str:
    """Where an element is, by the IDs and ranks of it and its ancestors: TOPIC ACLIA2-CS-0001, NUGGET N001."""
    keyed = [(el.tag, el.get("ID") or el.get("RANK")) for el in reversed([element, *element.iterancestors()])]
    return ", ".join(f"{tag} {key}" for tag, key in keyed if key) or element.tag


def metadata(root, metadata: model.Metadata) -> None:
    """A run's METADATA element."""
    meta = child(root, "METADATA")
    child(meta, "RUNID", metadata.run_id)
    child(meta, "DESCRIPTION", metadata.description)
    if metadata.ir4qa_run_id is not None:
        child(meta, "IR4QA_RUNID", metadata.ir4qa_run_id)
