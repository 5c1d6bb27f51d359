"""The common shape of SEPIA's analyzers: a language splits text into *units*
(term, position, start, end), and one Whoosh tokenizer turns units into tokens.

Positions are sequential word numbers (so phrase queries work); a sub-word of a compound
shares a position with the compound, the way Lucene places synonyms. `start`/`end` are
indices into the original Python string (code points), never into a normalised copy.
"""
from __future__ import annotations

import os
import threading
import unicodedata
from typing import Callable, Iterable, Iterator, NamedTuple, TypeVar

from whoosh.analysis import Token, Tokenizer

T = TypeVar("T")


class Unit(NamedTuple):
    term: str
    pos: int
    start: int
    end: int


def normalize_term(text: str) -> str:
    """NFKC then lower case, as docs/spec.md (Tokens) normalises text (full-width Ａ = a)."""
    return unicodedata.normalize("NFKC", text).lower()


def is_word(text: str) -> bool:
    """A token worth indexing has at least one letter, digit or ideograph (astral ones too)."""
    return any(ch.isalnum() for ch in text)


def per_process(factory: Callable[[], T]) -> Callable[[], T]:
    """A lazily built object, one per process: tokenizers and dictionaries are created on first
    use, never at import, never pickled with a schema. Built once even when several threads ask
    at once, and inherited by the processes forked after it was built: gunicorn's master builds
    them before it forks its workers (sepia/web/gunicorn_conf.py), so that no worker loads them
    again. None of them holds a thread or a held lock that a fork could break."""
    built: list[T] = []
    lock = threading.Lock()

    def get() -> T:
        if not built:
            with lock:
                if not built:
                    built.append(factory())
        return built[0]

    return get


def per_thread(factory: Callable[[], T]) -> Callable[[], T]:
    """Like `per_process`, but one object per thread as well: for tokenizers that must not be
    used by two threads at once (Sudachi's), e.g. in the web tool's threaded workers."""
    local = threading.local()

    def get() -> T:
        pid = os.getpid()
        if getattr(local, "pid", None) != pid:
            local.obj, local.pid = factory(), pid
        return local.obj

    return get


def split_compounds(units: Iterable[tuple[str, int, int, int]]) -> tuple[list[str], list[str]] | None:
    """(finest units in position order, compounds) of a unit stream: at a position several units
    share, the shortest is the finest and the others compounds of it. None when the positions
    have a gap."""
    fine: list[str] = []
    widths: list[int] = []
    compounds: list[str] = []
    base = None
    for term, pos, start, end in units:
        if base is None:
            base = pos
        i = pos - base
        if i == len(fine):
            fine.append(term)
            widths.append(end - start)
        elif 0 <= i < len(fine):
            if end - start < widths[i]:  # the unit first seen here was a compound of this one
                compounds.append(fine[i])
                fine[i], widths[i] = term, end - start
            else:
                compounds.append(term)
        else:
            return None
    return fine, compounds


class Columns(NamedTuple):
    """A text's index tokens without a Python object per token, as a build stores them: the finest
    units' terms in position order (a unit's position is its index) with their (start, end)
    flattened in `fine_at`, then the compounds' terms with their (position, start, end) in
    `compound_at`. The same tokens as the unit stream, in `split_compounds`' order."""
    fine: list[str]
    compounds: list[str]
    fine_at: list[int]
    compound_at: list[int]


def unit_columns(units: Iterable[tuple[str, int, int, int]]) -> Columns:
    """The columns of a unit stream. Where positions have a gap every unit is a compound with
    its own position (nothing fine), so the columns always hold every token."""
    units = list(units)
    split = split_compounds(units)
    if split is None:
        return Columns([], [u[0] for u in units], [], [n for _t, pos, start, end in units for n in (pos, start, end)])
    fine: list[str] = []
    compounds: list[str] = []
    fine_at: list[int] = []
    compound_at: list[int] = []
    base = units[0][1] if units else 0
    for term, pos, start, end in units:
        i = pos - base
        if i == len(fine):
            fine.append(term)
            fine_at += (start, end)
        elif end - start < fine_at[2 * i + 1] - fine_at[2 * i]:  # as split_compounds: the finer replaces
            compounds.append(fine[i])
            compound_at += (i, fine_at[2 * i], fine_at[2 * i + 1])
            fine[i] = term
            fine_at[2 * i:2 * i + 2] = (start, end)
        else:
            compounds.append(term)
            compound_at += (i, start, end)
    return Columns(fine, compounds, fine_at, compound_at)


class UnitTokenizer(Tokenizer):
    """A Whoosh tokenizer over `units()`. Subclasses hold configuration only, so a pickled
    schema carries no tokenizer object."""

    def units(self, text: str, query: bool = False) -> Iterator[Unit]:
        raise NotImplementedError

    def normalize(self, text: str) -> str:
        """How a whole value becomes one term when Whoosh asks for no tokenizing (prefix queries)."""
        return normalize_term(text)

    def sequence(self, text: str) -> tuple[list[str], list[str]] | None:
        """The index terms of `text` without positions or offsets: (finest units in position
        order, compounds), the same terms as `units(text)`; what the tantivy engine indexes.
        Subclasses make it directly, cheaper than through units."""
        return split_compounds(self.units(text))

    def columns(self, text: str) -> Columns:
        """The index tokens of `text` with their positions and offsets (`Columns`): what a tantivy
        build indexes and stores of a body. Subclasses make them in one pass over the analysis."""
        return unit_columns(self.units(text))

    def __call__(self, value, positions=False, chars=False, keeporiginal=False, removestops=True,
                 start_pos=0, start_char=0, tokenize=True, mode="", **kwargs):
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        token.boost = 1.0
        token.stopped = False
        units: Iterable[Unit]
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


class ColumnTokenizer(UnitTokenizer):
    """A UnitTokenizer whose subclass makes `columns` directly from its analysis (CJK): its
    `sequence` is the columns' terms, without their offsets."""

    def sequence(self, text: str) -> tuple[list[str], list[str]]:
        fine, compounds, _fine_at, _compound_at = self.columns(text)
        return fine, compounds
