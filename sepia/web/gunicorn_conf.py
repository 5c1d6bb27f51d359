"""What the production start (docs/web.md) adds to gunicorn's settings:

    gunicorn -c python:sepia.web.gunicorn_conf --workers 3 --threads 8 --bind 127.0.0.1:8080 'sepia.web:create_app()'

A worker that cannot build the application because the disk is full logs that in one line and stops
the server (gunicorn's "Worker failed to boot"), instead of a traceback that buries the cause.

No request waits while a server loads what searching needs (a second or more of CPU per worker,
several under load, issue 34):
- the master, before it listens, imports the web tool's modules (pages.blueprints) and loads the analyzers and
  dictionaries of every indexed language (Sudachi's, jieba's, OpenCC's; sepia.search.units'
  `per_process` objects), which the workers it forks then share instead of loading them each;
- each worker, once it has built the application and before it takes requests, runs one search in
  every indexed collection on each of its threads (`search_pane.warm_up`): a thread keeps its own
  index searchers and Sudachi tokenizer, which must not be shared between threads.
"""
from __future__ import annotations

import functools
import threading

WARM_UP_SECONDS = 120  # how long a worker's threads wait for each other before warming up alone


def on_starting(server) -> None:
    try:
        from sepia.search import analyzers, open_engine
        from sepia.web import pages

        pages.blueprints()  # imports every page's modules (SciPy's statistics among them: seconds)
        analyzers.load(open_engine().languages())
    except Exception as error:  # the workers load what they need on first use, as without this
        server.log.warning("analyzers not loaded before the workers start: %s", error)


def post_fork(server, worker) -> None:
    worker.load_wsgi = _said_in_one_line(worker.load_wsgi, worker.log)


def _said_in_one_line(load_wsgi, log):
    @functools.wraps(load_wsgi)
    def load():
        from sepia.config import sqlite_directory
        from sepia.diskfull import MESSAGE, is_disk_full

        try:
            return load_wsgi()
        except Exception as error:
            if not is_disk_full(error, sqlite_directory()):
                raise
            from gunicorn.arbiter import Arbiter

            log.error(MESSAGE)
            raise SystemExit(Arbiter.WORKER_BOOT_ERROR) from None  # halts the server, no respawning
    return load


def post_worker_init(worker) -> None:
    from sepia.web import search_pane

    app = worker.wsgi

    def warm_up(say=None) -> None:
        with app.app_context():
            search_pane.warm_up(say)

    warm_up(worker.log.info)  # on this thread first: it opens the application's engine, which the threads share
    pool = getattr(worker, "tpool", None)  # gthread's request threads; other worker kinds have none
    if pool is not None:
        threads = worker.cfg.threads
        together = threading.Barrier(threads, timeout=WARM_UP_SECONDS)

        def on_a_thread_of_its_own() -> None:
            try:
                together.wait()  # holding every thread busy makes the pool start all of them
            except threading.BrokenBarrierError:
                pass
            warm_up()

        for done in [pool.submit(on_a_thread_of_its_own) for _ in range(threads)]:
            done.result()
    worker.log.info("ready: every collection searched once")
