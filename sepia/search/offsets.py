"""A text's analysed tokens kept beside it in the tantivy index, so a hit's marks are read back
instead of analysing its text again (tantivy keeps no offsets of pre-tokenized text).

One blob per text, made from the analysis' columns (sepia.search.units.Columns) without a Python
step per token: the length of the terms' UTF-8 and the number of finest units, the terms each
between NULs (finest units in position order, then compounds), then as the machine's 32-bit integers the
(start, end) of each finest unit (its position is its index) and the (position, start, end) of
each compound. Only the query's words are looked at on reading; the spans are `token_spans'`, the
same as analysing the whole text.
"""
from __future__ import annotations

import struct
from array import array
from collections import defaultdict

from sepia.search.highlight import QueryTerms, merge_spans, phrase_spans
from sepia.search.units import Columns

_HEAD = struct.Struct("=II")
_FINE = struct.Struct("=ii")        # a finest unit's start, end
_COMPOUND = struct.Struct("=iii")   # a compound's position, start, end
_SEP = "\x00"


def pack_columns(columns: Columns) -> bytes | None:
    """The blob of a text's tokens; None when a term holds the separator (the text is then
    analysed on reading)."""
    fine, compounds, fine_at, compound_at = columns
    terms = _SEP.join(fine + compounds).encode("utf-8")
    if terms.count(b"\x00") != max(len(fine) + len(compounds) - 1, 0):
        return None
    terms = b"\x00" + terms + b"\x00"  # every term between separators: found in place, not copied
    return _HEAD.pack(len(terms), len(fine)) + terms + array("i", fine_at).tobytes() + array("i", compound_at).tobytes()


def unpack_spans(blob: bytes, wanted: QueryTerms) -> list[tuple[int, int]]:
    """The spans of `wanted` in the text whose tokens `blob` holds: `token_spans` of its tokens.
    Each word is found in the terms by string search and its token's number counted from the
    separators before it (both in C, in place), so a long text costs no Python step per token and
    no copy; only the words of phrases are kept with their positions."""
    size, nfine = _HEAD.unpack_from(blob)
    lo = _HEAD.size
    hi = lo + size
    compounds_at = hi + _FINE.size * nfine
    phrase_words = set().union(*wanted.phrases)
    spans: list[tuple[int, int]] = []
    by_pos: dict[int, list[tuple[str, int, int]]] = defaultdict(list)
    find, count, fine_at, compound_at = blob.find, blob.count, _FINE.unpack_from, _COMPOUND.unpack_from
    for word in (wanted.terms | phrase_words) - {""}:
        as_term, in_phrase = word in wanted.terms, word in phrase_words
        # the word after a separator; whether the next byte ends it is checked apart: a needle
        # ending in the separator, which follows every term, is searched several times slower
        needle = b"\x00" + word.encode("utf-8")
        length = len(needle)
        found = find(needle, lo, hi - 1)  # a term is followed by its separator within the terms
        index, counted = -1, lo
        while found >= 0:
            if blob[found + length] == 0:
                index += count(b"\x00", counted, found + 1)  # the separators up to the word's own
                counted = found + 1
                if index < nfine:
                    pos = index
                    start, end = fine_at(blob, hi + _FINE.size * index)
                else:
                    pos, start, end = compound_at(blob, compounds_at + _COMPOUND.size * (index - nfine))
                if as_term:
                    spans.append((start, end))
                if in_phrase:
                    by_pos[pos].append((word, start, end))
            found = find(needle, found + length, hi - 1)
    for phrase in wanted.phrases:
        spans.extend(phrase_spans(by_pos, phrase))
    return merge_spans(spans)
