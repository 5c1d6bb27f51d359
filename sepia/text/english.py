"""English analysis shared by search (the EN analyzer) and scoring (`--stem`, `--stopwords`): one
stemmer and one stop word list, so that an index and a score treat a word alike.

The stemmer is Snowball English 3.1 (the algorithm once called Porter2) from PyStemmer, the Snowball
project's own C build with wheels for every common platform. On 100,000 words of English answers
(tools/bench_english_stemmer.py, docs/benchmarks.md) it takes 1/50 to 1/35 of the time of Whoosh's
porter2 per word, and the Snowball project's pure Python package (snowballstemmer, which itself uses
PyStemmer when installed) 1.6 to 2 times porter2's. Whoosh's porter2, used before, is an
unmaintained copy of an older Snowball English: it stems university, organization, emergency,
international and added otherwise (tests/test_english_analysis.py lists them). Snowball English
changes between releases (3.1 stems inter- words otherwise than 3.0), hence the pinned PyStemmer.

Stop words: sepia/text/english_stopwords.txt (the Snowball English list; provenance and changes at
its top), read once.
"""
from __future__ import annotations

import threading
from functools import cache
from importlib.resources import files

import Stemmer

STOP_WORDS_FILE = "english_stopwords.txt"

# PyStemmer's Stemmer objects must not be used by two threads at once: one per thread.
_local = threading.local()


def stem(word: str) -> str:
    """The Snowball English stem of a lower-case word. A word with a character outside ASCII is
    returned as it is: English suffix rules would mangle other languages' words."""
    if not word.isascii():
        return word
    try:
        stemmer = _local.stemmer
    except AttributeError:
        stemmer = _local.stemmer = Stemmer.Stemmer("english")
    return stemmer.stemWord(word)


@cache
def stop_words() -> frozenset[str]:
    """SEPIA's English stop words, lower case."""
    text = files(__package__).joinpath(STOP_WORDS_FILE).read_text(encoding="utf-8")
    return frozenset(filter(None, (line.split("#", 1)[0].strip() for line in text.splitlines())))
