"""An OpenAI-compatible chat-completions client over plain HTTP (urllib): no SDK, no tokenizer, no
download of any kind. Every request has a time-out; 429, 5xx, a refused connection and a time-out
are retried a bounded number of times with exponential backoff; anything else is an `LLMError` with
one line."""
from __future__ import annotations

import http.client
import json
import os
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

RETRIED_STATUS = (408, 409, 429, 500, 502, 503, 504)
MAX_WAIT = 30.0  # seconds: the longest backoff or Retry-After a request waits


class LLMError(ValueError):
    """The server cannot be used: one line saying why."""


@dataclass(frozen=True)
class Reply:
    content: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    attempts: int


@dataclass(frozen=True)
class Client:
    base_url: str
    api_key_env: str = ""
    timeout: float = 60.0
    retries: int = 3
    backoff: float = 1.0  # seconds before the first retry; doubled at each

    def api_key(self) -> str:
        if not self.api_key_env:
            return ""
        key = os.environ.get(self.api_key_env, "")
        if not key:
            raise LLMError(f"the environment variable {self.api_key_env} (api_key_env) holding the API key is not set")
        return key

    def models(self) -> list[dict]:
        """The models the server serves (`GET /models`), each as the server describes it."""
        body, _ = self._request("GET", "/models", None)
        listed = body.get("data") if isinstance(body, dict) else None
        if not isinstance(listed, list) or not all(isinstance(m, dict) and "id" in m for m in listed):
            raise LLMError(f"{self._url('/models')} does not list models as an OpenAI-compatible server does")
        return listed

    def chat(self, payload: dict) -> Reply:
        """One chat completion; the first choice's message content, the tokens the server counted."""
        started = time.monotonic()
        body, attempts = self._request("POST", "/chat/completions", payload)
        try:
            content = body["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise LLMError(f"{self._url('/chat/completions')} answered without choices[0].message.content") from None
        usage = body.get("usage") or {}
        return Reply(content if isinstance(content, str) else "", int(usage.get("prompt_tokens") or 0),
                     int(usage.get("completion_tokens") or 0), time.monotonic() - started, attempts)

    def _url(self, path: str) -> str:
        return self.base_url.rstrip("/") + path

    def _request(self, method: str, path: str, payload: dict | None) -> tuple[dict, int]:
        url = self._url(path)
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = self.api_key()
        if key:
            headers["Authorization"] = f"Bearer {key}"
        data = json.dumps(payload).encode("utf-8") if payload is not None else None
        for attempt in range(1, self.retries + 2):
            wait = self.backoff * 2 ** (attempt - 1)
            try:
                request = urllib.request.Request(url, data=data, headers=headers, method=method)
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    raw = response.read()
                try:
                    return json.loads(raw), attempt
                except ValueError:
                    raise LLMError(f"{url} answered with something other than JSON: {raw[:60]!r}") from None
            except urllib.error.HTTPError as exc:
                if exc.code not in RETRIED_STATUS:
                    raise LLMError(f"{url} answered HTTP {exc.code} {exc.reason}{_detail(exc)}") from None
                failure = f"HTTP {exc.code} {exc.reason}"
                wait = max(wait, _retry_after(exc))
            except (urllib.error.URLError, http.client.HTTPException, socket.timeout, TimeoutError,
                    ConnectionError) as exc:  # refused, cut off, timed out, a broken answer
                reason = getattr(exc, "reason", exc)
                failure = f"no answer ({reason or 'timed out'})"
            if attempt <= self.retries:
                time.sleep(min(wait, MAX_WAIT))
        raise LLMError(f"{url}: {failure} after {self.retries + 1} attempts")


def _retry_after(exc: urllib.error.HTTPError) -> float:
    try:
        return float(exc.headers.get("Retry-After") or 0)
    except ValueError:
        return 0.0


def _detail(exc: urllib.error.HTTPError) -> str:
    try:
        text = exc.read().decode("utf-8", "replace").strip()
    except OSError:
        return ""
    return f": {' '.join(text.split())[:120]}" if text else ""
