"""What the production start (docs/web.md) adds to gunicorn's settings:

    gunicorn -c python:sepia.web.gunicorn_conf --workers 3 --threads 8 --bind 127.0.0.1:8080 'sepia.web:create_app()'

Each worker, once it has built the application and before it takes requests, runs one search in
every indexed collection (`search_pane.warm_up`): otherwise the first search of each language in
each worker waits a second or more (several under load) while the analyzers' dictionaries load.
"""
from __future__ import annotations


def post_worker_init(worker) -> None:
    from sepia.web import search_pane

    with worker.wsgi.app_context():
        search_pane.warm_up()
