"""A freshly started server answers its first searches without loading anything (issue 34): the
master loads the analyzers before it forks the workers, which keep them, and each worker warms
every request thread before it takes requests. tools/bench_cold_search.py measures the times."""
from __future__ import annotations

import logging
import multiprocessing
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

from web_helpers import FakeEngine

from sepia.search import units
from sepia.web import gunicorn_conf


def counting_factory(pause: float = 0.0):
    made = []

    def factory():
        time.sleep(pause)  # long enough for every thread to ask before the first is built
        made.append(object())
        return made[-1]

    return factory, made


def test_a_per_process_object_is_built_once_when_threads_ask_at_once():
    factory, made = counting_factory(pause=0.2)
    get = units.per_process(factory)
    got = []
    threads = [threading.Thread(target=lambda: got.append(get())) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(made) == 1
    assert all(obj is made[0] for obj in got)


def _built_again_in(get, made, answer) -> None:
    get()
    answer.put(len(made))


def test_a_forked_process_keeps_what_its_parent_built():
    factory, made = counting_factory()
    get = units.per_process(factory)
    get()
    fork = multiprocessing.get_context("fork")
    answer = fork.Queue()
    child = fork.Process(target=_built_again_in, args=(get, made, answer))
    child.start()
    built = answer.get(timeout=60)
    child.join(timeout=60)
    assert built == 1  # the parent's one object, not a second built in the child


class ThreadRecordingEngine(FakeEngine):
    def __init__(self):
        super().__init__()
        self.threads = set()

    def search(self, lang, query, page=1, page_size=10):
        self.threads.add(threading.get_ident())
        return super().search(lang, query, page, page_size)


def test_a_worker_warms_every_request_thread_before_it_takes_requests(app):
    engine = app.config["SEARCH_ENGINE"] = ThreadRecordingEngine()
    with ThreadPoolExecutor(max_workers=4) as pool:
        said = []
        gunicorn_conf.post_worker_init(SimpleNamespace(wsgi=app, tpool=pool, cfg=SimpleNamespace(threads=4),
                                                       log=SimpleNamespace(info=said.append)))
        pool_threads = {thread.ident for thread in pool._threads}
    assert len(pool_threads) == 4 and said[-1] == "ready: every collection searched once"
    assert pool_threads | {threading.get_ident()} == engine.threads
    assert sorted(lang for kind, lang, *_ in engine.calls if kind == "search") == ["CS"] * 5 + ["CT"] * 5 + ["JA"] * 5


def test_the_master_loads_the_analyzers_of_the_indexed_languages_before_it_listens(monkeypatch):
    from sepia.search import analyzers

    loaded = []
    monkeypatch.setattr("sepia.search.open_engine", lambda: SimpleNamespace(languages=lambda: ["JA", "CS"]))
    monkeypatch.setattr(analyzers, "load", loaded.extend)
    gunicorn_conf.on_starting(SimpleNamespace(log=logging.getLogger("test")))
    assert loaded == ["JA", "CS"]


def test_a_master_that_cannot_load_the_analyzers_still_starts(monkeypatch, caplog):
    def broken():
        raise OSError("no index directory")

    monkeypatch.setattr("sepia.search.open_engine", broken)
    with caplog.at_level(logging.WARNING):
        gunicorn_conf.on_starting(SimpleNamespace(log=logging.getLogger("test")))
    assert "analyzers not loaded before the workers start: no index directory" in caplog.text

