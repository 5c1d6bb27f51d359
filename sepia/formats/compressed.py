"""A compressed file given where SEPIA reads text: one problem naming the compression (`file is
gzip-compressed`), instead of the first byte that is not UTF-8 (gzip's second byte, 0x8b)."""
from __future__ import annotations

from sepia.formats.errors import Problem

# (leading bytes, the compression, the command that undoes it)
SIGNATURES = (
    (b"\x1f\x8b", "gzip", "gunzip"),
    (b"BZh", "bzip2", "bunzip2"),
    (b"\xfd7zXZ\x00", "xz", "unxz"),
    (b"\x28\xb5\x2f\xfd", "zstd", "unzstd"),
    (b"PK\x03\x04", "zip", "unzip"),
)


def compressed_problem(name: str, head: bytes) -> Problem | None:
    """The problem to report for a file whose first bytes are `head`, when they are a compressed
    file's signature; None otherwise. Callers ask only once the bytes failed to decode as UTF-8, so a
    text file that happens to start with "BZh" is never taken for bzip2."""
    for signature, kind, command in SIGNATURES:
        if head.startswith(signature):
            return Problem(name, 1, 1, f"file is {kind}-compressed: SEPIA reads it uncompressed "
                                       f"(`{command} {name}` first)")
    return None
