"""Read the XML exchange formats into `sepia.formats.model` objects, validating as we go.

Every file is checked against its XSD and then against the rules a schema cannot express
(docs/spec.md, Formats), by its format's reader (sepia/formats/registry.py names them); all problems are
collected and raised together as one FormatError.
"""
from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from sepia.formats import registry
from sepia.formats.checks import Checks
from sepia.formats.errors import FormatError, Problem, capped
from sepia.formats.registry import detect_format
from sepia.formats.schema import schema_problems
from sepia.formats.stream import read_clean_run
from sepia.formats.xmlsafe import LoadedXml, load_xml, parse_xml

T = TypeVar("T")


def read_loaded(loaded: LoadedXml, format_name: str | None = None):
    """Validate a parsed file and build its model object; return (object, warnings)."""
    run = read_clean_run(loaded, format_name)
    if run is not None:  # a valid run, read without its whole tree
        return run, []
    root = loaded.root
    if root.tag != "TOPIC_SET":
        raise FormatError([loaded.problem(root, f"root element is <{root.tag}>, expected <TOPIC_SET>")])
    format_name = format_name or detect_format(root)
    if format_name is None:
        raise FormatError([loaded.problem(root, "cannot tell the format (a run file without TOPICs): "
                                                "name it with --format " + "|".join(registry.names()))])
    kind = registry.named(format_name)
    problems = schema_problems(loaded, format_name)
    checks = Checks(loaded, schema_valid=not problems)
    obj = kind.read(checks, root)
    problems += capped(checks.problems)
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        raise FormatError(problems)
    return obj, problems


def read_file(path: str | Path, format: str | None = None, max_bytes: int | None = None):
    """Read a SEPIA XML file of any format (detected when not given). Raises FormatError."""
    obj, _warnings = read_loaded(load_xml(path, max_bytes), format)
    return obj


def read_bytes(data: bytes, format: str | None = None, name: str = "<input>"):
    obj, _warnings = read_loaded(parse_xml(data, name), format)
    return obj


def expect(obj: object, cls: type[T], path) -> T:
    """Check that a file read with auto-detection is of the kind the caller needs."""
    if not isinstance(obj, cls):
        raise FormatError([Problem(str(path), 1, 1, f"expected a {cls.__name__} file, got a {type(obj).__name__}")])
    return obj
