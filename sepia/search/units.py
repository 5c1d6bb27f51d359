"""The common shape of SEPIA's analyzers: a language splits text into *units*
(term, position, start, end), and one Whoosh tokenizer turns units into tokens.

Positions are sequential word numbers (so phrase queries work); a sub-word of a compound
shares a position with the compound, the way Lucene places synonyms. `start`/`end` are
indices into the original Python string (code points), never into a normalised copy.
"""
from __future__ import annotations

import os
import unicodedata
from typing import Callable, Iterator, NamedTuple, TypeVar

from whoosh.analysis import Token, Tokenizer

T = TypeVar("T")


class Unit(NamedTuple):
    term: str
    pos: int
    start: int
    end: int


def normalize_term(text: str) -> str:
    """NFKC then lower case, as the spec normalises text (full-width Ａ = a)."""
    return unicodedata.normalize("NFKC", text).lower()


def is_word(text: str) -> bool:
    """A token worth indexing has at least one letter, digit or ideograph (astral ones too)."""
    return any(ch.isalnum() for ch in text)


def per_process(factory: Callable[[], T]) -> Callable[[], T]:
    """A lazily built object, one per process: tokenizers and dictionaries are created on first
    use, never at import, never pickled with a schema, and rebuilt after a fork."""
    cache: dict[int, T] = {}

    def get() -> T:
        pid = os.getpid()
        obj = cache.get(pid)
        if obj is None:
            cache.clear()
            obj = cache[pid] = factory()
        return obj

    return get


class UnitTokenizer(Tokenizer):
    """A Whoosh tokenizer over `units()`. Subclasses hold configuration only, so a pickled
    schema carries no tokenizer object."""

    def units(self, text: str, query: bool = False) -> Iterator[Unit]:
        raise NotImplementedError

    def normalize(self, text: str) -> str:
        """How a whole value becomes one term when Whoosh asks for no tokenizing (prefix queries)."""
        return normalize_term(text)

    def __call__(self, value, positions=False, chars=False, keeporiginal=False, removestops=True,
                 start_pos=0, start_char=0, tokenize=True, mode="", **kwargs):
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        token.boost = 1.0
        token.stopped = False
        if not tokenize:
            units = [Unit(self.normalize(value), 0, 0, len(value))]
        else:
            units = self.units(value, query=(mode == "query"))
        for term, pos, start, end in units:
            token.text = term
            if keeporiginal:
                token.original = value[start:end]
            if positions:
                token.pos = start_pos + pos
            if chars:
                token.startchar = start_char + start
                token.endchar = start_char + end
            yield token
