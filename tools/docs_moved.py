"""Whether moving text between docs pages lost any: every line of a fenced block, every table row, every
image and every sentence that docs/*.md (and README.md) held at a git revision must still be on some
page now, wherever it went. White space and links are ignored (a moved paragraph may wrap
differently, and a link to moved text points at its new place: tests/test_spec.py checks every link).

    .venv/bin/python tools/docs_moved.py [REVISION]        # default main; exit 1 if anything is lost
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^\s*```")
SENTENCE_END = re.compile(r"(?<=[.:;])\s+(?=[A-Z`(*\[])")
LINK = re.compile(r"\[[^\[\]\n]*\]\([^)\s]*\)")


def squeeze(text: str) -> str:
    return " ".join(LINK.sub("[link]", text).split())


def pieces(page: str) -> list[str]:
    """The page's fenced lines, table rows, images and the sentences of its paragraphs, white space squeezed."""
    found, paragraph, fenced = [], [], False

    def close_paragraph() -> None:
        text = squeeze(" ".join(paragraph))
        found.extend(s for s in SENTENCE_END.split(text) if s)
        paragraph.clear()

    for line in page.splitlines():
        if FENCE.match(line):
            close_paragraph()
            fenced = not fenced
        elif fenced or line.lstrip().startswith(("|", "![")):
            close_paragraph()
            found.append(squeeze(line))
        elif not line.strip() or line.startswith("#"):
            close_paragraph()
        else:
            paragraph.append(line)
    close_paragraph()
    return [p for p in found if p]


def lost(before: dict[str, str], after: dict[str, str]) -> list[tuple[str, str]]:
    """(page, piece) of every piece of the pages before that no page after holds."""
    now = "\n".join(squeeze(line) for text in after.values() for line in text.splitlines())
    now_joined = squeeze(" ".join(after.values()))
    return [(name, piece) for name, text in before.items() for piece in pieces(text)
            if piece not in now and piece not in now_joined]


def pages_at(revision: str) -> dict[str, str]:
    names = subprocess.run(["git", "ls-tree", "--name-only", revision, "docs/"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.split()
    names = [n for n in names if n.endswith(".md")] + ["README.md"]
    return {n: subprocess.run(["git", "show", f"{revision}:{n}"], cwd=ROOT, check=True, capture_output=True,
                              text=True).stdout for n in names}


def pages_now() -> dict[str, str]:
    paths = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in paths}


def main(argv: list[str]) -> int:
    revision = argv[1] if len(argv) > 1 else "main"
    missing = lost(pages_at(revision), pages_now())
    for name, piece in missing:
        print(f"{name}: {piece}")
    print(f"{len(missing)} pieces of the docs at {revision} are on no page now", file=sys.stderr)
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
