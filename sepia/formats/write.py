"""Write `sepia.formats.model` objects as the XML of docs/spec.md (Formats): UTF-8, indented, text kept
exactly, each by its format's writer (sepia/formats/registry.py)."""
from __future__ import annotations

from lxml import etree

from sepia.formats.registry import format_of


def to_xml(obj) -> bytes:
    """The object as a UTF-8 XML document."""
    kind = format_of(obj)
    if kind is None:
        raise TypeError(f"cannot write {type(obj).__name__} as XML")
    root = kind.write(obj)
    etree.indent(root, space="  ")
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + etree.tostring(root, encoding="UTF-8", pretty_print=True)
