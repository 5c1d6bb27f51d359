"""The tantivy build's own machinery: the stored-only text fields (plain text through a tokenizer
that yields nothing, and indexes written the earlier way, as pre-tokenized text without tokens),
and the analysis workers (their own pipes, results in the store's order, failures raised
instead of hanging, fresh interpreters rather than forked copies of the building process)."""
from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

import pytest
import tantivy
from tantivy import Query

from sepia.search import parallel
from sepia.search.parallel import WorkerFailed, analyse_only, analysed_documents, analysis_of, analysed_fields
from sepia.search.tantivy_engine import TantivyEngine, _stored_fields, create_index, open_index, tantivy_document

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forked workers")

TEXTS = ["Influenza vaccine report", "", "選挙 管理委員会\tの発表\n二行目", "  spaces  around  ", "ＳＡＲＳ x" * 50]


def documents(count: int) -> list[dict]:
    return [{"docid": f"D{i}", "title": TEXTS[i % len(TEXTS)], "date": "2026-11-23" if i % 2 else "",
             "body": f"{TEXTS[(i + 2) % len(TEXTS)]} committee {i} election turnout {i % 13}"}
            for i in range(count)]


def test_stored_text_is_kept_exactly_and_not_indexed(tmp_path):
    engine = TantivyEngine(tmp_path)
    docs = documents(12)
    assert engine.add("EN", docs) == 12
    index = open_index(engine.index_path("EN"))
    searcher = index.searcher()
    assert searcher.terms_with_prefix("title_text", "") == []
    assert searcher.terms_with_prefix("body_text", "") == []
    assert searcher.terms_with_prefix("body", "committe")  # the analysed body is indexed
    for doc in docs:
        hits = searcher.search(Query.term_query(index.schema, "docid", doc["docid"]), 1).hits
        assert _stored_fields(searcher.doc(hits[0][1])) == doc


def test_an_index_written_the_earlier_way_reads_back_the_same(tmp_path):
    """Before, the stored text went in as pre-tokenized text without tokens."""
    index = create_index(tmp_path / "en", "EN")
    writer = index.writer(heap_size=15_000_000, num_threads=1)
    analysis = analysis_of("EN")
    for i, doc in enumerate(documents(4)):
        if i % 2:
            document = tantivy_document(doc, analysed_fields(analysis, doc["title"], doc["body"]))
        else:
            document = tantivy.Document()
            document.add_text("docid", doc["docid"])
            document.add_pre_tokenized_text("title_text", tantivy.PreTokenizedString(doc["title"], []))
            document.add_pre_tokenized_text("body_text", tantivy.PreTokenizedString(doc["body"], []))
            if doc["date"]:
                document.add_text("date", doc["date"])
        writer.add_document(document)
    writer.commit()
    index.reload()
    searcher = index.searcher()
    stored = [_stored_fields(searcher.doc(address)) for _score, address in searcher.search(Query.all_query(), 10).hits]
    assert sorted(stored, key=lambda d: d["docid"]) == documents(4)
    assert searcher.terms_with_prefix("body_text", "") == []


@pytest.fixture
def parallel_small(monkeypatch):
    """Workers even for a few documents, in many small batches (both workers get several)."""
    monkeypatch.setattr(parallel, "PARALLEL_MIN_DOCS", 1)
    monkeypatch.setattr(parallel, "BATCH_DOCS", 3)


def children() -> list[int]:
    """This process's analysis workers (Linux /proc): its children running `serve_worker`. Other
    children (the browser tests' Playwright driver, in a whole run) are not the build's."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == os.getpid() and \
                    b"serve_worker" in (stat.parent / "cmdline").read_bytes():
                found.append(int(stat.parent.name))
        except (OSError, IndexError, ValueError):  # ended meanwhile
            continue
    return found


def no_workers_left():
    return not children()


def test_workers_return_every_document_in_order(parallel_small):
    docs = documents(100)
    analysis = analysis_of("EN")
    with analysed_documents("EN", iter(docs), 2, len(docs)) as analysed:
        assert len(children()) == 2
        pairs = list(analysed)
    assert [doc for doc, _fields in pairs] == docs
    assert [fields for _doc, fields in pairs] == [analysed_fields(analysis, d["title"], d["body"]) for d in docs]
    assert analyse_only("EN", iter(docs), 2, len(docs)) == sum(fields[2] for _doc, fields in pairs)
    assert no_workers_left()


def _fail_on_doc_7(texts):
    if any(" 7 " in body for _title, body in texts):
        raise ValueError("bad document 7")
    return [len(body) for _title, body in texts]


def _die_on_doc_7(texts):
    if any(" 7 " in body for _title, body in texts):
        os._exit(3)
    return [len(body) for _title, body in texts]


@pytest.mark.parametrize("func, message", [(_fail_on_doc_7, "ValueError: bad document 7"),
                                           (_die_on_doc_7, "ended before returning its results")])
def test_a_failing_worker_fails_the_build_and_no_worker_is_left(parallel_small, func, message):
    docs = documents(60)
    with pytest.raises(WorkerFailed, match=message):
        with parallel._mapped("EN", func, iter(docs), 2, len(docs)) as results:
            for _batch, _result in results:
                pass
    assert no_workers_left()


def test_a_failure_in_the_building_process_ends_the_workers(parallel_small):
    """The writer fails while workers are busy or waiting to send results no one will read."""
    docs = documents(200)
    with pytest.raises(RuntimeError, match="the writer failed"):
        with analysed_documents("EN", iter(docs), 2, len(docs)) as analysed:
            next(analysed)
            raise RuntimeError("the writer failed")
    assert no_workers_left()


HELD = threading.Lock()


def _count_needing_the_lock(texts):
    if not HELD.acquire(timeout=10):
        raise RuntimeError("the worker holds a copy of a lock another thread held when it started")
    HELD.release()
    return [len(body) for _title, body in texts]


def test_workers_are_not_copies_of_the_building_process(parallel_small):
    """A worker forked from the building process got every lock its other threads held at that
    moment, held for ever (an idle worker hung so, rarely). Here another thread holds a lock the
    workers' function takes while they start, twice in one process: they are new interpreters
    that import it unheld, and both runs finish."""
    docs = documents(60)
    for _run in range(2):
        HELD.acquire()
        release = threading.Timer(0.5, HELD.release)
        release.start()
        try:
            with parallel._mapped("EN", _count_needing_the_lock, iter(docs), 2, len(docs)) as results:
                counts = [count for _batch, counted in results for count in counted]
        finally:
            release.join()
        assert counts == [len(d["body"]) for d in docs]
    assert no_workers_left()


def test_a_parallel_build_gives_the_index_of_one_process(tmp_path, parallel_small):
    import json

    from sepia.services.documents import ingest
    from sepia.services.indexing import StoredDocuments
    from sepia.store.db import Store

    store = Store(f"sqlite:///{tmp_path / 'b.db'}")
    (tmp_path / "d.jsonl").write_text("".join(json.dumps({"id": d["docid"], "title": d["title"], "text": d["body"]},
                                                         ensure_ascii=False) + "\n" for d in documents(50)),
                                      encoding="utf-8")
    assert ingest(store, "EN", [tmp_path / "d.jsonl"], progress=False).stored == 50
    found = {}
    for procs in (1, 2):
        engine = TantivyEngine(tmp_path / f"i{procs}")
        assert engine.build(StoredDocuments(store), "EN", procs=procs, progress=False).total == 50
        searcher = open_index(engine.index_path("EN")).searcher()
        found[procs] = (searcher.terms_with_prefix("body", ""), searcher.terms_with_prefix("title", ""),
                        [(h.docid, round(h.score, 6)) for h in engine.search("EN", "committee election 7",
                                                                           page_size=50).hits])
    assert found[1] == found[2] and found[1][2]
    assert no_workers_left()
    store.dispose()
