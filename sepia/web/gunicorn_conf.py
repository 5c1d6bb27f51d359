"""What the production start (docs/web.md) adds to gunicorn's settings:

    gunicorn -c python:sepia.web.gunicorn_conf --workers 3 --threads 8 --bind 127.0.0.1:8080 'sepia.web:create_app()'

A worker that cannot build the application because the disk is full logs that in one line and stops
the server (gunicorn's "Worker failed to boot"), instead of a traceback that buries the cause.

Each worker, once it has built the application and before it takes requests, runs one search in
every indexed collection (`search_pane.warm_up`): otherwise the first search of each language in
each worker waits a second or more (several under load) while the analyzers' dictionaries load.
"""
from __future__ import annotations

import functools


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

    with worker.wsgi.app_context():
        search_pane.warm_up()
