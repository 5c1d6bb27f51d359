"""Chinese analysis with jieba: simplified (CS) directly, traditional (CT) through an OpenCC
character conversion to simplified that keeps every offset (see docs/search.md for why).

jieba's precise segmentation, without the HMM so that a string segments the same way in a
document and in a query. Each word of three or more characters that the dictionary covers with
shorter words is split into them, recursively (禽流感 -> 禽 + 流感, 中华人民共和国 -> 中华人民 + 共和国
-> 中华 + 人民 + 共和国); positions count these finest pieces, so 流感疫苗 (流感 + 疫苗) is a phrase
inside 禽流感疫苗 as well as inside 流感疫苗. Index mode also adds each longer word at the position
of its first piece, so it is a term of its own; query mode gives the finest pieces only, and a
query word of several pieces becomes a phrase.
"""
from __future__ import annotations

import logging
import tempfile
from functools import lru_cache
from math import log
from typing import Iterator

from sepia.search.units import ColumnTokenizer, Columns, Unit, is_word, normalize_term, per_process


def _cache_dir() -> str:
    # jieba caches its parsed dictionary (~1 s to rebuild); keep it with SEPIA's data if writable.
    try:
        from sepia import config

        path = config.sepia_home() / "cache"
        path.mkdir(parents=True, exist_ok=True)
        return str(path)
    except OSError:
        return tempfile.gettempdir()


def _make_jieba():
    import jieba

    logging.getLogger("jieba").setLevel(logging.WARNING)
    tokenizer = jieba.Tokenizer()
    tokenizer.tmp_dir = _cache_dir()
    tokenizer.initialize()
    return tokenizer


jieba_tokenizer = per_process(_make_jieba)


def _make_t2s():
    import opencc

    return opencc.OpenCC("t2s")


opencc_t2s = per_process(_make_t2s)


def _is_han(word: str) -> bool:
    return all("\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf" for ch in word)


def to_simplified(text: str) -> str:
    """Traditional -> simplified with the same length, so offsets carry over one to one.
    OpenCC converts phrases; where a phrase conversion changes the length of a line, that line
    falls back to character-by-character conversion."""
    convert = opencc_t2s().convert
    whole = convert(text)
    if len(whole) == len(text):
        return whole
    lines = []
    for line in text.splitlines(keepends=True):
        converted = convert(line)
        if len(converted) != len(line):
            converted = "".join(c if len(c) == 1 else ch for ch, c in ((ch, convert(ch)) for ch in line))
        lines.append(converted)
    return "".join(lines)


def _best_cover(word: str, freq: dict, logtotal: float) -> list[tuple[int, int]]:
    """jieba's maximum-probability route through `word`, using only dictionary words shorter
    than `word` itself (single characters always allowed)."""
    n = len(word)
    best: list[tuple[float, int]] = [(0.0, 0)] * (n + 1)
    for i in range(n - 1, -1, -1):
        candidates = [(log(freq.get(word[i]) or 1) - logtotal + best[i + 1][0], i + 1)]
        for j in range(i + 2, n + 1):
            if j - i < n and freq.get(word[i:j]):
                candidates.append((log(freq[word[i:j]]) - logtotal + best[j][0], j))
        best[i] = max(candidates)
    cover, i = [], 0
    while i < n:
        cover.append((i, best[i][1]))
        i = best[i][1]
    return cover


@lru_cache(maxsize=100_000)
def decompose(word: str) -> tuple[tuple[int, int, bool], ...]:
    """(start, end, finest) pieces of a word: a word of three or more characters that the
    dictionary covers with shorter words (at least one of them not a single character) is split,
    recursively; the finest pieces are the ones positions count, the others are compounds."""
    if len(word) < 3 or not _is_han(word):
        return ((0, len(word), True),)
    tokenizer = jieba_tokenizer()
    cover = _best_cover(word, tokenizer.FREQ, log(tokenizer.total))
    if all(e - s == 1 for s, e in cover):
        return ((0, len(word), True),)
    pieces: list[tuple[int, int, bool]] = [(0, len(word), False)]
    for s, e in cover:
        pieces.extend((s + a, s + b, fine) for a, b, fine in decompose(word[s:e]))
    return tuple(pieces)


def chinese_units(text: str, query: bool = False) -> Iterator[Unit]:
    """Units of simplified Chinese text (also used on converted traditional text)."""
    pos = -1
    start = 0
    for word in jieba_tokenizer().cut(text, HMM=False):
        end = start + len(word)
        if is_word(word):
            if len(word) < 3:
                pos += 1
                yield Unit(normalize_term(word), pos, start, end)
            else:
                # a compound comes first in `decompose`, at the position of its first piece
                for s, e, fine in decompose(word):
                    if fine:
                        pos += 1
                        yield Unit(normalize_term(word[s:e]), pos, start + s, start + e)
                    elif not query:
                        yield Unit(normalize_term(word[s:e]), pos + 1, start + s, start + e)
        start = end


def chinese_columns(text: str) -> Columns:
    """`chinese_units(text)` as columns (finest pieces in order, compounds), in one pass."""
    fine: list[str] = []
    compounds: list[str] = []
    fine_at: list[int] = []
    compound_at: list[int] = []
    start = 0
    for word in jieba_tokenizer().cut(text, HMM=False):
        end = start + len(word)
        if not is_word(word):
            pass
        elif len(word) < 3:
            fine.append(normalize_term(word))
            fine_at += (start, end)
        else:
            # a compound comes first in `decompose`, at the position of its first piece
            for s, e, finest in decompose(word):
                if finest:
                    fine.append(normalize_term(word[s:e]))
                    fine_at += (start + s, start + e)
                else:
                    compounds.append(normalize_term(word[s:e]))
                    compound_at += (len(fine), start + s, start + e)
        start = end
    return Columns(fine, compounds, fine_at, compound_at)


class ChineseTokenizer(ColumnTokenizer):
    """CS: jieba over the text as it is. CT: jieba over its simplified conversion (offsets kept)."""

    def __init__(self, traditional: bool = False):
        self.traditional = traditional

    def units(self, text: str, query: bool = False) -> Iterator[Unit]:
        return chinese_units(to_simplified(text) if self.traditional else text, query)

    def columns(self, text: str) -> Columns:
        return chinese_columns(to_simplified(text) if self.traditional else text)

    def normalize(self, text: str) -> str:
        return normalize_term(to_simplified(text) if self.traditional else text)
