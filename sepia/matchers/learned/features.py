"""The evidence features of one (response, nugget) pair, from the two texts and the topic's nuggets.

Nothing here reads a judgment: these are the features a model may use for any run, judged or not.
Token weights come from the topic's own nuggets (a word in many of them, typically the question's
subject, says little about which nugget a response holds), so a pair's features do not depend on
which other runs are scored with it.
"""
from __future__ import annotations

import math
from collections import Counter
from os.path import commonprefix
from typing import Iterable, Mapping, Sequence

from sepia.matchers.learned.evidence import PREFIX, Text, prefix
from sepia.matchers.softmatch import overlap
THETA = 0.5

# One name per column of `pair_features`, in order.
FEATURES = (
    "softmatch",                # docs/spec.md's s(n, x), default tokens, as a bag
    "binarized",                # softmatch > 0.5: BINARIZED's decision
    "recall",                   # weighted share of the nugget's content words in the response
    "sentence_recall",          # the same in the response's best sentence
    "window_recall",            # ... in its best two consecutive sentences
    "sentence_precision",       # share of the best sentence's content words that are the nugget's
    "prefix_recall",            # best sentence, words compared by their first five characters
    "soft_recall",              # whole response, each word credited by its longest shared prefix
    "rarest_missing",           # weight of the most informative nugget word the response lacks
    "unigram_recall",           # character unigrams of the nugget found in the response
    "bigram_recall",            # character bigrams of the nugget found in the response
    "sentence_bigram_recall",   # ... in the best sentence
    "sentence_bigram_precision",  # the best sentence's character bigrams found in the nugget
    "common_substring",         # longest common substring / nugget length (characters)
    "nugget_has_numbers",
    "numbers_found",            # share of the nugget's numbers and dates the response states (1 if none)
    "nugget_has_entities",
    "entities_found",           # share of the nugget's entity-like words in the response (1 if none)
    "response_length",          # log(1 + characters)
    "response_sentences",
    "nugget_words",
    "nugget_weight",            # log(1 + the nugget's summed word weights): how much it says
)


def token_weights(nuggets: Sequence[Text]) -> dict[str, float]:
    """IDF of each content word over the topic's nuggets: log(1 + N / df)."""
    df = Counter(t for n in nuggets for t in n.tokens)
    return {t: math.log(1 + len(nuggets) / d) for t, d in df.items()}


def _weighted(tokens: frozenset[str], present, weights: dict[str, float]) -> float:
    ordered = sorted(tokens)  # a set's order changes with the hash seed, and with it a float sum's last bit
    total = sum(weights.get(t, 1.0) for t in ordered)
    return sum(weights.get(t, 1.0) for t in ordered if present(t)) / total if total else 0.0


def _share(wanted: frozenset[str], found: frozenset[str]) -> float:
    return len(wanted & found) / len(wanted) if wanted else 0.0


def common_substring(nugget: str, response: str) -> int:
    """Longest substring of `nugget` found in `response`: a binary search on the length, each step
    asking whether some substring of that length occurs (str `in`, in C)."""
    low, high = 0, len(nugget)
    while low < high:
        length = (low + high + 1) // 2
        if any(nugget[i:i + length] in response for i in range(len(nugget) - length + 1)):
            low = length
        else:
            high = length - 1
    return low


def soft_credit(word: str, tokens: frozenset[str], by_prefix: Mapping[str, Iterable[str]]) -> float:
    """1 for a word the response has; else the longest prefix of at least five characters it shares
    with one of the response's words (`by_prefix`: those words by their first five characters), over
    the longer word's length ("protest" against "protesting": 7 / 10); 0 otherwise. Stemmed words
    that still differ ("captiv", "captur") share too little."""
    if word in tokens:
        return 1.0
    if len(word) < PREFIX:
        return 0.0
    return max((len(commonprefix((word, t))) / max(len(word), len(t)) for t in by_prefix.get(word[:PREFIX], ())),
               default=0.0)


def best_sentence(nugget: Text, response: Text, weights: dict[str, float]) -> int:
    """Index of the response sentence that holds most of the nugget's weighted content words."""
    scores = [_weighted(nugget.tokens, s.__contains__, weights) for s in response.sentence_tokens]
    return max(range(len(scores)), key=scores.__getitem__)


def pair_features(nugget: Text, response: Text, weights: dict[str, float]) -> list[float]:
    """The FEATURES of one pair."""
    n_counts, x_counts = nugget.counts, response.counts
    total = sum(n_counts.values())
    soft = overlap(n_counts, x_counts) / total if total else 0.0
    words = nugget.tokens
    sentence_tokens = response.sentence_tokens
    best = best_sentence(nugget, response, weights)
    windows = [a | b for a, b in zip(sentence_tokens, sentence_tokens[1:])] or sentence_tokens
    best_tokens = sentence_tokens[best]
    best_prefixes = frozenset(prefix(t) for t in best_tokens)
    missing = [weights.get(t, 1.0) for t in words if t not in response.tokens]
    bigram_scores = [_share(nugget.bigrams, b) for b in response.sentence_bigrams]
    best_bigram = max(range(len(bigram_scores)), key=bigram_scores.__getitem__)
    best_bigrams = response.sentence_bigrams[best_bigram]
    squeezed = nugget.squeezed
    return [
        soft,
        1.0 if soft > THETA else 0.0,
        _weighted(words, response.tokens.__contains__, weights),
        _weighted(words, best_tokens.__contains__, weights),
        max(_weighted(words, w.__contains__, weights) for w in windows),
        len(best_tokens & words) / len(best_tokens) if best_tokens else 0.0,
        _weighted(words, lambda t: prefix(t) in best_prefixes, weights),
        _soft_recall(words, response, weights),
        max(missing, default=0.0),
        _share(nugget.chars, response.chars),
        _share(nugget.bigrams, response.bigrams),
        bigram_scores[best_bigram],
        len(best_bigrams & nugget.bigrams) / len(best_bigrams) if best_bigrams else 0.0,
        common_substring(squeezed, response.squeezed) / len(squeezed) if squeezed else 0.0,
        1.0 if nugget.numbers else 0.0,
        _share(nugget.numbers, response.numbers) if nugget.numbers else 1.0,
        1.0 if nugget.entities else 0.0,
        sum(e in response.lowered for e in nugget.entities) / len(nugget.entities) if nugget.entities else 1.0,
        math.log1p(len(response.squeezed)),
        float(len(response.sentences)),
        float(len(words)),
        math.log1p(sum(weights.get(t, 1.0) for t in sorted(words))),
    ]


def _soft_recall(words: frozenset[str], response: Text, weights: dict[str, float]) -> float:
    ordered = sorted(words)
    total = sum(weights.get(t, 1.0) for t in ordered)
    credit = sum(weights.get(t, 1.0) * soft_credit(t, response.tokens, response.by_prefix) for t in ordered)
    return credit / total if total else 0.0


def aligned_tokens(nugget: Text, response: Text, weights: dict[str, float]) -> frozenset[str]:
    """The content words of the response's sentence best aligned with the nugget: what the response
    says where it speaks of the nugget, compared with other responses' by judgment reuse."""
    return response.sentence_tokens[best_sentence(nugget, response, weights)]
