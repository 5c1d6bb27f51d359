"""Hostile collection files: lines and documents over the size limit (a gzip bomb among them) and
characters no store can keep. Each costs its own document, reported as PATH:LINE: message; memory
stays bounded. Runs on SQLite and, with SEPIA_TEST_DATABASE_URL, on PostgreSQL."""
from __future__ import annotations

import gzip
import json
import tracemalloc

from click.testing import CliRunner
from sqlalchemy import select

from sepia.services.documents import ingest
from sepia.store.models import Document

LIMIT = 64 * 1024


def stored_docids(store):
    with store.transaction() as session:
        return list(session.scalars(select(Document.docid).order_by(Document.id)))


def messages(report):
    return [f"{p.line}: {p.message}" for p in report.problems]


def jsonl(docid: str, text: str = "fine") -> bytes:
    return (json.dumps({"id": docid, "text": text}) + "\n").encode()


def test_gzip_bomb_line_is_skipped_without_being_held(store, tmp_path):
    """64 MiB of one line compress to about 64 KB; reading it must not cost 64 MiB."""
    path = tmp_path / "bomb.jsonl.gz"
    with gzip.open(path, "wb") as f:
        f.write(jsonl("A"))
        f.write(b'{"id": "HUGE", "text": "')
        for _ in range(64):
            f.write(b"x" * (1 << 20))
        f.write(b'"}\n')
        f.write(jsonl("B"))
    tracemalloc.start()
    try:
        report = ingest(store, "EN", [path], progress=False, max_document_bytes=LIMIT)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [str(p) for p in report.problems] == [f"{path}:2: document longer than {LIMIT} bytes; skipped"]
    assert stored_docids(store) == ["A", "B"] and report.skipped == 1
    assert peak < 8 << 20, peak  # the line is 64 MiB; reading it whole peaked at 192 MiB


def test_sgml_document_over_the_limit(store, tmp_path, monkeypatch):
    """A <DOC> growing past the limit over many lines, and a line over it inside a <DOC>, are each
    reported at their <DOC> line and skipped; the documents around them are stored."""
    monkeypatch.setenv("SEPIA_MAX_DOCUMENT_BYTES", str(LIMIT))
    line = "x" * 1000 + "\n"
    path = tmp_path / "big.sgml"
    path.write_text("<DOC><DOCNO>A</DOCNO><TEXT>a</TEXT></DOC>\n"
                    "<DOC>\n<DOCNO>MANY</DOCNO>\n<TEXT>\n" + line * 100 + "</TEXT>\n</DOC>\n"
                    "<DOC><DOCNO>B</DOCNO><TEXT>b</TEXT></DOC>\n"
                    "<DOC><DOCNO>LONG</DOCNO><TEXT>\n" + "y" * (2 * LIMIT) + "\n</TEXT></DOC>\n"
                    "<DOC><DOCNO>C</DOCNO><TEXT>c" + "z" * (LIMIT - 100) + "</TEXT></DOC>\n",
                    encoding="ascii")
    report = ingest(store, "EN", [path], progress=False)
    assert messages(report) == [f"2: document longer than {LIMIT} bytes; skipped",
                                f"108: document longer than {LIMIT} bytes; skipped"]
    assert stored_docids(store) == ["A", "B", "C"]


def test_unstorable_characters_skip_only_their_document(store, tmp_path):
    """A lone surrogate (valid JSON, no UTF-8 encoding) and NUL (refused by PostgreSQL) are
    reported, never altered; the rest of the collection is stored."""
    path = tmp_path / "chars.jsonl"
    path.write_bytes(jsonl("A") + b'{"id": "B", "text": "lone \\ud800 surrogate"}\n'
                     + jsonl("C", "nul \x00 inside") + b'{"id": "D\\udfff", "text": "x"}\n'
                     + json.dumps({"id": "E", "title": "t\x00", "text": "x"}).encode() + b"\n" + jsonl("F"))
    sgml = tmp_path / "nul.sgml"
    sgml.write_bytes(b"<DOC><DOCNO>G</DOCNO><TEXT>g</TEXT></DOC>\n<DOC><DOCNO>H</DOCNO><TEXT>a\x00b</TEXT></DOC>\n")
    report = ingest(store, "EN", [path, sgml], progress=False)
    assert [str(p) for p in report.problems] == [
        f"{path}:2: text has a lone surrogate (U+D800) at character 6, which cannot be stored; document skipped",
        f"{path}:3: text has NUL (U+0000) at character 5, which cannot be stored; document skipped",
        f"{path}:4: docid has a lone surrogate (U+DFFF) at character 2, which cannot be stored; document skipped",
        f"{path}:5: title has NUL (U+0000) at character 2, which cannot be stored; document skipped",
        f"{sgml}:2: text has NUL (U+0000) at character 2, which cannot be stored; document skipped",
    ]
    assert stored_docids(store) == ["A", "F", "G"] and report.stored == 3 and report.skipped == 5


def test_cli_max_document_bytes(tmp_path):
    from sepia.cli import main

    path = tmp_path / "docs.jsonl"
    path.write_bytes(jsonl("SHORT") + jsonl("LONG", "x" * 200))
    result = CliRunner().invoke(main, ["corpus", "add", "EN", str(path), "--no-progress",
                                       "--max-document-bytes", "100"])
    assert result.exit_code == 1
    assert f"{path}:2: document longer than 100 bytes; skipped" in result.output
    assert "1 documents stored" in result.output
