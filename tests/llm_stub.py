"""A chat-completions server on 127.0.0.1 for the LLM assessor's tests: an in-process thread that
replays canned replies. `respond(payload)` decides each chat request's answer: a string (the
message content), a `Reply` (an HTTP status, a delay, a body), or a `Hang`. It counts every request
by path; `TestNuggets` reads a request back (the passage and the nuggets listed)."""
from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

MODEL = "stub-model"


@dataclass
class Reply:
    status: int = 200
    content: str = ""
    delay: float = 0.0
    body: bytes | None = None  # in place of a chat-completions object
    headers: tuple = ()


def labels(*names: str) -> str:
    return json.dumps({"labels": list(names)})


def asked(payload: dict) -> tuple[str, list[str]]:
    """(the passage, the nuggets) a request built from a packaged prompt asks about."""
    user = payload["messages"][-1]["content"]
    passage, after = user.split("<<<\n", 1)[1].rsplit("\n>>>", 1)
    return passage, [m.group(1) for m in re.finditer(r"^\d+\. (.*)$", after, re.M)]


def all_support(payload: dict) -> str:
    return labels(*["support"] * len(asked(payload)[1]))


class Stub:
    def __init__(self, respond: Callable[[dict], str | Reply] = all_support, models=(MODEL,)):
        self.respond = respond
        self.models = list(models)
        self.requests: dict[str, int] = {}
        self.payloads: list[dict] = []
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    @property
    def chats(self) -> int:
        return self.requests.get("/v1/chat/completions", 0)

    def __enter__(self) -> Stub:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _handler(self):
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status: int, body: bytes, headers=()):
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self):
                with stub._lock:
                    stub.requests[self.path] = stub.requests.get(self.path, 0) + 1
                if self.path != "/v1/models":
                    return self._send(404, b'{"error": "not found"}')
                data = [{"id": m, "object": "model", "created": int(time.time()), "owned_by": "stub"} for m in stub.models]
                self._send(200, json.dumps({"object": "list", "data": data}).encode())

            def do_POST(self):
                payload = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with stub._lock:
                    stub.requests[self.path] = stub.requests.get(self.path, 0) + 1
                    stub.payloads.append(payload)
                if self.path != "/v1/chat/completions":
                    return self._send(404, b'{"error": "not found"}')
                answer = stub.respond(payload)
                reply = answer if isinstance(answer, Reply) else Reply(content=answer)
                time.sleep(reply.delay)
                body = reply.body if reply.body is not None else json.dumps({
                    "id": "x", "object": "chat.completion", "model": payload.get("model"),
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.content},
                                 "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": len(json.dumps(payload)) // 4,
                              "completion_tokens": len(reply.content) // 4}}).encode()
                try:
                    self._send(reply.status, body, reply.headers)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up waiting
                    pass

        return Handler
