"""The README's pictures come from the demo: tools/readme_screenshots.py builds the demo campaign,
serves it and photographs one screen per role. This keeps the tool working as the screens change."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TOOL = Path(__file__).resolve().parents[2] / "tools" / "readme_screenshots.py"


def test_readme_screenshots_are_taken_from_the_demo(chromium, tmp_path, monkeypatch):
    monkeypatch.setenv("SEPIA_HOME", str(tmp_path / "home"))
    spec = importlib.util.spec_from_file_location("readme_screenshots", TOOL)
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    taken = tool.take(chromium, tmp_path / "img")
    assert [p.name for p in taken] == ["demo-topic.png", "demo-vote.png", "demo-overview.png", "demo-results.png"]
    for picture in taken:
        data = picture.read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 20_000, picture.name
