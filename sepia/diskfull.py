"""A full disk, told apart from other failures wherever it surfaces (the store's driver, the file
system), so that every entry point says it in one line instead of a traceback."""
from __future__ import annotations

import errno
import os
from pathlib import Path

MESSAGE = "disk full: nothing was saved"
_SQLITE_FULL = 13  # SQLITE_FULL: "database or disk is full"
_SQLITE_IOERR = 10  # SQLITE_IOERR: "disk I/O error" (the low byte of every extended I/O error code)
MIN_ROOM = 1 << 20  # bytes: with less free, an I/O error of the store is taken for a full disk
_POSTGRES_DISK_FULL = "53100"  # disk_full
_WORDS = ("database or disk is full", "no space left on device", "disk is full")


def is_disk_full(error: BaseException | None, store_dir: str | Path | None = None) -> bool:
    """Whether `error`, or an error it wraps or was raised from, is a full disk. With `store_dir`,
    the directory of a SQLite store, an I/O error while that file system has no room is one too:
    opening a store in WAL mode that no other process has open creates its -wal and -shm files,
    and SQLite reports failing to for want of room as "disk I/O error", not "disk is full"."""
    seen = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if _says_full(error) or (store_dir is not None and _io_error(error) and no_room(store_dir)):
            return True
        error = getattr(error, "orig", None) or error.__cause__ or error.__context__
    return False


def _says_full(error: BaseException) -> bool:
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    if getattr(error, "sqlite_errorcode", None) == _SQLITE_FULL or getattr(error, "sqlstate", None) == _POSTGRES_DISK_FULL:
        return True
    return any(words in str(error).lower() for words in _WORDS)


def _io_error(error: BaseException) -> bool:
    code = getattr(error, "sqlite_errorcode", None)
    return (code is not None and code & 0xFF == _SQLITE_IOERR) or "disk i/o error" in str(error).lower()


def no_room(directory: str | Path) -> bool:
    """Whether the file system of `directory` has less than MIN_ROOM bytes free."""
    try:
        stats = os.statvfs(directory)
    except OSError:
        return False
    return stats.f_bavail * stats.f_frsize < MIN_ROOM
