"""Softmatch for many topics at once: every response of a run is normalised and tokenised in one
pass over a code point array, and the bag overlaps |tok(n) ∩ tok(x)| of all nugget x response pairs
come from numpy arrays (a matrix product and a gather) instead of one Counter per response.

The results are exactly those of `Tokenizer.tokens` and `matchers.overlap` (tests/
test_scoring_equivalence.py checks it on random text); only the arithmetic is batched. Why the
shortcuts hold:
- NFKC(s) = NFKC(s') when s' replaces each character by its own NFKC form (both have the same NFKD),
  and s' almost always passes unicodedata's quick check, so the full (slow) algorithm rarely runs;
  the per-character forms are learnt lazily, only for code points that occur.
- U+0000 joins the responses: it cannot occur in XML, composes with nothing, is no token, and
  `str.lower` treats it as a word boundary (final sigma), so it keeps every response separate.
- When every per-character form is a character that is NFKC-normalised, combines with nothing before
  it (canonical class 0, and not the second character of any composition: `_SETTLED_BLOCKS`) and
  has a one-character lower case that does not depend on context (not capital sigma), the string
  steps are skipped: NFKC and lower case are then each character's own, looked up in tables.
- Tokens are character classes: a unigram character is a token; a maximal run of other letters or
  digits is a word (TOKEN_RE's two alternatives). Texts that contain U+0000 go the Counter way.
- For a nugget n and a response x, |tok(n) ∩ tok(x)| = sum over tokens t of min(n_t, x_t)
  = (tokens of n present in x) + sum over the tokens n has k >= 2 times of min(k - 1, x_t - 1)+.
  The first term, for all nuggets x responses of many topics at once, is one batched float32
  matrix product (exact: small integer sums) of 0/1 matrices in each topic's own token columns;
  the second is gathered for the few repeated tokens only.
"""
from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from sepia.text.tokenize import _UNIGRAM_RANGES, Tokenizer

_CODE_POINTS = 0x110000
_SEPARATOR = "\x00"
_UNIGRAM_RE = re.compile(f"[{_UNIGRAM_RANGES}]")
_WORD_RE = re.compile(f"[^\\W_{_UNIGRAM_RANGES}]")
OTHER, UNIGRAM, WORD, _UNLEARNT = 0, 1, 2, 255
_NOT_NUGGETS, _WORD, _UNLEARNT_TOKEN = -1, -2, -3  # token table values beside global ids
_NFKC_UNLEARNT, _NFKC_SEVERAL = 0xFFFFFFFF, 0xFFFFFFFE  # beyond every code point
_DENSE_CELLS = 1 << 23  # (topic, token) lookup tables up to this size; sorted keys beyond
_KEY_SPAN = 1 << 32
_GROUP_CELLS = 1 << 21  # topics x nuggets (or answers) x token columns per matrix product, at most
_SLAB = 64  # answers per topic in one matrix product; more are taken in several
# Blocks none of whose characters is the second of a canonical composition (tests/
# test_scoring_equivalence.py checks it against unicodedata): Latin to Armenian, punctuation to CJK
# symbols and kana without the voicing marks U+3099-309A, ideographs, Yi, hangul syllables,
# compatibility ideographs, CJK compatibility and half/full-width forms, the ideograph planes.
_SETTLED_BLOCKS = ((0x0000, 0x0300), (0x0370, 0x0590), (0x2000, 0x20D0), (0x2100, 0x3099), (0x309B, 0xA4D0),
                   (0xAC00, 0xD7A4), (0xF900, 0xFB00), (0xFE30, 0xFE50), (0xFF00, 0xFFF0), (0x20000, 0x40000))
_CONTEXT_LOWER = "\u03a3"  # capital sigma: its lower case depends on the letters around it


class _CodePoints:
    """Facts about single code points, learnt for the code points actually met."""

    def __init__(self) -> None:
        self.nfkc = np.full(_CODE_POINTS, _NFKC_UNLEARNT, np.uint32)  # NFKC(c) when one character
        self.nfkc_forms: dict[str, str] = {}  # NFKC(c) when several characters
        self.token_class = np.full(_CODE_POINTS, _UNLEARNT, np.uint8)
        # lower(NFKC(c)) when NFKC(c) is one settled character (see the module's notes) and so is its
        # lower case; _NFKC_UNLEARNT before c is learnt, _NFKC_SEVERAL when it is not so
        self.settled = np.full(_CODE_POINTS, _NFKC_UNLEARNT, np.uint32)

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

    def settled_of(self, cps: np.ndarray) -> np.ndarray | None:
        """lower(NFKC(c)) of each character; None when some character is not settled that way."""
        forms = self.settled[cps]
        if len(forms) and forms.max() == _NFKC_UNLEARNT:
            for cp in np.unique(cps[forms == _NFKC_UNLEARNT]).tolist():
                form = unicodedata.normalize("NFKC", chr(cp))
                lower = form.lower()
                self.settled[cp] = (ord(lower) if len(form) == 1 and _settled(form) and len(lower) == 1
                                    and _settled(lower) else _NFKC_SEVERAL)
            forms = self.settled[cps]
        if len(forms) and forms.max() == _NFKC_SEVERAL:
            return None
        return forms

    def classes_of(self, cps: np.ndarray) -> np.ndarray:
        classes = self.token_class[cps]
        if len(classes) and classes.max() == _UNLEARNT:
            unlearnt = classes == _UNLEARNT
            for cp in np.unique(cps[unlearnt]).tolist():
                ch = chr(cp)
                self.token_class[cp] = UNIGRAM if _UNIGRAM_RE.match(ch) else WORD if _WORD_RE.match(ch) else OTHER
            classes = self.token_class[cps]
        return classes


def _settled(ch: str) -> bool:
    """NFKC-normalised, and combines with nothing before it, whatever that is."""
    cp = ord(ch)
    return (any(low <= cp < high for low, high in _SETTLED_BLOCKS) and ch != _CONTEXT_LOWER
            and unicodedata.combining(ch) == 0 and unicodedata.is_normalized("NFKC", ch))


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
    joined = _joined(texts)
    return None if joined is None else _normalize_string(joined, _code_points(joined))


def normalized_code_points(texts: Sequence[str]) -> np.ndarray | None:
    """The code points of `normalize_joined(texts)`, from tables alone when the texts allow it."""
    joined = _joined(texts)
    if joined is None:
        return None
    cps = _code_points(joined)
    settled = _tables().settled_of(cps)
    return settled if settled is not None else _code_points(_normalize_string(joined, cps))


def _joined(texts: Sequence[str]) -> str | None:
    joined = _SEPARATOR.join(texts)
    return joined if joined.count(_SEPARATOR) == max(len(texts) - 1, 0) else None


def _normalize_string(joined: str, cps: np.ndarray) -> str:
    tables = _tables()
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


class _Group:
    """Consecutive topics of a layout whose nuggets' 0/1 token matrices are stacked, padded to the
    most nuggets and columns among them, for one batched matrix product."""

    def __init__(self, topics: list[_TopicNuggets], start: int):
        self.start, self.stop = start, start + len(topics)
        self.width = max((len(t.gids) for t in topics), default=0) or 1
        self.sizes = [len(t.totals) for t in topics]
        shape = (len(topics), max(self.sizes, default=0))
        self.present = np.zeros(shape + (self.width,), np.float32)
        self.totals = np.zeros(shape)
        repeated = [np.zeros((4, 0), np.int64)]  # (topic, nugget, column, count - 1) of each token a
        for i, t in enumerate(topics):  # nugget has twice or more, by topic and nugget
            self.present[i, :t.counts.shape[0], :t.counts.shape[1]] = t.counts > 0
            self.totals[i, :len(t.totals)] = t.totals
            rows, columns = np.nonzero(t.counts > 1)
            repeated.append(np.stack([np.full(len(rows), i), rows, columns, t.counts[rows, columns] - 1]))
        self.topic, self.nugget, self.column, self.more = np.concatenate(repeated, axis=1)
        keys = self.topic * shape[1] + self.nugget
        self.starts = np.flatnonzero(np.diff(keys, prepend=-1))  # where each nugget's cells begin
        self.repeating = self.topic[self.starts], self.nugget[self.starts]

    def scores(self, response: np.ndarray, column: np.ndarray, answers: np.ndarray) -> list[list[float]]:
        """Each topic's nuggets' best s(n, x) from the group's token occurrences, given as (response
        index within the group, column), and the number of answers of each of its topics."""
        best = np.zeros(self.present.shape[:2])
        topic = np.repeat(np.arange(len(answers), dtype=np.int32), answers)  # of each response
        slot = np.arange(len(topic), dtype=np.int32) - np.repeat(np.cumsum(answers, dtype=np.int32) - answers, answers)
        most = int(answers.max(initial=0))
        for first in range(0, most, _SLAB):  # a slab of answers at a time keeps the matrices small
            span = min(_SLAB, most - first)
            row = topic * span + slot - first  # of each response in this slab's count matrix
            cell = row.take(response) * self.width + column
            if most > _SLAB:  # only the responses of this slab
                cell = cell[((slot >= first) & (slot < first + span)).take(response)]
            counts = np.bincount(cell, minlength=len(self.sizes) * span * self.width)
            counts = counts.reshape(len(self.sizes), span, self.width)
            overlap = self.present @ (counts > 0).astype(np.float32).transpose(0, 2, 1)
            if len(self.topic):
                more = np.minimum(self.more[:, None], np.maximum(counts[self.topic, :, self.column] - 1, 0))
                overlap[self.repeating] += np.add.reduceat(more, self.starts, axis=0)
            np.maximum(best, overlap.max(axis=2, initial=0), out=best)
        ratios = np.divide(best, self.totals, out=np.zeros_like(best), where=self.totals > 0).tolist()
        return [row[:size] for row, size in zip(ratios, self.sizes)]


class _Layout:
    """Many topics' nuggets, in groups for the matrix products, and where each topic's tokens are."""

    def __init__(self, topics: list[_TopicNuggets], vocabulary_size: int):
        self.groups: list[_Group] = []
        members: list[_TopicNuggets] = []
        most = (0, 0)
        self.local: np.ndarray | None
        for t in topics:  # as many topics per group as _GROUP_CELLS allows
            most = (max(most[0], len(t.totals), _SLAB), max(most[1], len(t.gids)))
            if members and (len(members) + 1) * most[0] * most[1] > _GROUP_CELLS:
                self.groups.append(_Group(members, sum(len(g.sizes) for g in self.groups)))
                members, most = [], (max(len(t.totals), _SLAB), len(t.gids))
            members.append(t)
        if members:
            self.groups.append(_Group(members, sum(len(g.sizes) for g in self.groups)))
        width = vocabulary_size + 1  # the last column: tokens of no nugget here
        if len(topics) * width <= _DENSE_CELLS:
            self.local = np.full((len(topics), width), -1, np.int32)
            for i, t in enumerate(topics):
                self.local[i, t.gids] = np.arange(len(t.gids))
        else:  # too large to tabulate: sorted (topic, global id) keys instead
            keys = np.concatenate([i * _KEY_SPAN + t.gids for i, t in enumerate(topics)] + [np.zeros(0, np.int64)])
            order = np.argsort(keys)
            self.keys = keys[order]
            self.key_columns = np.concatenate([np.arange(len(t.gids)) for t in topics] + [np.zeros(0, np.int64)])[order]
            self.local = None

    def columns(self, topic: np.ndarray, gids: np.ndarray) -> np.ndarray:
        """Each (topic, global id)'s column in that topic's counts, or -1. The layout is made after
        its topics' nuggets have their ids, so every id the responses can have is below its width."""
        if self.local is not None:
            return self.local.ravel().take(topic * self.local.shape[1] + gids)
        if not len(self.keys):
            return np.full(len(gids), -1, np.int64)
        wanted = topic * _KEY_SPAN + gids
        at = np.minimum(np.searchsorted(self.keys, wanted), len(self.keys) - 1)
        return np.where(self.keys[at] == wanted, self.key_columns[at], -1)

    def scores(self, response: np.ndarray, gid: np.ndarray, answers: np.ndarray) -> list[list[float]]:
        """Every nugget's best s(n, x), topic by topic, from the responses' token occurrences (response
        index in the batch, global token id; in response order) and each topic's number of answers."""
        first = np.concatenate([[0], np.cumsum(answers)])
        scores = []
        for group in self.groups:
            lo, hi = np.searchsorted(response, first[[group.start, group.stop]])
            counts = answers[group.start:group.stop]
            within = response[lo:hi] - first[group.start]
            topic = np.repeat(np.arange(group.start, group.stop), counts).take(within)
            column = self.columns(topic, gid[lo:hi])
            hit = column >= 0
            scores += group.scores(within[hit], column[hit], counts)
        return scores


class BagMatcher:
    """Best softmatch score of every nugget of many topics; nuggets are tokenised once and cached."""

    def __init__(self, tokenizer: Tokenizer, as_set: bool = False):
        self.tokenizer = tokenizer
        self.as_set = as_set
        self.words: dict[str, int] = {}  # word token -> global id
        self.unigrams: dict[int, int] = {}  # code point of a unigram token -> global id
        self._token_table: np.ndarray | None = None  # code point -> global id, _NOT_NUGGETS or _WORD
        self._topics: dict[tuple[str, ...], _TopicNuggets] = {}
        self._layout: tuple[tuple[int, ...], _Layout] | None = None
        self._stop = tokenizer._stop if tokenizer.stopwords else frozenset()
        self._word_tokens: dict[str, str | None] = {}

    # ------------------------------------------------------------ nuggets

    def _gid(self, token: str) -> int:
        if len(token) == 1 and _UNIGRAM_RE.match(token):
            code_point = ord(token)
            gid = self.unigrams.get(code_point)
            if gid is None:
                gid = self.unigrams[code_point] = len(self.words) + len(self.unigrams)
                if self._token_table is not None:
                    self._token_table[code_point] = gid
            return gid
        gid = self.words.get(token)
        if gid is None:
            gid = self.words[token] = len(self.words) + len(self.unigrams)
        return gid

    def _topic(self, texts: tuple[str, ...]) -> _TopicNuggets:
        topic = self._topics.get(texts)
        if topic is None:
            bags: list[dict[str, int]] = [self.tokenizer.counts(t) for t in texts]
            if self.as_set:
                bags = [dict.fromkeys(b, 1) for b in bags]
            column = {tok: i for i, tok in enumerate(dict.fromkeys(tok for b in bags for tok in b))}
            local = {self._gid(tok): i for tok, i in column.items()}
            counts = np.zeros((len(texts), len(local)), np.int64)
            for row, bag in enumerate(bags):
                counts[row, [column[tok] for tok in bag]] = list(bag.values())
            topic = self._topics[texts] = _TopicNuggets(np.fromiter(local, np.int64, len(local)), counts,
                                                        counts.sum(axis=1))
        return topic

    def _layout_of(self, topics: list[_TopicNuggets]) -> _Layout:
        key = tuple(map(id, topics))  # the topics live in self._topics, so their ids stay theirs
        if self._layout is None or self._layout[0] != key:
            self._layout = key, _Layout(topics, len(self.words) + len(self.unigrams))
        return self._layout[1]

    # ------------------------------------------------------------ responses

    def _token_ids(self, cps: np.ndarray) -> np.ndarray:
        """A new array: each character's global id when it is a nugget's unigram token, _WORD for the
        characters of word tokens, _NOT_NUGGETS for the others."""
        if self._token_table is None:
            self._token_table = np.full(_CODE_POINTS, _UNLEARNT_TOKEN, np.int32)
        ids = self._token_table[cps]
        if len(ids) and ids.min() == _UNLEARNT_TOKEN:
            unlearnt = np.unique(cps[ids == _UNLEARNT_TOKEN])
            classes = _tables().classes_of(unlearnt)
            self._token_table[unlearnt] = np.where(classes == WORD, _WORD, _NOT_NUGGETS)
            for cp in unlearnt[classes == UNIGRAM].tolist():
                self._token_table[cp] = self.unigrams.get(cp, _NOT_NUGGETS)
            ids = self._token_table[cps]
        return ids

    def _word_gids(self, cps: np.ndarray, is_word: np.ndarray, ends: np.ndarray) -> np.ndarray:
        """Global id (or -1) of each word token (maximal run of word characters), in order; `ends`:
        where each run ends (one past its last character)."""
        # The word characters with one blank after each word, cut by str.split: word characters are
        # letters and digits, never white space; much faster than a regex over CJK text.
        keep = is_word.copy()
        keep[ends[ends < len(keep)]] = True
        kept = cps[keep]
        kept[~is_word[keep]] = 32
        words = _from_code_points(kept).split()
        if self._stop or self.tokenizer.stem:
            gid = self.words.get
            tokens = map(self._as_token, words)  # None: a stop word
            return np.fromiter((-1 if t is None else gid(t, -1) for t in tokens), np.int64, len(words))
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
        """(response index, global token id) of every response token that some nugget has, in text
        order; None when the texts cannot be joined safely (they contain U+0000)."""
        cps = normalized_code_points(texts)
        if cps is None:
            return None
        gids = self._token_ids(cps)  # a new array: word tokens are written into it at their starts
        is_word = gids == _WORD
        if is_word.any():
            edges = np.diff(is_word.view(np.int8), prepend=np.int8(0), append=np.int8(0))
            word_gids = self._word_gids(cps, is_word, np.flatnonzero(edges == -1))
            known = word_gids >= 0
            gids[np.flatnonzero(edges == 1)[known]] = word_gids[known]
        at = np.flatnonzero(gids >= 0)
        return np.cumsum(cps == 0, dtype=np.int32)[at], gids[at]  # separators before each token

    # ------------------------------------------------------------ scores

    def best_scores(self, topics: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[list[float]] | None:
        """For each (nugget texts, response texts): every nugget's best s(n, x) over the responses.
        None when the batch cannot be done this way (the caller falls back to Counters)."""
        layout = self._layout_of([self._topic(tuple(n)) for n, _ in topics])
        occurrences = self._occurrences([t for _, r in topics for t in r])
        if occurrences is None:
            return None
        return layout.scores(*occurrences, np.array([len(r) for _, r in topics], np.int64))
