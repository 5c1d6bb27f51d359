"""Prompt files: a `[system]` section and a `[user]` section, with {placeholders} filled in by plain
replacement (a prompt may hold JSON braces). The package holds one file per task and target language
(assign.EN.txt, assign.CS.txt, ...); `prompt=FILE` puts a user's own file in its place. A prompt's
SHA-256 is recorded with the scores it decided."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

FOLDER = Path(__file__).parent / "prompts"
LANGS = ("EN", "CS", "CT", "JA")


@dataclass(frozen=True)
class Prompt:
    path: str
    system: str
    user: str

    @property
    def digest(self) -> str:
        return hashlib.sha256(f"[system]\n{self.system}\n[user]\n{self.user}".encode("utf-8")).hexdigest()

    def messages(self, **values: str) -> list[dict]:
        user = self.user
        for name, value in values.items():
            user = user.replace("{" + name + "}", value)
        return [{"role": "system", "content": self.system}, {"role": "user", "content": user}]


def load(path: Path | str) -> Prompt:
    """A prompt file; ValueError (one line) when it cannot be read or lacks a section."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the prompt ({exc.__class__.__name__})") from None
    head, marker, user = text.partition("[user]\n")
    if not marker or not head.lstrip().startswith("[system]"):
        raise ValueError(f"{path}:1:1: a prompt file is a [system] section, then a [user] section")
    return Prompt(str(path), head.lstrip()[len("[system]"):].strip(), user.strip())


def packaged(task: str, lang: str) -> Prompt:
    """The package's prompt for that task in that language (English for a language it lacks)."""
    return load(FOLDER / f"{task}.{lang if lang in LANGS else 'EN'}.txt")
