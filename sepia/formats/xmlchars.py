"""The characters XML 1.0 can carry (its production Char): a text holding any other cannot be written
to a SEPIA file, so such texts are refused where people enter them and dropped on export."""
from __future__ import annotations

import re

# Char ::= #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def first_unwritable(text: str) -> str | None:
    """The first character of `text` that XML cannot carry, or None when every one can."""
    found = _NOT_XML.search(text)
    return found.group() if found else None


def without_unwritable(text: str) -> tuple[str, int]:
    """`text` with the characters XML cannot carry dropped, and how many were dropped."""
    return _NOT_XML.subn("", text)


def describe(char: str) -> str:
    """A character as people can read it in a message: U+000B."""
    return f"U+{ord(char):04X}"
