"""The LLM assessor: for each (response, nuggets) item it asks the server, `batch` nuggets per request
as AutoNuggetizer does, at most `concurrency` requests at a time, whether the response supports each
nugget. Every reply is cached (`cache`); a batch whose answer cannot be read leaves its nuggets
undecided (None), counted by the caller, never scored as a silent 0."""
from __future__ import annotations

import hashlib
import json
import math
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Mapping, Sequence

from sepia.text.progress import maybe_progress
from sepia.llm import labels, prompts
from sepia.llm.cache import Cache, key
from sepia.llm.client import Client, LLMError

OPTIONS = {
    "base_url": "the server's OpenAI-compatible API, e.g. http://127.0.0.1:8080/v1 (required)",
    "model": "the model to ask (default: the only one the server serves)",
    "api_key_env": "the environment variable holding the API key (default: none sent)",
    "batch": "nuggets per request (default 10, as AutoNuggetizer)",
    "concurrency": "requests at a time (default 4)",
    "timeout": "seconds a request may take (default 60)",
    "retries": "retries of a request refused with 429/5xx or timed out, with exponential backoff (default 3)",
    "backoff": "seconds before the first retry, doubled at each (default 1)",
    "prompt": "a prompt file in place of the packaged ones (sepia/llm/prompts/assign.*.txt)",
    "cache": "the folder of cached replies (default $SEPIA_LLM_CACHE or ~/.cache/sepia/llm)",
    "max_tokens": "the longest answer asked for (default 256)",
    "structured": "json_schema (default), json_object or none: how the JSON answer is asked for",
}
STRUCTURED = ("json_schema", "json_object", "none")
# The pair every connection is checked with: a model that cannot label it answers nonsense.
PROBE = ("Water boils at 100 degrees Celsius at sea level.", ["Water boils at 100 °C at sea level."])


@dataclass(frozen=True)
class Config:
    base_url: str
    model: str = ""
    api_key_env: str = ""
    batch: int = 10
    concurrency: int = 4
    timeout: float = 60.0
    retries: int = 3
    backoff: float = 1.0
    prompt: str = ""
    cache: str = ""
    max_tokens: int = 256
    structured: str = "json_schema"

    @classmethod
    def parse(cls, extra: Mapping[str, str]) -> Config:
        """The options given as --matcher-option; ValueError (one line) for a missing or bad one."""
        if not extra.get("base_url"):
            raise ValueError("the llm matcher needs its server: --matcher-option base_url=http://HOST:PORT/v1")
        if not extra["base_url"].startswith(("http://", "https://")):
            raise ValueError(f"the llm matcher's base_url is an http:// or https:// URL, not {extra['base_url']!r}")
        given: dict = {}
        for name, kind, low in (("batch", int, 1), ("concurrency", int, 1), ("retries", int, 0),
                                ("max_tokens", int, 1), ("timeout", float, 0.001), ("backoff", float, 0)):
            if name in extra:
                try:
                    given[name] = kind(extra[name])
                except ValueError:
                    given[name] = None
                if given[name] is None or given[name] < low:
                    raise ValueError(f"the llm matcher's {name} is a number of at least {low:g}, not {extra[name]!r}")
        if extra.get("structured", "json_schema") not in STRUCTURED:
            raise ValueError(f"the llm matcher's structured is one of {', '.join(STRUCTURED)}, not {extra['structured']!r}")
        text: dict = {k: extra[k] for k in ("base_url", "model", "api_key_env", "prompt", "cache", "structured") if k in extra}
        return cls(**text, **given)


@dataclass
class Usage:
    """What the requests cost; added to under a lock (requests finish on worker threads' behalf)."""
    requests: int = 0
    cached: int = 0
    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, record: dict, asked: bool) -> None:
        with self.lock:
            if asked:
                self.requests += 1
                self.attempts += record.get("attempts", 1)
                self.seconds += record.get("seconds", 0.0)
            else:
                self.cached += 1
            self.prompt_tokens += record.get("prompt_tokens", 0)
            self.completion_tokens += record.get("completion_tokens", 0)

    def line(self) -> str:
        return (f"{self.requests} requests ({self.attempts - self.requests} retries) and {self.cached} replies "
                f"from the cache; {self.prompt_tokens:,} prompt + {self.completion_tokens:,} completion tokens; "
                f"{self.seconds:.1f} s of requests (summed over concurrent ones)")

    def as_dict(self) -> dict:
        return {**{k: getattr(self, k) for k in ("requests", "cached", "attempts", "prompt_tokens", "completion_tokens")},
                "seconds": round(self.seconds, 3)}


@dataclass(frozen=True)
class Item:
    """One response (a run's answers to a topic, joined) and the nuggets to decide on it."""
    lang: str
    response: str
    nuggets: tuple[str, ...]


@lru_cache(maxsize=32)
def served_model(client: Client, asked: str) -> tuple[str, str]:
    """(the model's ID, its identity: what the server says of it, less the time of asking)."""
    listed = client.models()
    ids = [m["id"] for m in listed]
    if asked and asked not in ids:
        shown = ", ".join(ids[:5]) or "none"
        raise LLMError(f"{client.base_url} does not serve the model {asked!r} (it serves: {shown})")
    if not asked and len(ids) != 1:
        raise LLMError(f"{client.base_url} serves {len(ids)} models; name one with --matcher-option model=ID")
    entry = listed[ids.index(asked or ids[0])]
    return entry["id"], json.dumps({k: v for k, v in entry.items() if k != "created"}, sort_keys=True)


class Assessor:
    def __init__(self, config: Config):
        self.config = config
        self.client = Client(config.base_url, config.api_key_env, config.timeout, config.retries, config.backoff)
        self.cache = Cache(config.cache or None)
        self.own_prompt = prompts.load(config.prompt) if config.prompt else None
        self.usage = Usage()
        self.model = config.model
        self.identity = ""
        self._checked = False  # whether the server was asked which model it serves
        self._checking = threading.Lock()

    def prompt(self, lang: str) -> prompts.Prompt:
        return self.own_prompt or prompts.packaged("assign", lang)

    def identify(self) -> Assessor:
        """The model the server serves, as it last reported it where the cache keeps that (asking
        nothing: its identity is checked before the first request that the cache cannot answer), else
        asked now (once a process): LLMError when the key is missing, nothing answers or the model is
        not served."""
        self.client.api_key()
        kept = self.cache.served(self.config.base_url, self.config.model)
        if kept is not None:
            self.model, self.identity = kept
            return self
        self._checked = True
        self.model, self.identity = served_model(self.client, self.config.model)
        self.cache.remember_served(self.config.base_url, self.config.model, self.model, self.identity)
        return self

    def describe(self) -> dict[str, str]:
        """The model and the prompts that decide, for the settings and `versions` of a report."""
        described = {"llm_model": self.model, "llm_model_sha256": _sha256(self.identity)}
        if self.own_prompt:
            return {**described, "llm_prompt_sha256": self.own_prompt.digest}
        return {**described, **{f"llm_prompt_{lang}_sha256": self.prompt(lang).digest for lang in prompts.LANGS}}

    def connect(self) -> Assessor:
        """`identify`, then have the model label one plain pair: LLMError (one line) also when its answer
        cannot be read."""
        self.identify()
        payload, count = self.requests(Item("EN", PROBE[0], tuple(PROBE[1])))[0]
        record = self.cache.get(key(self.identity, payload)) or self._ask(payload)  # not counted in `usage`
        if labels.parse(record["content"], count) is None:
            raise LLMError(f"the model {self.model} at {self.config.base_url} answers something other than the "
                           f"labels asked for: {' '.join(record['content'].split())[:80]!r}")
        return self

    def requests(self, item: Item) -> list[tuple[dict, int]]:
        """The chat requests one item takes: (payload, number of nuggets asked about)."""
        size = self.config.batch
        return [(self._payload(item.lang, item.response, item.nuggets[i:i + size]), len(item.nuggets[i:i + size]))
                for i in range(0, len(item.nuggets), size)]

    def decide(self, items: Sequence[Item]) -> list[list[str | None]]:
        """Each item's labels, one per nugget (None: undecided); the requests not in the cache are
        sent `concurrency` at a time."""
        batches = [(n, payload, count) for n, item in enumerate(items) for payload, count in self.requests(item)]
        keys = [key(self.identity, payload) for _, payload, _ in batches]
        found = {k: self.cache.get(k) for k in dict.fromkeys(keys)}
        missing = [(k, payload) for k, (_, payload, _) in zip(keys, batches) if found[k] is None]
        missing = list(dict(missing).items())
        failed = threading.Event()  # a request failed for good: the ones not yet sent are not sent

        def ask(payload: dict) -> dict | None:
            if failed.is_set():
                return None
            try:
                return self._ask(payload)
            except LLMError:
                failed.set()
                raise

        pool = ThreadPoolExecutor(max_workers=self.config.concurrency)
        try:  # a bar on stderr when it is a terminal: a campaign's requests may take hours
            with maybe_progress(bool(missing), f"asking {self.model}", len(missing), "requests") as advance:
                for k, record in zip([k for k, _ in missing], pool.map(ask, [p for _, p in missing])):
                    found[k] = record
                    if advance:
                        advance()
        finally:
            pool.shutdown(cancel_futures=True)
        asked = {k for k, _ in missing}
        decided: list[list[str | None]] = [[] for _ in items]
        for k, (n, _, count) in zip(keys, batches):
            record = found[k] or {"content": ""}
            self.usage.add(record, asked=k in asked)
            asked.discard(k)  # a request asked once and used twice is one request
            decided[n] += labels.parse(record["content"], count) or [None] * count
        return decided

    def ask(self, payload: dict) -> dict:
        """One request's record, from the cache or the server (then kept)."""
        found = self.cache.get(key(self.identity, payload))
        record = found or self._ask(payload)
        self.usage.add(record, asked=found is None)
        return record

    def _check_identity(self) -> None:
        """Before the first request the cache could not answer: the server must still serve the model the
        kept identity names, or the replies kept and those asked now would be of two models (LLMError;
        the new identity is kept, so a rerun asks the new model throughout)."""
        with self._checking:
            if self._checked:
                return
            model, identity = served_model(self.client, self.config.model)
            self._checked = True
            if identity != self.identity:
                self.cache.remember_served(self.config.base_url, self.config.model, model, identity)
                raise LLMError(f"{self.config.base_url} now serves another {model} than the one whose replies are "
                               "kept: run again to ask it throughout")

    def _ask(self, payload: dict) -> dict:
        self._check_identity()
        reply = self.client.chat(payload)
        record = {"content": reply.content, "prompt_tokens": reply.prompt_tokens,
                  "completion_tokens": reply.completion_tokens, "seconds": round(reply.seconds, 3),
                  "attempts": reply.attempts}
        self.cache.put(key(self.identity, payload), record)
        return record

    def _payload(self, lang: str, response: str, nuggets: Sequence[str]) -> dict:
        listed = "\n".join(f"{i}. {' '.join(text.split())}" for i, text in enumerate(nuggets, 1))
        payload = {"model": self.model, "temperature": 0, "max_tokens": self.config.max_tokens,
                   "messages": self.prompt(lang).messages(count=str(len(nuggets)), nuggets=listed, response=response)}
        if self.config.structured == "json_object":
            payload["response_format"] = {"type": "json_object"}
        elif self.config.structured == "json_schema":
            payload["response_format"] = {"type": "json_schema", "json_schema": {"name": "labels", "strict": True, "schema": {
                "type": "object", "required": ["labels"], "additionalProperties": False,
                "properties": {"labels": {"type": "array", "minItems": len(nuggets), "maxItems": len(nuggets),
                                          "items": {"type": "string", "enum": list(labels.VALUES)}}}}}}
        return payload


def estimate(assessor: Assessor, items: Sequence[Item]) -> dict:
    """What deciding the items would cost, asking nothing (the cache unread): requests, and tokens estimated without a
    tokenizer (4 characters of a Latin script or 1 CJK character a token; about 6 tokens a label)."""
    planned = [(payload, count) for item in items for payload, count in assessor.requests(item)]
    prompt_tokens = sum(_tokens(json.dumps(payload["messages"], ensure_ascii=False)) for payload, _ in planned)
    return {"requests": len(planned), "decisions": sum(c for _, c in planned),
            "prompt_tokens": prompt_tokens, "completion_tokens": sum(6 * c + 8 for _, c in planned)}


def _tokens(text: str) -> int:
    wide = sum(1 for ch in text if ord(ch) >= 0x2E80)
    return wide + math.ceil((len(text) - wide) / 4)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()

