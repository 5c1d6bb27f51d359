"""Softmatch for many topics at once: every response of a run is normalised and tokenised in one
pass over a code point array, and the bag overlaps |tok(n) ∩ tok(x)| of all nugget x response pairs
come from numpy gathers instead of one Counter per response.

The results are exactly those of `Tokenizer.tokens` and `matchers.overlap` (tests/
test_scoring_equivalence.py checks it on random text); only the arithmetic is batched. Why the
shortcuts hold:
- NFKC(s) = NFKC(s') when s' replaces each character by its own NFKC form (both have the same NFKD),
  and s' almost always passes unicodedata's quick check, so the full (slow) algorithm rarely runs;
  the per-character forms are learnt lazily, only for code points that occur.
- U+0000 joins the responses: it cannot occur in XML, composes with nothing, is no token, and
  `str.lower` treats it as a word boundary (final sigma), so it keeps every response separate.
- Tokens are character classes: a unigram character is a token; a maximal run of other letters or
  digits is a word (TOKEN_RE's two alternatives). Texts that contain U+0000 go the Counter way.
- min(n, r) is summed over the nonzero cells of each nugget's counts, gathered from one
  responses x columns count matrix per batch, where each topic numbers its own tokens.
"""
from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from sepia.scoring.tokenize import _UNIGRAM_RANGES, Tokenizer

_CODE_POINTS = 0x110000
_SEPARATOR = "\x00"
_UNIGRAM_RE = re.compile(f"[{_UNIGRAM_RANGES}]")
_WORD_RE = re.compile(f"[^\\W_{_UNIGRAM_RANGES}]")
OTHER, UNIGRAM, WORD, _UNLEARNT = 0, 1, 2, 255
_NFKC_UNLEARNT, _NFKC_SEVERAL = 0xFFFFFFFF, 0xFFFFFFFE  # beyond every code point
_DENSE_CELLS = 1 << 23  # (topic, token) lookup tables up to this size; sorted keys beyond
_KEY_SPAN = 1 << 32


class _CodePoints:
    """Facts about single code points, learnt for the code points actually met."""

    def __init__(self):
        self.nfkc = np.full(_CODE_POINTS, _NFKC_UNLEARNT, np.uint32)  # NFKC(c) when one character
        self.nfkc_forms: dict[str, str] = {}  # NFKC(c) when several characters
        self.token_class = np.full(_CODE_POINTS, _UNLEARNT, np.uint8)

    def nfkc_of(self, cps: np.ndarray) -> np.ndarray:
        mapped = self.nfkc[cps]
        if len(mapped) and mapped.max() == _NFKC_UNLEARNT:  # one pass in the usual case
            unlearnt = mapped == _NFKC_UNLEARNT
            for cp in np.unique(cps[unlearnt]).tolist():
                form = unicodedata.normalize("NFKC", chr(cp))
                if len(form) == 1:
                    self.nfkc[cp] = ord(form)
                else:  # the form first: a reader that sees the mark finds it (threads)
                    self.nfkc_forms[chr(cp)] = form
                    self.nfkc[cp] = _NFKC_SEVERAL
            mapped = self.nfkc[cps]
        return mapped

    def classes_of(self, cps: np.ndarray) -> np.ndarray:
        classes = self.token_class[cps]
        if len(classes) and classes.max() == _UNLEARNT:
            unlearnt = classes == _UNLEARNT
            for cp in np.unique(cps[unlearnt]).tolist():
                ch = chr(cp)
                self.token_class[cp] = UNIGRAM if _UNIGRAM_RE.match(ch) else WORD if _WORD_RE.match(ch) else OTHER
            classes = self.token_class[cps]
        return classes


_TABLES: _CodePoints | None = None


def _tables() -> _CodePoints:
    global _TABLES
    if _TABLES is None:
        _TABLES = _CodePoints()
    return _TABLES


def _code_points(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)


def _from_code_points(cps: np.ndarray) -> str:
    return cps.astype(np.uint32, copy=False).tobytes().decode("utf-32-le", "surrogatepass")


def normalize_joined(texts: Sequence[str]) -> str | None:
    """`normalize` (NFKC, then lower case) of each text, joined by U+0000; None when a text has one."""
    tables = _tables()
    joined = _SEPARATOR.join(texts)
    if joined.count(_SEPARATOR) != max(len(texts) - 1, 0):
        return None
    cps = _code_points(joined)
    mapped = tables.nfkc_of(cps)
    if len(mapped) and mapped.max() == _NFKC_SEVERAL:
        several = mapped == _NFKC_SEVERAL
        text = _from_code_points(np.where(several, cps, mapped))
        for ch in {chr(cp) for cp in np.unique(cps[several]).tolist()}:
            text = text.replace(ch, tables.nfkc_forms[ch])
    elif (mapped != cps).any():
        text = _from_code_points(mapped)
    else:
        text = joined
    return unicodedata.normalize("NFKC", text).lower()


@dataclass
class _TopicNuggets:
    """One topic's nuggets as token counts over the topic's own vocabulary (global token ids)."""
    gids: np.ndarray  # (V,) global id of each local column
    counts: np.ndarray  # (nuggets, V) token counts
    totals: np.ndarray  # (nuggets,) |tok(n)|


class _Layout:
    """Many topics' nuggets side by side: the nonzero cells of their count matrices, in nugget order."""

    def __init__(self, topics: list[_TopicNuggets], vocabulary_size: int):
        self.sizes = [len(t.totals) for t in topics]
        self.width = max((len(t.gids) for t in topics), default=0) or 1
        self.totals = np.concatenate([t.totals for t in topics] + [np.zeros(0, np.int64)])
        cells = [np.nonzero(t.counts) for t in topics]  # row-major: grouped by nugget
        offsets = np.cumsum([0] + self.sizes[:-1])
        nugget = np.concatenate([o + rows for o, (rows, _) in zip(offsets, cells)] + [np.zeros(0, np.int64)])
        self.topic = np.repeat(np.arange(len(topics)), [len(rows) for rows, _ in cells])
        self.column = np.concatenate([cols for _, cols in cells] + [np.zeros(0, np.int64)])
        self.count = np.concatenate([t.counts[c] for t, c in zip(topics, cells)] + [np.zeros(0, np.int64)])
        self.with_tokens, self.starts = np.unique(nugget, return_index=True)
        width = vocabulary_size + 1  # the last column: tokens of no nugget here
        if len(topics) * width <= _DENSE_CELLS:
            self.local = np.full((len(topics), width), -1, np.int32)
            for i, t in enumerate(topics):
                self.local[i, t.gids] = np.arange(len(t.gids))
        else:  # too large to tabulate: sorted (topic, global id) keys instead
            keys = np.concatenate([i * _KEY_SPAN + t.gids for i, t in enumerate(topics)])
            order = np.argsort(keys)
            self.keys = keys[order]
            self.key_columns = np.concatenate([np.arange(len(t.gids)) for t in topics])[order]
            self.local = None

    def columns(self, topic: np.ndarray, gids: np.ndarray) -> np.ndarray:
        """Each (topic, global id)'s column in that topic's counts, or -1."""
        if self.local is not None:
            return self.local[topic, np.minimum(gids, self.local.shape[1] - 1)]
        if not len(self.keys):
            return np.full(len(gids), -1, np.int64)
        wanted = topic * _KEY_SPAN + gids
        at = np.minimum(np.searchsorted(self.keys, wanted), len(self.keys) - 1)
        return np.where(self.keys[at] == wanted, self.key_columns[at], -1)

    def best(self, counts: np.ndarray, rows: np.ndarray) -> list[list[float]]:
        """counts: (responses + 1, width) token counts, the last row zero; rows: (topics, most
        answers) each topic's rows of counts, padded with the zero row."""
        best = np.zeros(len(self.totals), np.int64)
        if len(self.count):
            # min(n, r) for every nonzero nugget cell against the same column of each answer.
            cells = rows[self.topic] * counts.shape[1] + self.column[:, None]
            met = np.minimum(counts.ravel().take(cells), self.count[:, None])
            best[self.with_tokens] = np.add.reduceat(met, self.starts, axis=0).max(axis=1, initial=0)
        scores = np.divide(best, self.totals, out=np.zeros(len(best)), where=self.totals > 0).tolist()
        ends = np.cumsum(self.sizes).tolist()
        return [scores[end - size:end] for size, end in zip(self.sizes, ends)]


class BagMatcher:
    """Best softmatch score of every nugget of many topics; nuggets are tokenised once and cached."""

    def __init__(self, tokenizer: Tokenizer, as_set: bool = False):
        self.tokenizer = tokenizer
        self.as_set = as_set
        self.words: dict[str, int] = {}  # word token -> global id
        self.unigrams: dict[int, int] = {}  # code point of a unigram token -> global id
        self._unigram_table: np.ndarray | None = None  # code point -> global id or -1
        self._topics: dict[tuple[str, ...], _TopicNuggets] = {}
        self._layout: tuple[tuple[int, ...], _Layout] | None = None
        self._stop = tokenizer._stop if tokenizer.stopwords else frozenset()
        self._word_tokens: dict[str, str | None] = {}

    # ------------------------------------------------------------ nuggets

    def _gid(self, token: str) -> int:
        if len(token) == 1 and _UNIGRAM_RE.match(token):
            table, key = self.unigrams, ord(token)
        else:
            table, key = self.words, token
        gid = table.get(key)
        if gid is None:
            gid = table[key] = len(self.words) + len(self.unigrams)
            self._unigram_table = None
        return gid

    def _topic(self, texts: tuple[str, ...]) -> _TopicNuggets:
        topic = self._topics.get(texts)
        if topic is None:
            bags = [self.tokenizer.counts(t) for t in texts]
            if self.as_set:
                bags = [dict.fromkeys(b, 1) for b in bags]
            local = {gid: i for i, gid in enumerate(dict.fromkeys(self._gid(tok) for b in bags for tok in b))}
            counts = np.zeros((len(texts), len(local)), np.int64)
            for row, bag in enumerate(bags):
                for tok, n in bag.items():
                    counts[row, local[self._gid(tok)]] = n
            topic = self._topics[texts] = _TopicNuggets(np.fromiter(local, np.int64, len(local)), counts,
                                                        counts.sum(axis=1))
        return topic

    def _layout_of(self, topics: list[_TopicNuggets]) -> _Layout:
        key = tuple(map(id, topics))  # the topics live in self._topics, so their ids stay theirs
        if self._layout is None or self._layout[0] != key:
            self._layout = key, _Layout(topics, len(self.words) + len(self.unigrams))
        return self._layout[1]

    # ------------------------------------------------------------ responses

    def _unigram_gids(self, cps: np.ndarray) -> np.ndarray:
        if self._unigram_table is None:
            table = np.full(max(self.unigrams, default=-1) + 2, -1, np.int32)  # last cell: no nugget's token
            table[np.fromiter(self.unigrams, np.int64, len(self.unigrams))] = list(self.unigrams.values())
            self._unigram_table = table
        table = self._unigram_table
        return table[np.minimum(cps, len(table) - 1)]

    def _word_gids(self, cps: np.ndarray, is_word: np.ndarray) -> np.ndarray:
        """Global id (or -1) of each word token (maximal run of word characters), in order."""
        # Blank out everything else and let str.split cut the runs: word characters are letters and
        # digits, never white space; much faster than a regex over CJK text.
        words = _from_code_points(np.where(is_word, cps, 32)).split() if is_word.any() else []
        if self._stop or self.tokenizer.stem:
            words = [self._as_token(w) for w in words]
        return np.fromiter(map(self.words.get, words, itertools.repeat(-1)), np.int64, len(words))

    def _as_token(self, word: str) -> str | None:
        """The token a word becomes with stop words and stemming (None: dropped); remembered,
        since stemming is slow and the same words come back in every run."""
        token = self._word_tokens.get(word, "")
        if token == "":
            token = None if word in self._stop else word
            if token is not None and self.tokenizer.stem and word.isascii():
                token = self.tokenizer._stemmer(word)
            self._word_tokens[word] = token
        return token

    def _occurrences(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray] | None:
        """(response index, global token id) of every response token that some nugget has;
        None when the texts cannot be joined safely (they contain U+0000)."""
        text = normalize_joined(texts)
        if text is None:
            return None
        cps = _code_points(text)
        unigram_gids = self._unigram_gids(cps)
        unigram_at = np.flatnonzero(unigram_gids >= 0)
        is_word = _tables().classes_of(cps) == WORD
        edges = np.diff(is_word.view(np.int8), prepend=np.int8(0), append=np.int8(0))
        word_start = np.flatnonzero(edges == 1)
        word_gids = self._word_gids(cps, is_word)
        known_words = word_gids >= 0
        where = np.concatenate([unigram_at, word_start[known_words]])
        gids = np.concatenate([unigram_gids[unigram_at].astype(np.int64), word_gids[known_words]])
        return np.cumsum(cps == 0, dtype=np.int32)[where], gids  # separators before each token

    # ------------------------------------------------------------ scores

    def best_scores(self, topics: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[list[float]] | None:
        """For each (nugget texts, response texts): every nugget's best s(n, x) over the responses.
        None when the batch cannot be done this way (the caller falls back to Counters)."""
        layout = self._layout_of([self._topic(tuple(n)) for n, _ in topics])
        occurrences = self._occurrences([t for _, r in topics for t in r])
        if occurrences is None:
            return None
        response_of, gid_of = occurrences
        answers = np.array([len(r) for _, r in topics], np.int64)
        first = np.concatenate([[0], np.cumsum(answers)])
        responses = int(first[-1])
        topic_of_response = np.repeat(np.arange(len(topics)), answers)
        column = layout.columns(topic_of_response[response_of], gid_of)
        hit = column >= 0
        # Token counts, one row per response (and a zero row last), in the topic's own columns. As a
        # set too: the nugget's counts are then 1, and min(1, r) needs no clipping of r.
        counts = np.bincount(response_of[hit] * layout.width + column[hit],
                             minlength=(responses + 1) * layout.width).reshape(responses + 1, layout.width)
        rank = np.arange(int(answers.max(initial=0)))
        rows = np.where(rank < answers[:, None], first[:-1, None] + rank, responses)
        return layout.best(counts, rows)
