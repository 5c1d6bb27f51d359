"""Japanese analysis with SudachiPy (sudachidict-core).

Positions follow Sudachi's short units (split mode A), which segment the same string the same
way wherever it occurs. Index mode adds each long unit (mode C, e.g. 選挙管理委員会) at the position
of its first short unit. Queries are analysed into short units and a multi-unit query becomes a
phrase, so 委員会 (委員+会) finds 選挙管理委員会 (選挙+管理+委員+会). Terms are Sudachi's normalised
forms (附属 = 付属, 食べた -> 食べる), NFKC-lowered.
"""
from __future__ import annotations

import re
from typing import Iterator

from sepia.search.units import ColumnTokenizer, Columns, Unit, is_word, normalize_term, per_process, per_thread

# Sudachi refuses input longer than 49,149 bytes; stay well under it.
MAX_CHUNK_BYTES = 40_000
_SENTENCE_END = re.compile(r"(?<=[。！？!?\n])")


def _make_dictionary():
    from sudachipy import Dictionary

    return Dictionary(dict="core")


def _make_sudachi():
    from sudachipy import SplitMode

    return sudachi_dictionary().tokenizer(mode=SplitMode.C)


# One dictionary per process (memory-mapped, shared by its threads); one tokenizer per thread,
# since a Sudachi tokenizer must not be used by two threads at once.
sudachi_dictionary = per_process(_make_dictionary)
sudachi_tokenizer = per_thread(_make_sudachi)


def chunks(text: str, max_bytes: int = MAX_CHUNK_BYTES) -> Iterator[tuple[int, str]]:
    """(offset, piece) pieces of `text` of at most `max_bytes` UTF-8 bytes, cut after sentence
    ends where possible; offsets index the original string."""
    if len(text) * 4 <= max_bytes or len(text.encode("utf-8")) <= max_bytes:
        yield 0, text
        return
    offset, size = 0, 0
    piece: list[str] = []
    for sentence in _SENTENCE_END.split(text):
        n = len(sentence.encode("utf-8"))
        if size + n > max_bytes and piece:
            joined = "".join(piece)
            yield offset, joined
            offset += len(joined)
            piece, size = [], 0
        if n > max_bytes:  # one sentence too long for Sudachi: cut it between characters
            start = 0
            while start < len(sentence):
                end, used = start, 0
                while end < len(sentence) and used + len(sentence[end].encode("utf-8")) <= max_bytes:
                    used += len(sentence[end].encode("utf-8"))
                    end += 1
                yield offset, sentence[start:end]
                offset += end - start
                start = end
            continue
        piece.append(sentence)
        size += n
    if piece:
        yield offset, "".join(piece)


def japanese_units(text: str, query: bool = False) -> Iterator[Unit]:
    from sudachipy import SplitMode

    tokenizer = sudachi_tokenizer()
    mode_a = SplitMode.A
    pos = -1
    for base, piece in chunks(text):
        for morpheme in tokenizer.tokenize(piece):
            surface = morpheme.surface()
            if not is_word(surface):
                continue
            start = base + morpheme.begin()
            end = base + morpheme.end()
            parts = morpheme.split(mode_a)
            if len(parts) <= 1:
                pos += 1
                yield Unit(normalize_term(morpheme.normalized_form()), pos, start, end)
                continue
            first = pos + 1
            for part in parts:
                if is_word(part.surface()):
                    pos += 1
                    yield Unit(normalize_term(part.normalized_form()), pos,
                               base + part.begin(), base + part.end())
            if not query:
                yield Unit(normalize_term(morpheme.normalized_form()), first, start, end)


def japanese_columns(text: str) -> Columns:
    """`japanese_units(text)` as columns (short units in order, long units), in one pass."""
    from sudachipy import SplitMode

    tokenizer = sudachi_tokenizer()
    mode_a = SplitMode.A
    fine: list[str] = []
    compounds: list[str] = []
    fine_at: list[int] = []
    compound_at: list[int] = []
    for base, piece in chunks(text):
        for morpheme in tokenizer.tokenize(piece):
            if not is_word(morpheme.surface()):
                continue
            parts = morpheme.split(mode_a)
            if len(parts) > 1:
                compound_at += (len(fine), base + morpheme.begin(), base + morpheme.end())
                compounds.append(normalize_term(morpheme.normalized_form()))
                for part in parts:
                    if is_word(part.surface()):
                        fine.append(normalize_term(part.normalized_form()))
                        fine_at += (base + part.begin(), base + part.end())
            else:
                fine.append(normalize_term(morpheme.normalized_form()))
                fine_at += (base + morpheme.begin(), base + morpheme.end())
    return Columns(fine, compounds, fine_at, compound_at)


class JapaneseTokenizer(ColumnTokenizer):
    def units(self, text: str, query: bool = False) -> Iterator[Unit]:
        return japanese_units(text, query)

    def columns(self, text: str) -> Columns:
        return japanese_columns(text)
