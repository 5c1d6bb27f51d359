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
  digits is a word (TOKEN_RE's two alternatives).
"""
from __future__ import annotations

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
OTHER, UNIGRAM, WORD = 0, 1, 2
_DENSE_CELLS = 1 << 23  # (topic, token) lookup tables up to this size; sorted keys beyond
_KEY_SPAN = 1 << 32


class _CodePoints:
    """Facts about single code points, filled in for the code points actually met."""

    def __init__(self):
        self.nfkc_known = np.zeros(_CODE_POINTS, bool)
        self.nfkc_single = np.arange(_CODE_POINTS, dtype=np.uint32)  # NFKC(c) when one character
        self.nfkc_multi = np.zeros(_CODE_POINTS, bool)
        self.nfkc_multi_forms: dict[str, str] = {}
        self.class_known = np.zeros(_CODE_POINTS, bool)
        self.token_class = np.zeros(_CODE_POINTS, np.uint8)

    def learn_nfkc(self, cps: np.ndarray) -> None:
        new = cps[~self.nfkc_known[cps]]
        for cp in np.unique(new).tolist():
            form = unicodedata.normalize("NFKC", chr(cp))
            if len(form) == 1:
                self.nfkc_single[cp] = ord(form)
            else:
                self.nfkc_multi[cp] = True
                self.nfkc_multi_forms[chr(cp)] = form
            self.nfkc_known[cp] = True

    def learn_classes(self, cps: np.ndarray) -> None:
        new = cps[~self.class_known[cps]]
        for cp in np.unique(new).tolist():
            ch = chr(cp)
            self.token_class[cp] = UNIGRAM if _UNIGRAM_RE.match(ch) else WORD if _WORD_RE.match(ch) else OTHER
            self.class_known[cp] = True


_TABLES: _CodePoints | None = None


def _tables() -> _CodePoints:
    global _TABLES
    if _TABLES is None:
        _TABLES = _CodePoints()
    return _TABLES


def _code_points(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), np.uint32)


def _from_code_points(cps: np.ndarray) -> str:
    return cps.astype(np.uint32).tobytes().decode("utf-32-le", "surrogatepass")


def normalize_joined(texts: Sequence[str]) -> str:
    """`normalize` (NFKC, then lower case) of each text, joined by U+0000."""
    tables = _tables()
    joined = _SEPARATOR.join(texts)
    cps = _code_points(joined)
    tables.learn_nfkc(cps)
    mapped = tables.nfkc_single[cps]
    multi = tables.nfkc_multi[cps]
    if multi.any():
        text = _from_code_points(mapped)
        for ch in {chr(cp) for cp in np.unique(cps[multi]).tolist()}:
            text = text.replace(ch, tables.nfkc_multi_forms[ch])
    elif np.array_equal(mapped, cps):
        text = joined
    else:
        text = _from_code_points(mapped)
    return unicodedata.normalize("NFKC", text).lower()


@dataclass
class _TopicNuggets:
    """One topic's nuggets as token counts over the topic's own vocabulary (global token ids)."""
    gids: np.ndarray  # (V,) global id of each local column
    counts: np.ndarray  # (nuggets, V) token counts
    totals: np.ndarray  # (nuggets,) |tok(n)|


class BagMatcher:
    """Best softmatch score of every nugget of many topics; nuggets are tokenised once and cached."""

    def __init__(self, tokenizer: Tokenizer, as_set: bool = False):
        self.tokenizer = tokenizer
        self.as_set = as_set
        self.words: dict[str, int] = {}  # word token -> global id
        self.unigrams: dict[int, int] = {}  # code point of a unigram token -> global id
        self._unigram_lookup: np.ndarray | None = None  # code point -> global id, -1
        self._topics: dict[tuple[str, ...], _TopicNuggets] = {}
        self._local: np.ndarray | None = None
        self._local_key: tuple[int, ...] | None = None
        self._stop = tokenizer._stop if tokenizer.stopwords else frozenset()

    # ------------------------------------------------------------ nuggets

    def _gid(self, token: str) -> int:
        if len(token) == 1 and _UNIGRAM_RE.match(token):
            table, key = self.unigrams, ord(token)
            self._unigram_lookup = None
        else:
            table, key = self.words, token
        gid = table.get(key)
        if gid is None:
            gid = table[key] = len(self.words) + len(self.unigrams)
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

    # ------------------------------------------------------------ responses

    def _unigram_gids(self, cps: np.ndarray) -> np.ndarray:
        if self._unigram_lookup is None:
            table = np.full(max(self.unigrams, default=-1) + 2, -1, np.int64)  # last cell: not a nugget token
            table[np.fromiter(self.unigrams, np.int64, len(self.unigrams))] = list(self.unigrams.values())
            self._unigram_lookup = table
        table = self._unigram_lookup
        return table[np.minimum(cps, len(table) - 1)]

    def _word_gids(self, text: str, starts: list[int], ends: list[int]) -> np.ndarray:
        get = self.words.get
        if self._stop or self.tokenizer.stem:
            stem = self.tokenizer._stemmer if self.tokenizer.stem else None
            words = (text[a:b] for a, b in zip(starts, ends))
            gids = [-1 if w in self._stop else get(stem(w) if stem and w.isascii() else w, -1) for w in words]
        else:
            gids = [get(text[a:b], -1) for a, b in zip(starts, ends)]
        return np.array(gids, np.int64)

    def _occurrences(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray] | None:
        """(response index, global token id) of every response token that some nugget has;
        None when the texts cannot be joined safely (they contain U+0000)."""
        if any(_SEPARATOR in t for t in texts):
            return None
        text = normalize_joined(texts)
        cps = _code_points(text)
        tables = _tables()
        tables.learn_classes(cps)
        classes = tables.token_class[cps]
        response = np.cumsum(cps == 0)
        unigram_at = np.flatnonzero(classes == UNIGRAM)
        edges = np.diff((classes == WORD).view(np.int8), prepend=np.int8(0), append=np.int8(0))
        word_start, word_end = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
        word_gids = self._word_gids(text, word_start.tolist(), word_end.tolist())
        gids = np.concatenate([self._unigram_gids(cps[unigram_at]), word_gids])
        where = np.concatenate([unigram_at, word_start])
        known = gids >= 0
        return response[where[known]], gids[known]

    # ------------------------------------------------------------ scores

    def best_scores(self, topics: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[list[float]] | None:
        """For each (nugget texts, response texts): every nugget's best s(n, x) over the responses.
        None when the batch cannot be done this way (the caller falls back to Counters)."""
        nuggets = [self._topic(tuple(n)) for n, _ in topics]
        responses = [r for _, r in topics]
        occurrences = self._occurrences([t for r in responses for t in r])
        if occurrences is None:
            return None
        response_of, gid_of = occurrences
        n_topics = len(topics)
        widths = np.array([len(t.gids) for t in nuggets], np.int64)
        answers = np.array([len(r) for r in responses], np.int64)
        vmax = int(widths.max(initial=0))
        first_response = np.concatenate([[0], np.cumsum(answers)])
        total_responses = int(first_response[-1])
        topic_of_response = np.repeat(np.arange(n_topics), answers)
        local = self._local_columns(nuggets, topic_of_response[response_of], gid_of)
        hit = local >= 0
        cell = response_of[hit] * max(vmax, 1) + local[hit]
        # Response token counts, one row per response, in the topic's local columns (as a set too:
        # the nugget's counts are then 1, and min(1, r) needs no clipping of r).
        counts = np.bincount(cell, minlength=total_responses * max(vmax, 1)).reshape(total_responses, max(vmax, 1))
        return [self._topic_best(n, counts[first_response[t]:first_response[t + 1]])
                for t, n in enumerate(nuggets)]

    def _local_columns(self, nuggets: list[_TopicNuggets], topic_of: np.ndarray, gids: np.ndarray) -> np.ndarray:
        """Each (topic, global id)'s column in that topic's nugget counts, or -1."""
        key = tuple(map(id, nuggets))
        if self._local_key != key:
            width = len(self.words) + len(self.unigrams) + 1  # the last column: tokens of no nugget here
            if len(nuggets) * width <= _DENSE_CELLS:
                table = np.full((len(nuggets), width), -1, np.int32)
                for t, n in enumerate(nuggets):
                    table[t, n.gids] = np.arange(len(n.gids))
            else:  # too large to tabulate: sorted (topic, global id) keys instead
                keys = np.concatenate([t * _KEY_SPAN + n.gids for t, n in enumerate(nuggets)])
                order = np.argsort(keys)
                table = (keys[order], np.concatenate([np.arange(len(n.gids)) for n in nuggets])[order])
            self._local, self._local_key = table, key
        table = self._local
        if isinstance(table, np.ndarray):
            return table[topic_of, np.minimum(gids, table.shape[1] - 1)]
        keys, columns = table
        wanted = topic_of * _KEY_SPAN + gids
        at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
        return np.where(keys[at] == wanted, columns[at], -1)

    @staticmethod
    def _topic_best(nuggets: _TopicNuggets, responses: np.ndarray) -> list[float]:
        """responses: (answers, >= V) token counts in the topic's local columns; no answers scores 0."""
        width = nuggets.counts.shape[1]
        if width == 0:
            return [0.0] * len(nuggets.totals)
        overlaps = np.minimum(nuggets.counts[:, None, :], responses[None, :, :width]).sum(axis=2)
        best = overlaps.max(axis=1, initial=0)
        totals = nuggets.totals
        return [b / n if n else 0.0 for b, n in zip(best.tolist(), totals.tolist())]
