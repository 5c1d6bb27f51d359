"""Normalisation and tokens for nugget matching (docs/spec.md, Tokens).

Text is NFKC-normalised and lower-cased. Every CJK ideograph, hiragana, katakana and hangul
character is a token on its own (character unigrams); a run of other letters or digits is one word
token; punctuation and white space are not tokens. English words may be stemmed (Snowball English) and
stop words dropped (SEPIA's list), as POURPRE did; both are off by default and both come from
sepia.text.english, which the EN search analyzer uses too.
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import cached_property

from sepia.text import english

# Ideographs (URO, extensions A-H, compatibility), iteration marks 々〆〇 and 〻, kana (without the
# punctuation ゠ and ・ that live in the katakana block), hangul syllables and jamo.
_UNIGRAM_RANGES = (
    "\u3005-\u3007\u303b\u3041-\u3096\u3099-\u309a\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f\U00030000-\U000323af"
    "\U0001b000-\U0001b16f\uac00-\ud7af\u1100-\u11ff\u3131-\u318e\ua960-\ua97f\ud7b0-\ud7ff"
)
TOKEN_RE = re.compile(f"[{_UNIGRAM_RANGES}]|[^\\W_{_UNIGRAM_RANGES}]+")


def normalize(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower()


def char_length(text: str) -> int:
    """Length in characters (code points), not counting white space: docs/spec.md's L."""
    if text.isprintable():  # then its only white space is " " (the others are separators or controls)
        return len(text) - text.count(" ")
    # str.split() cuts at exactly the characters that \s matches (str.isspace), at C speed.
    return sum(map(len, text.split()))


@dataclass(frozen=True)
class Tokenizer:
    """The tokenizer of docs/spec.md; `stem` and `stopwords` change English words only."""
    stem: bool = False
    stopwords: bool = False

    def tokens(self, text: str) -> list[str]:
        tokens = TOKEN_RE.findall(normalize(text))
        if self.stopwords:
            tokens = [t for t in tokens if t not in self._stop]
        if self.stem:
            tokens = [self._stemmer(t) if t.isascii() else t for t in tokens]
        return tokens

    def counts(self, text: str) -> Counter:
        return Counter(self.tokens(text))

    def describe(self) -> str:
        return (f"character unigrams for CJK, words otherwise; stemming {'on' if self.stem else 'off'}, "
                f"stop words {'dropped' if self.stopwords else 'kept'}")

    @cached_property
    def _stop(self) -> frozenset[str]:
        return english.stop_words()

    @cached_property
    def _stemmer(self):
        return english.stem
