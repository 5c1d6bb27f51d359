"""`sepia demo` serves with the production server docs/web.md recommends (gunicorn here, waitress
where gunicorn does not run), without Werkzeug's development-server warning."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from sepia.web import demo, gunicorn_conf


def test_the_demo_server_is_gunicorn_with_the_production_hooks():
    server = demo.production_server("127.0.0.1", 5099)
    assert server.cfg.bind == ["127.0.0.1:5099"] and server.cfg.workers == 1 and server.cfg.threads == demo.THREADS
    assert server.cfg.post_fork is gunicorn_conf.post_fork and server.cfg.post_worker_init is gunicorn_conf.post_worker_init


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.slow
def test_make_demo_serves_without_the_development_warning(tmp_path):
    port = _free_port()
    process = subprocess.Popen([sys.executable, "-m", "sepia", "demo", "--home", str(tmp_path / "demo"), "--port",
                                str(port), "--no-progress"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        deadline, page = time.monotonic() + 300, None
        while page is None and time.monotonic() < deadline and process.poll() is None:
            try:
                page = urllib.request.urlopen(f"http://127.0.0.1:{port}/login", timeout=5).read().decode()
            except OSError:
                time.sleep(0.1)
        assert page is not None and "password" in page.lower()
    finally:
        process.send_signal(signal.SIGINT)
        output = process.communicate(timeout=60)[0]
    assert "Starting the production server" in output and "Booting worker" in output, output
    assert "loading the JA search analyzer" in output and "ready: every collection searched once" in output
    assert "Control socket" not in output
    assert "development server" not in output.lower() and "WARNING" not in output, output
