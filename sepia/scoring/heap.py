"""Freed memory kept for the next run while runs are scored one after another (glibc only).

Scoring a run makes and drops numpy arrays of a few megabytes. glibc hands blocks that large straight
back to the kernel (mmap above a threshold that only follows the largest block freed, and the heap's
top trimmed), so every run faulted the same pages in again: 15% of `sepia evaluate`'s CPU, 40 runs,
went to page faults in the kernel. Fixed thresholds keep such blocks in the heap for reuse; the peak
memory is the same, what is freed is only not returned before the process ends.
"""
from __future__ import annotations

import ctypes
import os

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # glibc's malloc.h
MMAP_THRESHOLD = 32 << 20  # the largest glibc takes on 64 bits: bigger blocks are still mapped
TRIM_THRESHOLD = 256 << 20


def keep_freed_memory() -> bool:
    """Raise glibc's thresholds for this process; False where the C library is not glibc."""
    try:
        if not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"):
            return False
    except (ValueError, AttributeError):  # no such name here (os.confstr: POSIX only)
        return False
    mallopt = ctypes.CDLL(None).mallopt
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
