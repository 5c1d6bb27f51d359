"""MS MARCO v2.1 segment shards (TREC RAG's collection shape: gzipped JSON lines of `docid` with
`#`, `url`, `title`, `headings`, `segment`, `start_char`, `end_char`) added with `sepia corpus add`
and found by both search engines."""
from __future__ import annotations

import gzip
import json

import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.search import open_engine
from sepia.search.engine import ENGINES, remember_engine
from sepia.services.documents import get_document, ingest
from sepia.services.indexing import build_index

TOPICS = ["steam engines powered the first textile mills", "prisons offer education to inmates",
          "vicarious trauma affects counsellors", "glaciers retreat as summers warm"]


def segments(shard: int, count: int = 6) -> list[dict]:
    """Segments of documents msmarco_v2.1_doc_<shard>_<n>, each document cut into two segments."""
    rows = []
    for i in range(count):
        doc, part = f"msmarco_v2.1_doc_{shard:02d}_{1000 + i // 2}", i % 2
        text = f"{TOPICS[(shard + i) % len(TOPICS)]} (shard {shard}, segment {i})."
        rows.append({"docid": f"{doc}#{part}_{7 * i}", "url": f"https://example.org/{shard}/{i // 2}",
                     "title": f"Page {shard}-{i // 2}", "headings": f"Page {shard}-{i // 2}\nSection {part}\n",
                     "segment": text, "start_char": 100 * part, "end_char": 100 * part + len(text)})
    return rows


def write_shards(folder, shards=2):
    folder.mkdir()
    for shard in range(shards):
        with gzip.open(folder / f"msmarco_v2.1_doc_segmented_{shard:02d}.json.gz", "wt", encoding="utf-8") as f:
            f.writelines(json.dumps(row) + "\n" for row in segments(shard))
    return folder


def test_segments_are_stored_with_their_ids_titles_and_urls(store, tmp_path):
    report = ingest(store, "EN", [write_shards(tmp_path / "segments")], progress=False)
    assert (report.ok, report.stored, report.files) == (True, 12, 2)
    row = segments(1)[3]
    with store.transaction() as session:
        doc = get_document(session, row["docid"])
        assert (doc.docid, doc.lang, doc.title, doc.text, doc.source) == (
            "msmarco_v2.1_doc_01_1001#1_21", "EN", "Page 1-1", row["segment"], "https://example.org/1/1")


def test_a_segment_without_text_is_reported_at_its_line(tmp_path):
    path = tmp_path / "shard.json.gz"
    rows = segments(0, 2) + [{"docid": "msmarco_v2.1_doc_00_9#0_0", "segment": ""}]
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(row) + "\n" for row in rows)
    result = CliRunner().invoke(main, ["corpus", "add", "EN", str(path), "--no-progress"])  # the test's own home
    assert result.exit_code == 1, result.output
    assert "EN: 2 documents stored from 1 files, 1 skipped" in result.output
    assert f'{path}:3: msmarco_v2.1_doc_00_9#0_0: "text" missing or empty; document skipped' in result.output


@pytest.mark.parametrize("engine_name", ENGINES)
def test_segments_are_searchable(tmp_path, engine_name):
    from sepia.store.db import Store

    store = Store(f"sqlite:///{tmp_path / 'seg.db'}")
    try:
        assert ingest(store, "EN", [write_shards(tmp_path / "segments", shards=3)], progress=False).ok
        remember_engine(tmp_path / "index", engine_name)
        build_index(store, "EN", tmp_path / "index", procs=1, progress=False)
        engine = open_engine(tmp_path / "index")
        found = [h.docid for h in engine.search("EN", '"vicarious trauma"').hits]
        expected = [r["docid"] for s in range(3) for r in segments(s) if "vicarious" in r["segment"]]
        assert sorted(found) == sorted(expected) and len(expected) == 5
        view = engine.document("EN", expected[0], "trauma")
        assert [view.text[s.start:s.end] for s in view.spans] == ["trauma"]
    finally:
        store.dispose()
