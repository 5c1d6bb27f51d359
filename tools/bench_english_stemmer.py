"""Time per word of the English stemmers SEPIA could use, against Whoosh's porter2 (the one it used
before) in the same process: the measurement behind sepia/text/english.py's choice of PyStemmer.

Words: the first 100,000 English word tokens (SEPIA's tokens, ASCII) of the TREC RAG 2024 answers,
as `--stem` meets them. snowballstemmer (the Snowball project's pure Python package) is timed when
it is importable; it is no SEPIA dependency, so install it aside to include it:

    pip install --target /tmp/sb --no-deps snowballstemmer
    PYTHONPATH=/tmp/sb .venv/bin/python tools/bench_english_stemmer.py [RAG24.jl]
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import Stemmer
from whoosh.lang.porter2 import stem as whoosh_porter2

from sepia.text.tokenize import TOKEN_RE, normalize
from sepia.text import english

DEFAULT_PATH = (Path(__file__).resolve().parents[2] / "shared" / "data" / "trec-rag24"
                / "rag24_nugget_assignment.20241108.jl")
WORDS = 100_000
REPEATS = 3


def answer_words(path: Path, limit: int = WORDS) -> list[str]:
    words: list[str] = []
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            words += [t for t in TOKEN_RE.findall(normalize(json.loads(line)["answer_text"])) if t.isascii()]
            if len(words) >= limit:
                break
    return words[:limit]


def stemmers() -> dict[str, object]:
    found = {
        "Whoosh porter2 (baseline)": whoosh_porter2,
        "sepia.text.english.stem (PyStemmer, per thread)": english.stem,
        "PyStemmer stemWord, its cache off": Stemmer.Stemmer("english", 0).stemWord,
        "PyStemmer stemWord, its default cache": Stemmer.Stemmer("english").stemWord,
    }
    try:
        from snowballstemmer.english_stemmer import EnglishStemmer
    except ImportError:
        pass
    else:
        found["snowballstemmer, pure Python"] = EnglishStemmer().stemWord
    return found


def best_time(stem, words: list[str]) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        started = time.perf_counter()
        for word in words:
            stem(word)
        best = min(best, time.perf_counter() - started)
    return best


def main(argv: list[str]) -> int:
    words = answer_words(Path(argv[1]) if len(argv) > 1 else DEFAULT_PATH)
    print(f"{len(words):,} words ({len(set(words)):,} distinct), best of {REPEATS}; "
          f"load average {os.getloadavg()[0]:.2f}")
    baseline = None
    for name, stem in stemmers().items():
        seconds = best_time(stem, words)
        baseline = baseline or seconds
        print(f"{name:50s} {seconds * 1e9 / len(words):8.0f} ns/word  {seconds / baseline:6.3f} x baseline")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
