"""tools/heartbeat.py, which keeps `make setup` and `make test` from going silent: the command's
output passes through, a line says it is still working after each quiet spell, its status is kept."""
from __future__ import annotations

import importlib.util
import io
import sys
from pathlib import Path

TOOL = Path(__file__).resolve().parents[1] / "tools" / "heartbeat.py"
spec = importlib.util.spec_from_file_location("heartbeat", TOOL)
heartbeat = importlib.util.module_from_spec(spec)
spec.loader.exec_module(heartbeat)


def test_output_passes_through_and_silence_is_filled():
    out = io.BytesIO()
    command = [sys.executable, "-c", "import sys, time; print('begin', flush=True); time.sleep(1.5); print('end'); "
               "sys.exit(3)"]
    status, (longest, at), over = heartbeat.run(command, every=0.2, label="still busy", out=out)
    lines = out.getvalue().decode().replace("\r\n", "\n").splitlines()
    beats = [line for line in lines if line.startswith("  ... still busy (")]
    assert status == 3 and [line for line in lines if line not in beats] == ["begin", "end"] and over == 0
    assert len(beats) >= 3 and longest < 1.0   # a line each 0.2 s broke the 1.5 s of silence


def test_longest_silence_is_measured_without_heartbeats():
    status, (longest, at), over = heartbeat.run([sys.executable, "-c", "import time; time.sleep(0.6); print(1)"],
                                                every=100, label="-", out=io.BytesIO())
    assert status == 0 and 0.5 < longest < 5 and at == 0.0 and over == 0
