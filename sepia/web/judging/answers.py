"""A judgment as a judging form sends it, checked: the nuggets ticked (each one of the topic's) and
the relevance level (one of the campaign's); the screen, a control item's answer and an
organiser's decision all read them here."""
from __future__ import annotations

from collections.abc import Collection

from flask import current_app
from werkzeug.datastructures import MultiDict

from sepia.web.forms import FormError, parse_id, parse_ids


def ticked_nuggets(form: MultiDict, nugget_ids: Collection[int], then: str = "; reload the page") -> set[int]:
    """The nugget IDs ticked; one that is not in `nugget_ids` (a stale page) is refused, saying `then`."""
    matched = parse_ids(form.getlist("nugget"), "nugget")
    if not matched <= set(nugget_ids):
        raise FormError(f"A nugget you ticked is not a nugget of this topic{then}.")
    return matched


def relevance_level(form: MultiDict) -> int:
    level = parse_id(form.get("level", ""), "relevance level")
    if level >= current_app.config["RELEVANCE_LEVELS"]:
        raise FormError(f"Level L{level} is not a level of this campaign.")
    return level
