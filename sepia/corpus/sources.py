"""Reading collection files as numbered text lines: gzip by content, the encodings newswire
corpora ship in chosen by a flag or detected, a bad byte reported with its line."""
from __future__ import annotations

import codecs
import gzip
import io
import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

SAMPLE_BYTES = 256 * 1024
SKIP_BYTES = 64 * 1024  # the rest of an overlong line is read and dropped this much at a time

# Tried in order on a sample; the first that decodes it wins. Supersets are used where they are
# safe: GB18030 reads GB2312 and GBK text, CP950 reads Big5, CP932 reads Shift_JIS as Windows
# and most Japanese corpora wrote it.
DETECT = {
    "JA": ("utf-8", "euc_jp", "cp932"),
    "CS": ("utf-8", "gb18030"),
    "CT": ("utf-8", "cp950", "big5hkscs"),
    "EN": ("utf-8", "cp1252"),
}
ALIASES = {"gb2312": "gb18030", "gbk": "gb18030", "euc-cn": "gb18030", "euc_cn": "gb18030",
           "cp936": "gb18030", "utf8": "utf-8"}


class SourceError(Exception):
    """A file that cannot be read at all (missing, unknown encoding, undetectable)."""


@dataclass(frozen=True)
class Line:
    number: int
    text: str
    error: str | None = None   # set when the line's bytes were not valid in the encoding
    size: int = 0              # bytes, without the line break; over the limit, text is empty


def codec_name(encoding: str) -> str:
    name = ALIASES.get(encoding.lower(), encoding)
    try:
        return codecs.lookup(name).name
    except LookupError:
        raise SourceError(f"unknown encoding {encoding!r}") from None


def is_gzip(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


def open_bytes(path: Path) -> tuple[io.BufferedIOBase, io.BufferedReader]:
    """(stream of the file's content, the raw file whose position tracks progress)."""
    raw = open(path, "rb")
    if is_gzip(path):
        return gzip.GzipFile(fileobj=raw, mode="rb"), raw
    return raw, raw


def sample(path: Path) -> bytes:
    """The first bytes of the content; a truncated gzip yields what it has (reported later, at
    its line, by read_lines)."""
    stream, raw = open_bytes(path)
    pieces, size = [], 0
    try:
        while size < SAMPLE_BYTES:
            piece = stream.read(min(4096, SAMPLE_BYTES - size))  # small: a truncated gzip loses one
            if not piece:
                break
            pieces.append(piece)
            size += len(piece)
    except (EOFError, gzip.BadGzipFile):
        pass
    except OSError as exc:
        raise SourceError(f"{path}: cannot read: {exc}") from exc
    finally:
        raw.close()
    return b"".join(pieces)


def detect_encoding(data: bytes, lang: str) -> str | None:
    """The first candidate of the language that decodes the sample (a character cut at the end
    of the sample is allowed); None when none does."""
    if data.startswith(codecs.BOM_UTF8):
        return "utf-8"
    for candidate in DETECT.get(lang.upper(), DETECT["EN"]):
        decoder = codecs.getincrementaldecoder(candidate)("strict")
        try:
            decoder.decode(data, final=False)
        except UnicodeDecodeError:
            continue
        return codecs.lookup(candidate).name
    return None


def read_lines(path: Path, encoding: str, max_bytes: int,
               on_bytes: Callable[[int], None] | None = None) -> Iterator[Line]:
    """Numbered lines, each decoded on its own so one bad byte costs one line, not the file.
    (Line-by-line decoding is exact for these encodings: none uses 0x0A inside a character.)
    A line longer than `max_bytes` comes back empty with its size: no more than `max_bytes` of
    it is ever held, however long the line (a gzip bomb)."""
    stream, raw = open_bytes(path)
    position = 0
    try:
        for number in itertools.count(1):
            data = stream.readline(max_bytes + 1)
            if not data:
                break
            size = len(data) - data.endswith(b"\n")
            if size > max_bytes:
                while data and not data.endswith(b"\n"):
                    data = stream.readline(SKIP_BYTES)
                    size += len(data) - data.endswith(b"\n")
                yield Line(number, "", size=size)
                continue
            if number == 1 and data.startswith(codecs.BOM_UTF8):
                data = data[len(codecs.BOM_UTF8):]
            try:
                yield Line(number, data.decode(encoding), size=size)
            except UnicodeDecodeError as exc:
                yield Line(number, data.decode(encoding, "replace"),
                           f"bytes not valid {encoding} at byte {exc.start + 1} of the line", size)
            if on_bytes and number % 256 == 0:
                now = raw.tell()
                on_bytes(now - position)
                position = now
    except (OSError, EOFError, gzip.BadGzipFile) as exc:
        yield Line(-1, "", f"file cannot be read past this point: {exc}")
    finally:
        if on_bytes:
            on_bytes(max(0, raw.tell() - position) if not raw.closed else 0)
        raw.close()
