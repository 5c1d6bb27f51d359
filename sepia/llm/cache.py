"""Every chat completion kept on disk, keyed by a SHA-256 of the server-reported model, the messages
and the request's parameters: a rerun asks nothing and reads back the very same replies. One JSON file
per reply, written to a temporary name and renamed, so threads and processes may share the folder.
What a server last reported of a model is kept too (servers/), so that a rerun whose replies are all
kept needs no request at all, not even the one that asks which model is served."""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path


def default_folder() -> Path:
    return Path(os.environ.get("SEPIA_LLM_CACHE") or Path.home() / ".cache" / "sepia" / "llm")


def key(model: str, payload: dict) -> str:
    """The SHA-256 of the model the server reported and everything sent but the model's name."""
    asked = {k: v for k, v in payload.items() if k != "model"}
    return hashlib.sha256(json.dumps({"model": model, "request": asked}, sort_keys=True,
                                     ensure_ascii=False).encode("utf-8")).hexdigest()


class Cache:
    def __init__(self, folder: Path | str | None = None):
        self.folder = Path(folder) if folder else default_folder()

    def _path(self, digest: str) -> Path:
        return self.folder / digest[:2] / f"{digest}.json"

    def get(self, digest: str) -> dict | None:
        """The reply kept under `digest`; None when absent (or half-written by a crash: asked again)."""
        return self.get_path(self._path(digest))

    def put(self, digest: str, record: dict) -> None:
        self._write(self._path(digest), record)

    def _server_path(self, base_url: str, asked: str) -> Path:
        named = hashlib.sha256(f"{base_url}\n{asked}".encode("utf-8")).hexdigest()
        return self.folder / "servers" / f"{named}.json"

    def served(self, base_url: str, asked: str) -> tuple[str, str] | None:
        """The (model ID, identity) the server at `base_url` last reported for the model `asked`."""
        found = self.get_path(self._server_path(base_url, asked))
        return (found["model"], found["identity"]) if found else None

    def remember_served(self, base_url: str, asked: str, model: str, identity: str) -> None:
        self._write(self._server_path(base_url, asked), {"model": model, "identity": identity})

    @staticmethod
    def get_path(path: Path) -> dict | None:
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    @staticmethod
    def _write(path: Path, record: dict) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(record, out, ensure_ascii=False, sort_keys=True)
        os.replace(temporary, path)
