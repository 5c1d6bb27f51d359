"""The persistent embedding cache (sepia/text/embedding_cache.py) as Embeddings uses it, with a fake
engine counting what it embeds: a later 'process' (a new Embeddings) embeds nothing already cached and
gets the same vectors bit for bit; a new text or role is embedded and kept; the opt-out; a damaged or
unusable file falls back to computing with one warning; threads and processes filling the file at once
lose nothing."""
from __future__ import annotations

import hashlib
import logging
import multiprocessing
import sqlite3
import threading
from contextlib import closing

import numpy as np
import pytest

from sepia.text import embeddings as embeddings_module
from sepia.text.embeddings import Embeddings, model_id

DIM = 8
TEXTS = ["a cat", "a dog", "东京是日本的首都。", "a bird", "a cat"]


def _vector(text: str, is_query: bool) -> np.ndarray:
    """A deterministic vector of full float32 precision per (text, role)."""
    seed = int.from_bytes(hashlib.sha256(f"{is_query}\0{text}".encode()).digest()[:8], "little")
    return np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)


class FakeEngine:
    variant = "fake"
    dim = DIM

    def __init__(self, seen: list):
        self.seen = seen

    def encode(self, texts, is_query):
        self.seen.extend((t, is_query) for t in texts)
        return np.array([_vector(t, is_query) for t in texts], np.float32)


@pytest.fixture
def seen(monkeypatch) -> list:
    """The (text, is_query) pairs the fake engine embedded, in order, over every Embeddings."""
    embedded: list = []
    monkeypatch.setattr(embeddings_module, "engine", lambda: FakeEngine(embedded))
    monkeypatch.delenv("SEPIA_EMBEDDINGS_CACHE", raising=False)
    return embedded


def _expected(texts, role) -> np.ndarray:
    return np.array([_vector(t, role == "query") for t in texts], np.float32)


def _cache_file(sepia_home):
    return sepia_home / "embeddings" / f"{model_id(FakeEngine([]))}.sqlite"


def test_a_later_process_embeds_nothing_cached(seen, sepia_home):
    first = Embeddings().vectors(TEXTS, "passage")
    assert seen == [(t, False) for t in dict.fromkeys(TEXTS)]
    with closing(sqlite3.connect(_cache_file(sepia_home))) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert connection.execute("SELECT count(*) FROM vectors").fetchone() == (4,)
    seen.clear()
    again = Embeddings().vectors(TEXTS, "passage")
    assert seen == []
    assert again.dtype == np.float32 and again.tobytes() == first.tobytes() == _expected(TEXTS, "passage").tobytes()


def test_a_new_text_or_role_is_embedded_and_kept(seen):
    Embeddings().vectors(["a cat", "a dog"], "passage")
    seen.clear()
    later = Embeddings()
    got = later.vectors(["a dog", "a fish"], "passage")
    queries = later.vectors(["a cat"], "query")      # the same text as a query is another vector
    assert seen == [("a fish", False), ("a cat", True)]
    assert got.tobytes() == _expected(["a dog", "a fish"], "passage").tobytes()
    assert queries.tobytes() == _expected(["a cat"], "query").tobytes()
    seen.clear()
    Embeddings().vectors(["a fish", "a dog"], "passage")
    Embeddings().vectors(["a cat"], "query")
    assert seen == []


def test_the_opt_out_computes_everything(seen, sepia_home, monkeypatch):
    Embeddings().vectors(TEXTS, "passage")
    seen.clear()
    Embeddings(cache=False).vectors(TEXTS, "passage")
    assert len(seen) == 4
    seen.clear()
    monkeypatch.setenv("SEPIA_EMBEDDINGS_CACHE", "0")
    assert Embeddings().vectors(TEXTS, "passage").tobytes() == _expected(TEXTS, "passage").tobytes()
    assert len(seen) == 4


def test_a_garbage_file_falls_back_with_one_warning(seen, sepia_home, caplog):
    path = _cache_file(sepia_home)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a database, " * 512)
    embeddings = Embeddings()
    with caplog.at_level(logging.WARNING):
        first = embeddings.vectors(TEXTS, "passage")
        second = embeddings.vectors(["a fish"], "query")
    assert first.tobytes() == _expected(TEXTS, "passage").tobytes()
    assert second.tobytes() == _expected(["a fish"], "query").tobytes()
    assert len(seen) == 5
    assert [r.getMessage() for r in caplog.records] == [
        f"warning: the embedding cache {path} cannot be used (file is not a database); the embeddings are computed"]


def test_a_damaged_row_is_computed_again(seen, sepia_home):
    Embeddings().vectors(["a cat", "a dog"], "passage")
    with closing(sqlite3.connect(_cache_file(sepia_home))) as connection, connection:
        connection.execute("UPDATE vectors SET vector = substr(vector, 1, 12)")   # 3 floats of 8
        connection.execute("DELETE FROM vectors WHERE role = 'passage' AND key = ?",
                           [hashlib.sha256(b"a dog").digest()])
    seen.clear()
    got = Embeddings().vectors(["a cat", "a dog"], "passage")
    assert seen == [("a cat", False), ("a dog", False)]
    assert got.tobytes() == _expected(["a cat", "a dog"], "passage").tobytes()
    seen.clear()
    Embeddings().vectors(["a cat", "a dog"], "passage")    # both written again, whole
    assert seen == []


def test_an_unwritable_place_falls_back(seen, sepia_home, caplog):
    sepia_home.mkdir()
    (sepia_home / "embeddings").write_text("a file where the directory should be")
    with caplog.at_level(logging.WARNING):
        got = Embeddings().vectors(TEXTS, "passage")
    assert got.tobytes() == _expected(TEXTS, "passage").tobytes()
    assert len(caplog.records) == 1 and "cannot be used" in caplog.records[0].getMessage()


def test_the_model_names_the_file():
    other = FakeEngine([])
    other.dim = 16
    names = {model_id(FakeEngine([])), model_id(other)}
    assert len(names) == 2 and all(n.startswith("multilingual-e5-small-fake-") for n in names)


def _fill(texts: list[str]) -> None:
    Embeddings().vectors(texts, "passage")


TOGETHER = [f"sentence {i}" for i in range(600)]


def _check_all_kept(seen) -> None:
    seen.clear()
    got = Embeddings().vectors(TOGETHER, "passage")
    assert seen == []
    assert got.tobytes() == _expected(TOGETHER, "passage").tobytes()


def test_threads_filling_it_at_once_lose_nothing(seen):
    # overlapping halves, each its own Embeddings (its own connections), started together
    parts = [TOGETHER[:400], TOGETHER[200:], TOGETHER[::-1]]
    threads = [threading.Thread(target=_fill, args=(part,)) for part in parts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    _check_all_kept(seen)


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="the fake engine goes by fork")
def test_processes_filling_it_at_once_lose_nothing(seen):
    context = multiprocessing.get_context("fork")
    processes = [context.Process(target=_fill, args=(part,)) for part in (TOGETHER[:400], TOGETHER[200:])]
    for process in processes:
        process.start()
    for process in processes:
        process.join(60)
    assert [p.exitcode for p in processes] == [0, 0]
    _check_all_kept(seen)
