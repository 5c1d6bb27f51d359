"""docs/tutorial.md runs: its Python blocks, executed in order in one namespace from the repository's
root, print exactly the `text` block that follows each."""
from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"```(python|text)\n(.*?)```", re.S)


def steps() -> list[tuple[str, str | None]]:
    """Each Python block with the text block right after it (None when code follows code)."""
    blocks = BLOCK.findall(PAGE)
    found: list[tuple[str, str | None]] = []
    for i, (kind, body) in enumerate(blocks):
        if kind == "python":
            after = blocks[i + 1] if i + 1 < len(blocks) else None
            found.append((body, after[1] if after and after[0] == "text" else None))
    return found


def test_the_tutorial_has_code_and_shows_its_output():
    assert len(steps()) >= 8 and all(shown is not None for _, shown in steps())


def test_every_block_prints_what_the_page_shows(monkeypatch):
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    for number, (code, shown) in enumerate(steps(), 1):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(code, f"docs/tutorial.md block {number}", "exec"), namespace)
        assert printed.getvalue() == shown, f"block {number} of docs/tutorial.md"
