"""`sepia serve`: the web tool on Werkzeug's development server (see docs/web.md for production)."""
from __future__ import annotations

import click


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to listen on.")
@click.option("--port", default=5000, show_default=True, type=int, help="Port to listen on.")
@click.option("--debug", is_flag=True, help="Reload on code changes and show tracebacks (never in production).")
def serve(host: str, port: int, debug: bool) -> None:
    """Serve the web tool (topics, nuggets, voting) for development or a small local campaign."""
    from sepia.web.demo import check_port, run_server

    check_port(host, port)
    run_server(host=host, port=port, debug=debug)
