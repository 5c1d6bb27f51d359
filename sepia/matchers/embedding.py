"""embedding (issue 31): how close a response comes to a nugget in meaning, from multilingual sentence
embeddings (multilingual-e5-small, `sepia.text.embeddings`; the `embeddings` extra): the nugget read
as a query, each of the response's sentences as a passage, the pair's similarity the best sentence's
cosine, mapped to [0, 1] by a fixed logistic curve (`calibrated`). A nugget scores its best response's
value, a degree like softmatch's, and F counts it as it counts softmatch's.

Its use is as a feature of the learned model in judging plans (`sepia metaeval budget --matcher learned
--feature embedding`, `pair_values`): alone it ranks runs no better than the word-overlap matchers.
Each text is embedded once (kept for later processes in the embedding cache, sepia/text/embedding_cache.py),
every text of the runs at once when the matcher is shown them first (`learn`, as the evaluator does),
with a progress bar for long work.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from sepia.formats.model import Answer, CCLQARun, GoldNugget, GoldStandard
from sepia.matchers.base import MatcherKind, MatcherOptions
from sepia.matchers.learned.evidence import sentences
from sepia.text.embeddings import Embeddings

# calibrated(c) = 1 / (1 + exp(-SLOPE (c - MIDPOINT))): the logistic regression of the sample campaign's
# human decisions (corpora/cs, 377 judged pairs; support 1, partial 0.5, none 0) on the best sentence's
# cosine, fixed here so that no campaign it is measured on (TREC RAG 2024, docs/metaeval.md) shaped it.
# The curve matters to the learned model: on TREC RAG 2024 the cosine's correlation with the human
# decisions is 0.27, the calibrated value's 0.47 (the high cosines are where support is decided).
SLOPE = 68.0
MIDPOINT = 0.91


def calibrated(cosine: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-SLOPE * (np.asarray(cosine, float) - MIDPOINT)))


class EmbeddingMatcher:
    name = "embedding"

    def __init__(self, embeddings: Embeddings | None = None):
        self.embeddings = embeddings or Embeddings(progress=True)

    def similarities(self, nuggets: Sequence[str], responses: Sequence[str]) -> np.ndarray:
        """nuggets x responses: each response's best sentence's cosine with each nugget, calibrated."""
        if not len(nuggets) or not len(responses):
            return np.zeros((len(nuggets), len(responses)))
        split = [sentences(r) or [r] for r in responses]
        queries = self.embeddings.vectors(nuggets, "query")
        passages = self.embeddings.vectors([s for ss in split for s in ss], "passage")
        cosines = queries @ passages.T
        starts = np.cumsum([0] + [len(ss) for ss in split[:-1]])
        best = np.maximum.reduceat(cosines, starts, axis=1)
        return calibrated(best)

    def learn(self, gold: GoldStandard, runs: Sequence[CCLQARun]) -> EmbeddingMatcher:
        """Every text these runs' scores will need embedded at once (batched, one progress bar)."""
        nuggets = [n.text for t in gold.topics for n in t.nuggets]
        responses = [a.text for r in runs for t in r.topics for a in t.answers]
        self.embeddings.vectors(nuggets, "query")
        self.embeddings.vectors([s for r in dict.fromkeys(responses) for s in sentences(r) or [r]], "passage")
        return self

    def scores(self, run_id: str, topic_id: str, nuggets: Sequence[GoldNugget],
               answers: Sequence[Answer]) -> list[float]:
        values = self.similarities([n.text for n in nuggets], [a.text for a in answers])
        return values.max(axis=1).tolist() if values.shape[1] else [0.0] * len(nuggets)


def _make(options: MatcherOptions) -> EmbeddingMatcher:
    return EmbeddingMatcher()


KIND = MatcherKind(
    name="embedding", label="embedding (e5)", automatic=True, make=_make, opt_in=True,
    summary="each nugget scores its best response's sentence embedding similarity (multilingual-e5-small, "
            "the embeddings extra)")
