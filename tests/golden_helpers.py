"""Golden files: outputs written once from the code before a change (`SEPIA_WRITE_GOLDEN=1`) and
compared byte for byte after it (tests/test_web_golden_pages.py, tests/test_cli_golden.py)."""
from __future__ import annotations

import os
from pathlib import Path

GOLDEN = Path(__file__).parent / "golden"
WRITE = os.environ.get("SEPIA_WRITE_GOLDEN") == "1"


def as_golden(path: Path, got: bytes) -> bool:
    """Whether `got` is the golden file's bytes; with SEPIA_WRITE_GOLDEN=1 it becomes them."""
    if WRITE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(got)
        return True
    return path.read_bytes() == got
