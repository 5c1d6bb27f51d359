"""A text's analysed tokens kept beside it in the tantivy index, so a hit's marks are read back
instead of analysing its text again (tantivy keeps no offsets of pre-tokenized text).

One blob per text: the length of the terms' UTF-8, the terms joined by NUL, then (position,
start, end) of each token as the machine's 32-bit integers, in the analyzer's order. Only the query's words are
looked at on reading; the spans are `token_spans`', the same as analysing the whole text.
"""
from __future__ import annotations

import struct
from array import array

from sepia.search.highlight import QueryTerms, token_spans

_HEAD = struct.Struct("=I")
_SEP = "\x00"


def pack_units(units: list[tuple[str, int, int, int]]) -> bytes | None:
    """The blob of a text's (term, position, start, end) tokens; None when a term holds the
    separator (the text is then analysed on reading)."""
    terms = _SEP.join(term for term, _pos, _start, _end in units).encode("utf-8")
    if terms.count(b"\x00") != max(len(units) - 1, 0):
        return None
    numbers = array("i", [n for _term, pos, start, end in units for n in (pos, start, end)])
    return _HEAD.pack(len(terms)) + terms + numbers.tobytes()


def unpack_spans(blob: bytes, wanted: QueryTerms) -> list[tuple[int, int]]:
    """The spans of `wanted` in the text whose tokens `blob` holds. Each word is found in the
    joined terms by string search and its token's number counted from the separators before it
    (both in C), so a long text costs no Python step per token."""
    (size,) = _HEAD.unpack_from(blob)
    terms = b"\x00" + blob[_HEAD.size:_HEAD.size + size] + b"\x00"
    tokens = []
    numbers = None
    for word in wanted.terms.union(*wanted.phrases) - {""}:
        needle = b"\x00" + word.encode("utf-8") + b"\x00"
        found = terms.find(needle)
        index, counted = -1, 0
        while found >= 0:
            index += terms.count(b"\x00", counted, found + 1)  # the separators up to the word's own
            counted = found + 1
            if numbers is None:
                numbers = array("i")
                numbers.frombytes(blob[_HEAD.size + size:])
            tokens.append((word, numbers[3 * index], numbers[3 * index + 1], numbers[3 * index + 2]))
            found = terms.find(needle, found + 1)
    return token_spans(tokens, wanted)
