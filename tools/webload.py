"""What the load tests and the web benchmark share: the documented production start on a fresh
store, browser-like clients over loopback, and a clock that starts once every client is logged in."""
from __future__ import annotations

import contextlib
import http.client
import os
import re
import selectors
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from dataclasses import dataclass, field
from typing import Callable, Iterator, NamedTuple
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
            time.sleep(0.05)
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


@dataclass
class Server:
    """A running production start: its port, its master's process ID and, once it has stopped, the
    last of what it wrote to standard error."""
    port: int
    pid: int
    errors: list[str] = field(default_factory=list)
    serving_since: float = 0.0  # when it first accepted a connection

    def cpu_seconds(self) -> float:
        """CPU time (user + system) the master and its workers have used so far."""
        return sum(_cpu_seconds(pid) for pid in [self.pid, *_children(self.pid)])


TICKS = os.sysconf("SC_CLK_TCK")


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0  # a worker that ended meanwhile
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except FileNotFoundError:  # a thread that ended meanwhile
            continue
    return found


@contextlib.contextmanager
def production_server(env: dict, workers: int, threads: int) -> Iterator[Server]:
    """`gunicorn -c python:sepia.web.gunicorn_conf --workers W --threads T 'sepia.web:create_app()'`, as
    docs/web.md starts SEPIA."""
    port = free_port()
    server = subprocess.Popen(
        [str(BIN / "gunicorn"), "-c", "python:sepia.web.gunicorn_conf", "--workers", str(workers),
         "--threads", str(threads), "--bind", f"127.0.0.1:{port}", "--log-level", "warning", "sepia.web:create_app()"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    running = Server(port, server.pid)
    try:
        wait_until_serving(port, server)
        running.serving_since = time.time()
        yield running
    finally:
        server.terminate()
        running.errors.append(server.communicate(timeout=30)[1][-3000:])


class LeanClients:
    """Many keep-alive clients driven by one thread over raw sockets, so that the load generator
    costs the machine little and no client waits for another's turn at Python's interpreter lock
    before it reads the clock. Each client has its session cookie and a function that names its
    next request; `on_answer(client, name, status, seconds)` hears every answer."""

    def __init__(self, port: int, cookies: list[str], next_request: Callable[[int], tuple[str, str]],
                 on_answer: Callable[[int, str, int, float], None]):
        self.port, self.cookies, self.next_request, self.on_answer = port, cookies, next_request, on_answer
        self.selector = selectors.DefaultSelector()

    def run(self, seconds: float) -> None:
        deadline = time.perf_counter() + seconds
        for index in range(len(self.cookies)):
            self._send(index, self._connect(), self._next(index))
        while self.selector.get_map():
            for key, _events in self.selector.select(timeout=5):
                index, state = key.data
                try:
                    chunk = key.fileobj.recv(1 << 16)
                except ConnectionResetError:
                    chunk = b""
                if not chunk:  # the server closed a kept-alive connection: the request goes again
                    self._close(key.fileobj)
                    self._send(index, self._connect(), state)
                    continue
                state["buffer"] += chunk
                answer = _complete_answer(state["buffer"])
                if answer is None:
                    continue
                self.on_answer(index, state["name"], answer.status, time.perf_counter() - state["started"])
                if answer.cookie:  # as a browser keeps it (the first page adds the CSRF token)
                    self.cookies[index] = answer.cookie
                connection = key.fileobj
                if time.perf_counter() >= deadline:
                    self._close(connection)
                    continue
                if answer.closing:
                    self._close(connection)
                    connection = self._connect()
                self._send(index, connection, self._next(index))

    def _connect(self) -> socket.socket:
        connection = socket.create_connection(("127.0.0.1", self.port))
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return connection

    def _close(self, connection: socket.socket) -> None:
        self.selector.unregister(connection)
        connection.close()

    def _next(self, index: int) -> dict:
        name, path = self.next_request(index)
        request = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: {self.cookies[index]}\r\n"
                   "Accept-Encoding: identity\r\n\r\n").encode()
        return {"name": name, "request": request}

    def _send(self, index: int, connection: socket.socket, state: dict) -> None:
        state.update(buffer=b"", started=time.perf_counter())
        connection.sendall(state["request"])
        if connection in self.selector.get_map():
            self.selector.modify(connection, selectors.EVENT_READ, (index, state))
        else:
            self.selector.register(connection, selectors.EVENT_READ, (index, state))


class Answer(NamedTuple):
    status: int
    closing: bool  # the server closes the connection after it
    cookie: str  # the session cookie it sets ("name=value"), or ""


def _complete_answer(buffer: bytes) -> Answer | None:
    """A whole HTTP/1.1 answer (it has a Content-Length), or None while more is to come."""
    head_end = buffer.find(b"\r\n\r\n")
    if head_end < 0:
        return None
    lines = buffer[:head_end].decode("latin-1").split("\r\n")
    fields = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    if len(buffer) - head_end - 4 < int(fields.get("content-length", 0)):
        return None
    return Answer(int(lines[0].split()[1]), fields.get("connection", "").lower() == "close",
                  fields.get("set-cookie", "").split(";", 1)[0])


def run_all(threads: list[threading.Thread]) -> None:
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
