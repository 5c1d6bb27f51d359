"""Chinese analysis with jieba: simplified (CS) directly, traditional (CT) through an OpenCC
character conversion to simplified that keeps every offset (see docs/search.md for why).

Index mode: jieba's precise segmentation (without the HMM, so that the same string segments the
same way in a document and in a query), one position per word; every dictionary word inside a
longer word (流感 in 禽流感, 委员会 in 管理委员会) is added at the position of that word, so it can
be found alone and still forms phrases with the words around it. Query mode: precise words only.
"""
from __future__ import annotations

import logging
import tempfile
from typing import Iterator

from sepia.search.units import Unit, UnitTokenizer, is_word, normalize_term, per_process


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


def subwords(word: str, freq: dict) -> Iterator[tuple[int, int]]:
    """(start, end) of every dictionary word of two or more characters strictly inside `word`."""
    n = len(word)
    for size in range(2, n):
        for i in range(0, n - size + 1):
            if freq.get(word[i:i + size]):
                yield i, i + size


def chinese_units(text: str, query: bool = False) -> Iterator[Unit]:
    """Units of simplified Chinese text (also used on converted traditional text)."""
    tokenizer = jieba_tokenizer()
    freq = tokenizer.FREQ
    pos = -1
    start = 0
    for word in tokenizer.cut(text, HMM=False):
        end = start + len(word)
        if is_word(word):
            pos += 1
            yield Unit(normalize_term(word), pos, start, end)
            if not query and len(word) > 2 and _is_han(word):
                for s, e in subwords(word, freq):
                    yield Unit(word[s:e], pos, start + s, start + e)
        start = end


class ChineseTokenizer(UnitTokenizer):
    """CS: jieba over the text as it is. CT: jieba over its simplified conversion (offsets kept)."""

    def __init__(self, traditional: bool = False):
        self.traditional = traditional

    def units(self, text: str, query: bool = False) -> Iterator[Unit]:
        return chinese_units(to_simplified(text) if self.traditional else text, query)

    def normalize(self, text: str) -> str:
        return normalize_term(to_simplified(text) if self.traditional else text)
