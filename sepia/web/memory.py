"""Giving back the memory of a large request. A 16 MB run upload's validation and import take some
hundreds of MB in a worker; Python frees them, but glibc keeps freed memory in each thread's arena,
so after ten uploads a worker sat 1 GB above where it started. After a request with a large body the
arenas are trimmed (glibc's malloc_trim; elsewhere nothing is done)."""
from __future__ import annotations

import ctypes
import ctypes.util

from flask import request

LARGE_BODY = 1 << 20  # bytes: below this a request frees too little to be worth a trim


def _malloc_trim():
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None


MALLOC_TRIM = _malloc_trim()


def trim_after_large_request(_exc) -> None:
    """teardown_request: hand freed memory back to the system after a large upload."""
    if MALLOC_TRIM is not None and (request.content_length or 0) >= LARGE_BODY:
        MALLOC_TRIM(0)
