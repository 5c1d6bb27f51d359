"""Where the files that ship beside the package live: in a wheel they sit in sepia/_data,
in a source checkout at the repository root."""
from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def resource_dir(name: str) -> Path:
    """Return the directory `name` (schemas, web, corpora) wherever this install keeps it."""
    for candidate in (_PACKAGE / "_data" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"SEPIA resource directory {name!r} is missing from this installation")


def schema_path(format_name: str) -> Path:
    return resource_dir("schemas") / f"{format_name}.xsd"
