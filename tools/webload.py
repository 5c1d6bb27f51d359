"""What the load tests and the web benchmark share: the documented production start on a fresh
store, browser-like clients over loopback, and a clock that starts once every client is logged in."""
from __future__ import annotations

import contextlib
import http.client
import os
import re
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Iterator
from urllib.parse import urlencode

from sqlalchemy import create_engine, text

PASSWORD = "load-test-password"
TOKEN_RE = re.compile(r'<meta name="csrf-token" content="([^"]+)"')
BIN = Path(sys.executable).parent


class Client:
    """One browser: a keep-alive connection, the session cookie and the CSRF token."""

    def __init__(self, port: int):
        self.port = port
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.cookie = ""
        self.token = ""

    def request(self, method: str, path: str, form: list[tuple[str, str]] | None = None) -> tuple[int, str]:
        headers = {"Cookie": self.cookie} if self.cookie else {}
        body = None
        if form is not None:
            body = urlencode(form + [("csrf_token", self.token)])
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        for attempt in range(2):
            try:
                self.connection.request(method, path, body=body, headers=headers)
                response = self.connection.getresponse()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                if attempt or method == "POST":  # a POST is not repeated: its effect is unknown
                    raise
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        page = response.read().decode("utf-8")
        cookie = response.getheader("Set-Cookie")
        if cookie:
            self.cookie = cookie.split(";", 1)[0]
        found = TOKEN_RE.search(page)
        if found:
            self.token = found.group(1)
        return response.status, page

    def log_in(self, username: str) -> None:
        self.request("GET", "/login")
        status, _ = self.request("POST", "/login", [("username", username), ("password", PASSWORD)])
        if status != 302:
            raise RuntimeError(f"log-in of {username} answered {status}")
        self.request("GET", "/")


class Clock:
    """The load starts when every client has logged in (scrypt on a busy machine takes a while)."""

    def __init__(self, parties: int, seconds: float):
        self.seconds = seconds
        self.start = self.deadline = 0.0
        self.barrier = threading.Barrier(parties, action=self._go)

    def _go(self) -> None:
        self.start = time.time()
        self.deadline = self.start + self.seconds


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_serving(port: int, server: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server ended with status {server.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("the server did not start")


def fresh_database(base_url: str | None, home: Path) -> tuple[str, callable]:
    """A URL for an empty store and a function that removes it."""
    if not base_url or base_url.startswith("sqlite"):
        return f"sqlite:///{home / 'sepia.db'}", lambda: None
    schema = f"load_{uuid.uuid4().hex[:10]}"
    admin = create_engine(base_url)
    with admin.begin() as connection:
        connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    separator = "&" if "?" in base_url else "?"

    def drop() -> None:
        with admin.begin() as connection:
            connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()

    return f"{base_url}{separator}options=-csearch_path%3D{schema}", drop


def server_env(home: Path, url: str | None) -> dict:
    """The environment of a production start on `home` (and the store at `url`), over plain http."""
    env = {**os.environ, "SEPIA_HOME": str(home), "SEPIA_COOKIE_SECURE": "0",
           "SEPIA_LOGIN_FAILURES_PER_ADDRESS": "1000"}
    if url:
        env["SEPIA_DATABASE_URL"] = url
    else:
        env.pop("SEPIA_DATABASE_URL", None)
    return env


@contextlib.contextmanager
def production_server(env: dict, workers: int, threads: int) -> Iterator[tuple[int, list[str]]]:
    """`gunicorn --workers W --threads T 'sepia.web:create_app()'`, as docs/web.md starts SEPIA; yields
    its port and, once it has stopped, the last of what it wrote to standard error in the list."""
    port = free_port()
    server = subprocess.Popen(
        [str(BIN / "gunicorn"), "--workers", str(workers), "--threads", str(threads), "--bind", f"127.0.0.1:{port}",
         "--log-level", "warning", "sepia.web:create_app()"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    errors: list[str] = []
    try:
        wait_until_serving(port, server)
        yield port, errors
    finally:
        server.terminate()
        errors.append(server.communicate(timeout=30)[1][-3000:])


def run_all(threads: list[threading.Thread]) -> None:
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
