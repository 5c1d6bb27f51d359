"""Ingestion: SGML and JSON lines, gzip, the newswire encodings, bad input, duplicates, lookup."""
from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from sepia.corpus.ingest import IngestError
from sepia.corpus.sources import detect_encoding
from sepia.services.documents import document_counts, get_document, ingest, missing_docids
from sepia.store.db import Store
from sepia.store.models import Document

DATA = Path(__file__).parent / "data" / "corpus"
WIKINEWS = Path(__file__).resolve().parents[2] / "shared" / "data" / "jawikinews" / "jawikinews_20190909_detok.jsonl"


@pytest.fixture
def store(tmp_path):
    s = Store(f"sqlite:///{tmp_path / 'corpus.db'}")
    yield s
    s.dispose()


def stored(store, lang=None):
    with store.transaction() as session:
        query = select(Document).order_by(Document.id)
        if lang:
            query = query.where(Document.lang == lang)
        return [(d.docid, d.lang, d.title, d.date, d.text) for d in session.scalars(query)]


def test_sgml_fields_markup_and_entities(store):
    report = ingest(store, "JA", [DATA / "ja_news.sgml"], progress=False)
    assert report.ok and report.stored == 3 and report.files == 1
    docs = {d[0]: d for d in stored(store)}
    assert docs["JA-NEWS-0001"][2:4] == ("選挙管理委員会が投票率を発表", "2008-03-01")
    # <P> markup removed, one line per paragraph, surrounding blank lines dropped
    assert docs["JA-NEWS-0001"][4] == "東京都選挙管理委員会は１日、知事選挙の投票率が５４％だったと発表した。\n前回を３ポイント上回った。"
    # a whole document on one line, no DATE
    assert docs["JA-NEWS-0002"][3] is None and docs["JA-NEWS-0002"][4].startswith("厚生労働省")
    # no HEADLINE: empty title; astral characters kept
    assert docs["JA-NEWS-0003"][2] == "" and "𠮷野家" in docs["JA-NEWS-0003"][4]
    en = ingest(store, "EN", [DATA / "en_news.sgml"], progress=False)
    assert en.ok
    assert "54 percent & more." in get_document_text(store, "EN-NEWS-0001")


def get_document_text(store, docid):
    with store.transaction() as session:
        return get_document(session, docid).text


@pytest.mark.parametrize("lang, fixture, encoding", [
    ("JA", "ja_news.sgml", "euc_jp"),
    ("JA", "ja_news.sgml", "shift_jis"),
    ("CS", "cs_news.sgml", "gbk"),
    ("CS", "cs_news.sgml", "gb2312"),
    ("CT", "ct_news.sgml", "big5"),
])
@pytest.mark.parametrize("compress", [False, True])
def test_encodings_detected_and_gzip(store, tmp_path, lang, fixture, encoding, compress):
    original = (DATA / fixture).read_text(encoding="utf-8")
    if encoding != "euc_jp" and lang == "JA":
        original = original.replace("𠮷", "吉")  # not in Shift_JIS
    if lang == "JA" and encoding == "euc_jp":
        original = original.replace("𠮷", "吉")  # nor in EUC-JP
    data = original.encode(encoding)
    path = tmp_path / (fixture + (".gz" if compress else ""))
    path.write_bytes(gzip.compress(data) if compress else data)
    report = ingest(store, lang, [path], progress=False)
    assert report.ok, [str(p) for p in report.problems]
    reference = Store(f"sqlite:///{tmp_path / 'ref.db'}")
    utf8 = tmp_path / "utf8.sgml"
    utf8.write_text(original, encoding="utf-8")
    ingest(reference, lang, [utf8], progress=False)
    assert stored(store) == stored(reference)
    reference.dispose()


def test_encoding_flag_overrides_detection(store, tmp_path):
    path = tmp_path / "cs.sgml"
    path.write_bytes((DATA / "cs_news.sgml").read_text(encoding="utf-8").encode("gb18030"))
    assert ingest(store, "CS", [path], encoding="GB2312", progress=False).stored == 3
    with pytest.raises(IngestError, match="unknown encoding"):
        ingest(store, "CS", [path], encoding="no-such-codec", progress=False)


def test_detection_order_per_language():
    text = "東京都選挙管理委員会は投票率を発表した。"
    assert detect_encoding(text.encode("euc_jp"), "JA") == "euc_jp"
    assert detect_encoding(text.encode("cp932"), "JA") == "cp932"
    assert detect_encoding(text.encode("utf-8"), "JA") == "utf-8"
    assert detect_encoding("臺灣的資訊科技".encode("big5"), "CT") == "cp950"
    assert detect_encoding("我国的禽流感疫苗".encode("gbk"), "CS") == "gb18030"
    # a multi-byte character cut by the end of the sample does not spoil detection
    assert detect_encoding(text.encode("utf-8")[:-1], "JA") == "utf-8"


def test_malformed_documents_reported_with_line_and_skipped(store):
    report = ingest(store, "EN", [DATA / "malformed.sgml"], progress=False)
    assert [d[0] for d in stored(store)] == ["BAD-0001", "BAD-0007"]
    assert report.stored == 2 and report.skipped == 6 and not report.ok
    where = [(p.line, p.message) for p in report.problems]
    assert all(p.path.endswith("malformed.sgml") for p in report.problems)
    lines = [line for line, _ in where]
    assert lines == [6, 10, 14, 15, 18, 22, 30]
    messages = dict(where)
    assert "without <DOCNO>" in messages[6]
    assert "no <TEXT>" in messages[10]
    assert "outside <DOC>" in messages[14]
    assert "not closed before the next <DOC> at line 18" in messages[15]
    assert "<TEXT> not closed" in messages[18]
    assert "duplicate DOCID BAD-0001" in messages[22]
    assert "not closed at the end of the file" in messages[30]


def test_bad_bytes_skip_only_their_document(store, tmp_path):
    good = "<DOC><DOCNO>A</DOCNO><TEXT>東京</TEXT></DOC>\n".encode("euc_jp")
    bad = b"<DOC><DOCNO>B</DOCNO><TEXT>\xff\xfe</TEXT></DOC>\n"
    path = tmp_path / "mixed.sgml"
    path.write_bytes(good * 1 + bad + good.replace(b"A", b"C"))
    report = ingest(store, "JA", [path], encoding="euc_jp", progress=False)
    assert [d[0] for d in stored(store)] == ["A", "C"]
    assert len(report.problems) == 1 and report.problems[0].line == 2
    assert "not valid euc_jp" in report.problems[0].message


def test_truncated_gzip_is_reported(store, tmp_path):
    rng = random.Random(3)
    docs = "".join(f"<DOC><DOCNO>D{i}</DOCNO><TEXT>{rng.getrandbits(512)}</TEXT></DOC>\n" for i in range(400))
    data = gzip.compress(docs.encode("ascii"))
    path = tmp_path / "cut.sgml.gz"
    path.write_bytes(data[: len(data) // 2])
    report = ingest(store, "EN", [path], progress=False)
    assert 0 < report.stored < 400
    assert "cannot be read" in report.problems[-1].message
    assert report.problems[-1].line == report.stored  # the last line read completely


def test_jsonl(store):
    report = ingest(store, "JA", [DATA / "docs.jsonl"], progress=False)
    docs = {d[0]: d for d in stored(store)}
    assert sorted(docs) == ["2", "J-1", "J-3", "J-8"]
    assert docs["J-1"][2:] == ("地震", "2011-04-07", "宮城県沖で地震があった。")
    assert docs["J-8"][3] == "20110407"
    assert [p.line for p in report.problems] == [5, 6, 7, 8, 9]
    assert "text" in report.problems[0].message and "not valid JSON" in report.problems[1].message
    assert "not a JSON object" in report.problems[2].message
    assert "duplicate DOCID J-1" in report.problems[3].message
    assert "white space" in report.problems[4].message
    with store.transaction() as session:
        assert get_document(session, "J-3").source == "https://example.org/3"
        assert get_document(session, "J-1").source.endswith("docs.jsonl:1")


def test_documents_already_stored_are_refused(store, tmp_path):
    assert ingest(store, "CS", [DATA / "cs_news.sgml"], progress=False).stored == 3
    again = ingest(store, "CS", [DATA / "cs_news.sgml"], progress=False)
    assert again.stored == 0 and again.skipped == 3
    assert all("already stored" in p.message for p in again.problems)
    # the same DOCID in another language is refused too: DOCIDs are unique in the store
    other = tmp_path / "x.jsonl"
    other.write_text(json.dumps({"id": "CS-NEWS-0001", "text": "x"}) + "\n", encoding="utf-8")
    assert ingest(store, "JA", [other], progress=False).stored == 0
    assert document_counts_of(store) == {"CS": 3}


def document_counts_of(store):
    with store.transaction() as session:
        return document_counts(session)


def test_unreadable_input_writes_nothing(store, tmp_path):
    (tmp_path / "plain.txt").write_text("just words\n", encoding="utf-8")
    with pytest.raises(IngestError, match="neither SGML"):
        ingest(store, "EN", [DATA / "en_news.sgml", tmp_path / "plain.txt"], progress=False)
    with pytest.raises(IngestError, match="no such file"):
        ingest(store, "EN", [tmp_path / "missing.sgml"], progress=False)
    with pytest.raises(IngestError, match="unknown language"):
        ingest(store, "XX", [DATA / "en_news.sgml"], progress=False)
    (tmp_path / "junk.sgml").write_bytes(b"<DOC><DOCNO>x</DOCNO><TEXT>\xff\xff</TEXT></DOC>")
    with pytest.raises(IngestError, match="cannot detect the encoding"):
        ingest(store, "CS", [tmp_path / "junk.sgml"], progress=False)
    assert stored(store) == []


def test_directory_and_lookup(store, tmp_path):
    folder = tmp_path / "coll"
    folder.mkdir()
    (folder / "a.sgml").write_bytes((DATA / "cs_news.sgml").read_bytes())
    (folder / ".hidden").write_text("ignored", encoding="utf-8")
    assert ingest(store, "CS", [folder], progress=False).stored == 3
    with store.transaction() as session:
        assert missing_docids(session, ["CS-NEWS-0001", "NOPE-1", "CS-NEWS-0003", "NOPE-1"]) == {"NOPE-1"}
        assert missing_docids(session, []) == set()
        many = [f"X{i}" for i in range(1200)] + ["CS-NEWS-0002"]
        assert missing_docids(session, many) == set(many) - {"CS-NEWS-0002"}
        assert get_document(session, "CS-NEWS-0003").title == "中华人民共和国成立"
        assert get_document(session, "NOPE-1") is None


@pytest.mark.skipif(not WIKINEWS.exists(), reason="shared Japanese Wikinews data not present")
def test_japanese_wikinews_loads_as_it_is(store):
    report = ingest(store, "JA", [WIKINEWS], progress=False)
    assert report.ok and report.stored == 3670
    with store.transaction() as session:
        doc = get_document(session, "0")
    first = json.loads(WIKINEWS.open(encoding="utf-8").readline())
    assert (doc.title, doc.text) == (first["title"], first["text"])


def test_cli_corpus_add_show_stats(tmp_path, monkeypatch):
    from sepia.cli import main

    monkeypatch.setenv("SEPIA_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("SEPIA_DATABASE_URL", raising=False)
    runner = CliRunner()
    result = runner.invoke(main, ["corpus", "add", "cs", str(DATA / "cs_news.sgml"), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "3 documents stored" in result.output
    result = runner.invoke(main, ["corpus", "add", "EN", str(DATA / "malformed.sgml"), "--no-progress"])
    assert result.exit_code == 1
    assert "malformed.sgml:6:" in result.output
    result = runner.invoke(main, ["corpus", "add", "EN", str(tmp_path / "none.sgml")])
    assert result.exit_code == 2
    result = runner.invoke(main, ["corpus", "show", "CS-NEWS-0002", "--json"])
    assert json.loads(result.output)["title"] == "流感季节"
    result = runner.invoke(main, ["corpus", "stats"])
    assert "CS\t3" in result.output and "EN\t2" in result.output
