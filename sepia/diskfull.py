"""A full disk, told apart from other failures wherever it surfaces (the store's driver, the file
system), so that every entry point says it in one line instead of a traceback."""
from __future__ import annotations

import errno

MESSAGE = "disk full: nothing was saved"
_SQLITE_FULL = 13  # SQLITE_FULL: "database or disk is full"
_POSTGRES_DISK_FULL = "53100"  # disk_full
_WORDS = ("database or disk is full", "no space left on device", "disk is full")


def is_disk_full(error: BaseException | None) -> bool:
    """Whether `error`, or an error it wraps or was raised from, is a full disk."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if _says_full(error):
            return True
        error = getattr(error, "orig", None) or error.__cause__ or error.__context__
    return False


def _says_full(error: BaseException) -> bool:
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    if getattr(error, "sqlite_errorcode", None) == _SQLITE_FULL or getattr(error, "sqlstate", None) == _POSTGRES_DISK_FULL:
        return True
    return any(words in str(error).lower() for words in _WORDS)
