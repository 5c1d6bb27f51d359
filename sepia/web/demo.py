"""What `sepia demo` and `sepia serve` use: a server runner (the demo accounts are
`sepia.services.accounts.seed_demo_accounts`)."""
from __future__ import annotations

import socket

def check_port(host: str, port: int) -> None:
    """Refuse, with the fix, a port another program listens on (before any slow work starts)."""
    import click

    try:
        with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
            probe.bind((host, port))
    except OSError as error:
        raise click.ClickException(
            f"cannot listen on {host}:{port}: {error.strerror} (is an earlier `sepia demo` or `sepia serve` still "
            f"running?). Stop it, or choose another port: `make demo PORT={port + 1}` or `--port {port + 1}`."
        ) from None


def is_local(host: str) -> bool:
    return host in ("127.0.0.1", "localhost", "::1")


def _settings(host: str, config: dict | None) -> dict:
    """Cookies are marked Secure unless the server only listens on this machine, where plain http is
    the norm (a Secure cookie would never come back)."""
    return {"SESSION_COOKIE_SECURE": not is_local(host), **(config or {})}


def run_server(host: str = "127.0.0.1", port: int = 5000, debug: bool = False, config: dict | None = None) -> None:
    """Serve the tool with Werkzeug's development server (`sepia serve`)."""
    from sepia.web import create_app, search_pane

    app = create_app(_settings(host, config))
    with app.app_context():  # the analyzers' dictionaries load now, not while the first search waits
        search_pane.warm_up()
    app.run(host=host, port=port, debug=debug, use_reloader=debug, threaded=True)


THREADS = 8  # one process of threads is plenty for a demo (docs/web.md sizes a real campaign)


def production_server(host: str, port: int, config: dict | None = None):
    """The production server docs/web.md recommends, on one worker of THREADS threads: gunicorn with
    sepia.web.gunicorn_conf's hooks, or (where gunicorn does not run: Windows) None, for waitress."""
    try:
        from gunicorn.app.base import BaseApplication
    except ImportError:
        return None
    from sepia.web import gunicorn_conf

    class Server(BaseApplication):
        def load_config(self):
            for key, value in {"bind": f"{host}:{port}", "workers": 1, "threads": THREADS, "worker_class": "gthread",
                               "on_starting": gunicorn_conf.on_starting, "post_fork": gunicorn_conf.post_fork,
                               "post_worker_init": gunicorn_conf.post_worker_init}.items():
                self.cfg.set(key, value)
            if "control_socket_disable" in self.cfg.settings:  # gunicorn 25+: no socket in ~/.gunicorn for a demo
                self.cfg.set("control_socket_disable", True)

        def load(self):
            from sepia.web import create_app

            return create_app(_settings(host, config))

    return Server()


def run_production_server(host: str = "127.0.0.1", port: int = 5000, config: dict | None = None) -> None:
    server = production_server(host, port, config)
    if server is not None:
        server.run()
        return
    from waitress import serve

    from sepia.web import create_app

    serve(create_app(_settings(host, config)), host=host, port=port, threads=THREADS)
