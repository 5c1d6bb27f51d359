"""Freed blocks of a few megabytes stay in the heap for the next run (sepia.scoring.heap): the
pages of blocks made again are not faulted in again."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

# Three "runs", each making and dropping six arrays of 4 MB (numpy's own cache holds only small
# blocks); prints the page faults of the last two.
RUNS = """
import resource, sys
import numpy as np
from sepia.scoring.heap import keep_freed_memory
if sys.argv[1] == "keep":
    assert keep_freed_memory()
def run():
    blocks = [np.ones(4 << 20, np.uint8) for _ in range(6)]
run()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
run(); run()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def faults(mode: str) -> int:
    done = subprocess.run([sys.executable, "-c", RUNS, mode], capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    return int(done.stdout)


@pytest.mark.skipif(not (getattr(os, "confstr", lambda _: "")("CS_GNU_LIBC_VERSION") or "").startswith("glibc"),
                    reason="glibc's malloc only")
def test_blocks_made_again_are_not_faulted_in_again():
    kept, returned = faults("keep"), faults("default")
    assert returned > 1000  # glibc gave the blocks back to the kernel after each run
    assert kept < returned / 10
