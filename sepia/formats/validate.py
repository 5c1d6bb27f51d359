"""Validate files of SEPIA's own formats (the XML exchange files and judgment TSVs) and list every
problem found. TREC RAG's JSON lines are checked by their converters (sepia.convert.validate)."""
from __future__ import annotations

from pathlib import Path

from sepia.formats.docids import MissingDocuments, unknown_docid_warnings
from sepia.formats.errors import FormatError, Problem
from sepia.formats.judgments import read_judgments, unknown_nugget_warnings
from sepia.formats.read import read_loaded
from sepia.formats.xmlsafe import LoadedXml, load_xml, parse_xml

JUDGMENTS = "judgments"


def validate_file(path: str | Path, format_name: str | None = None, max_bytes: int | None = None, gold=None,
                  gold_name: str = "", missing: MissingDocuments | None = None) -> tuple[object | None, list[Problem]]:
    """Return the file's object (None when invalid) and all its problems, warnings included. With
    `gold` (a GoldStandard), a judgment naming a nugget it lacks is a warning; with `missing`, a
    document cited that the collection lacks."""
    try:
        if is_judgments(path, format_name):
            judgments = read_judgments(path)
            return judgments, unknown_nugget_warnings(path, gold, gold_name) if gold is not None else []
        return validate_loaded(load_xml(path, max_bytes), format_name, missing)
    except FormatError as exc:
        return None, exc.problems


def is_judgments(path: str | Path, format_name: str | None) -> bool:
    """A nugget judgments TSV: when told, or a .tsv / .txt file when the format is not given."""
    return format_name == JUDGMENTS or (format_name is None and str(path).endswith((".tsv", ".txt")))


def validate_loaded(loaded: LoadedXml, format_name: str | None = None,
                    missing: MissingDocuments | None = None) -> tuple[object | None, list[Problem]]:
    """The checks of an XML file already loaded (its bytes are `loaded.data`); raises FormatError
    when it cannot be read as its format at all."""
    obj, problems = read_loaded(loaded, format_name)
    return obj, problems + unknown_docid_warnings(loaded, obj, missing)


def validate_bytes(data: bytes, name: str, format_name: str | None = None,
                   missing: MissingDocuments | None = None) -> tuple[object | None, list[Problem]]:
    """The same checks on an upload's bytes (the caller has bounded their size); DOCIDs are looked up
    with `missing` when given."""
    try:
        return validate_loaded(parse_xml(data, name), format_name, missing)
    except FormatError as exc:
        return None, exc.problems
