"""The door every text a person sends passes: a form field or JSON string holding a character XML
cannot carry (NUL, vertical tab, other C0 controls, U+FFFE/U+FFFF) is refused with 422 naming the
field, before any view reads it. Stored, such a character would break every export of the campaign
(and PostgreSQL refuses NUL outright), so nothing that holds one is saved."""
from __future__ import annotations

from flask import abort, request

from sepia.formats.xmlchars import describe, first_unwritable

WRITING_METHODS = ("POST", "PUT", "PATCH")


def refuse_unwritable_text() -> None:
    """before_request: abort(422) at the first field whose value holds a character XML cannot carry."""
    if request.method not in WRITING_METHODS:
        return
    fields = request.get_json(silent=True) if request.is_json else None
    found = _first_in_json(fields, "") if fields is not None else _first_in_form()
    if found is not None:
        name, char = found
        abort(422, f"The field “{name}” holds the control character {describe(char)}, which cannot be saved "
                   "(XML, the campaign's exchange format, cannot carry it; it often comes with pasted text). "
                   "Remove it and send again.")


def _first_in_form() -> tuple[str, str] | None:
    """The form's fields, and the names of the files it uploads (kept with a submission)."""
    fields = [*request.form.items(multi=True), *((name, f.filename or "") for name, f in request.files.items(multi=True))]
    for name, value in fields:
        char = first_unwritable(name) or first_unwritable(value)
        if char is not None:
            return name, char
    return None


def _first_in_json(value, name: str) -> tuple[str, str] | None:
    """The first string of a JSON value (its keys included) that holds such a character, named."""
    if isinstance(value, str):
        char = first_unwritable(value)
        return (name or "body", char) if char is not None else None
    if isinstance(value, dict):
        # a key is checked as a string named by itself, then its value
        children = [pair for key, item in value.items() for pair in ((str(key), str(key)), (str(key), item))]
    elif isinstance(value, list):
        children = [(f"{name}[{i}]", item) for i, item in enumerate(value)]
    else:
        return None
    return next(filter(None, (_first_in_json(item, key) for key, item in children)), None)
