"""The search engine end to end: store -> index -> queries in four languages, phrases, generated
queries, pages, highlighting offsets, full documents, incremental adds, errors. Every test of
behaviour runs against both engines (Whoosh and tantivy) through the same seam."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from sepia.search import SearchError, open_engine
from sepia.search.engine import ENGINES, remember_engine
from sepia.services.documents import ingest
from sepia.services.indexing import StoredDocuments, build_index, index_stats
from sepia.store.db import Store

DATA = Path(__file__).parent / "data" / "corpus"
FILES = {"JA": "ja_news.sgml", "CS": "cs_news.sgml", "CT": "ct_news.sgml", "EN": "en_news.sgml"}


@pytest.fixture(scope="module", params=ENGINES)
def built(request, tmp_path_factory):
    """A store with the four test collections and an index directory configured for one engine."""
    root = tmp_path_factory.mktemp(f"search-{request.param}")
    store = Store(f"sqlite:///{root / 'search.db'}")
    remember_engine(root / "index", request.param)
    for lang, name in FILES.items():
        assert ingest(store, lang, [DATA / name], progress=False).ok
        build_index(store, lang, root / "index", procs=1, progress=False)
    yield store, root / "index"
    store.dispose()


@pytest.fixture(scope="module")
def engine(built):
    return open_engine(built[1])


def docids(engine, lang, query):
    return [h.docid for h in engine.search(lang, query).hits]


def marked(engine, lang, docid, query):
    """The stored text of every hit span of `query` in the document."""
    view = engine.document(lang, docid, query)
    return [view.text[s.start:s.end] for s in view.spans]


# ---------------------------------------------------------------- finding documents

def test_cjk_phrases(engine):
    # without quotes, any of its words (禽流感, 疫苗): the document with both first
    assert docids(engine, "CS", "禽流感疫苗") == ["CS-NEWS-0001", "CS-NEWS-0002"]
    assert docids(engine, "CS", '"禽流感疫苗"') == ["CS-NEWS-0001"]
    # 流感疫苗 is a phrase inside 禽流感疫苗 and a word of its own elsewhere
    assert sorted(docids(engine, "CS", "流感疫苗")) == ["CS-NEWS-0001", "CS-NEWS-0002"]
    # phrase order matters: 疫苗流感 occurs nowhere
    assert docids(engine, "CS", '"疫苗 流感"') == []
    # a dictionary word inside a longer word
    assert docids(engine, "CS", "委员会") == ["CS-NEWS-0001"]
    assert docids(engine, "CS", "人民共和国") == ["CS-NEWS-0003"]


def test_japanese_compound_found_by_its_parts(engine):
    assert docids(engine, "JA", "委員会") == ["JA-NEWS-0001"]      # inside 選挙管理委員会
    assert docids(engine, "JA", "選挙管理委員会") == ["JA-NEWS-0001"]
    # 委員 ... 会合 in JA-NEWS-0002 is not the phrase 委員会
    assert "JA-NEWS-0002" not in docids(engine, "JA", '"委員会"')
    assert docids(engine, "JA", "鳥インフルエンザ ワクチン") == ["JA-NEWS-0002"]
    assert docids(engine, "JA", "付属病院") == ["JA-NEWS-0003"]     # the text says 附属
    assert docids(engine, "JA", "𠮷野家") == ["JA-NEWS-0003"]


def test_traditional_queries_find_traditional_documents(engine):
    assert docids(engine, "CT", "禽流感疫苗") == ["CT-NEWS-0001"]
    assert docids(engine, "CT", "臺灣") == ["CT-NEWS-0001"]
    assert docids(engine, "CT", "资讯科技") == ["CT-NEWS-0002"]     # simplified spelling too
    assert docids(engine, "CT", '"資訊科技產業"') == ["CT-NEWS-0002"]


def test_english_stemming_boolean_and_fields(engine):
    assert docids(engine, "EN", "elections") == ["EN-NEWS-0001"]
    assert sorted(docids(engine, "EN", "vaccine OR turnout")) == ["EN-NEWS-0001", "EN-NEWS-0002"]
    assert docids(engine, "EN", "vaccine NOT influenza") == []
    assert docids(engine, "EN", '"new york"') == ["EN-NEWS-0001"]
    assert docids(engine, "EN", '"york new"') == []
    assert docids(engine, "EN", "title:vaccine") == ["EN-NEWS-0002"]
    assert docids(engine, "EN", "title:influenza") == []
    assert docids(engine, "EN", "commis*") == ["EN-NEWS-0001"]


def test_title_counts_more_than_body(engine):
    # 疫苗 is in both documents' bodies but only in CS-NEWS-0001's title
    page = engine.search("CS", "疫苗")
    assert [h.docid for h in page.hits] == ["CS-NEWS-0001", "CS-NEWS-0002"]
    assert page.hits[0].score > page.hits[1].score > 0


def test_pages(engine):
    page = engine.search("CS", "疫苗", page=1, page_size=1)
    assert (page.total, page.pages, len(page.hits), page.hits[0].rank) == (2, 2, 1, 1)
    second = engine.search("CS", "疫苗", page=2, page_size=1)
    assert [h.rank for h in second.hits] == [2] and second.hits[0].docid != page.hits[0].docid
    assert engine.search("CS", "疫苗", page=3, page_size=1).hits == []
    hit = page.hits[0]
    assert (hit.title, hit.date) == ("禽流感疫苗研制成功", "2005-11-20")
    assert json.loads(json.dumps(page.to_dict(), ensure_ascii=False))["pages"] == 2


# ---------------------------------------------------------------- highlighting

def test_hits_mark_whole_words_at_the_right_characters(engine):
    assert marked(engine, "CS", "CS-NEWS-0001", "禽流感疫苗") == ["禽流感疫苗"]
    assert marked(engine, "CS", "CS-NEWS-0001", "流感") == ["流感"]
    assert marked(engine, "JA", "JA-NEWS-0001", "委員会") == ["委員会"]
    # only where the phrase occurs: 委員 and 会 apart are not marked
    assert marked(engine, "JA", "JA-NEWS-0002", '"委員会"') == []
    assert marked(engine, "JA", "JA-NEWS-0003", "𠮷野家") == ["𠮷野家"]
    assert marked(engine, "JA", "JA-NEWS-0003", "付属") == ["附属"]
    assert marked(engine, "CT", "CT-NEWS-0001", "台湾") == ["臺灣"]
    assert marked(engine, "EN", "EN-NEWS-0001", "election york") == ["election", "York"]
    assert marked(engine, "EN", "EN-NEWS-0001", "turnout NOT election") == ["turnout"]


def test_offsets_count_astral_characters_as_one(engine):
    view = engine.document("JA", "JA-NEWS-0003", "𠮷野家 附属")
    text = view.text
    assert text.startswith("吉野家と𠮷野家")
    assert [(s.start, s.end) for s in view.spans][0] == (4, 7)
    # the HTML carries the same offsets and escapes the text
    for m in re.finditer(r'<mark data-start="(\d+)" data-end="(\d+)">(.*?)</mark>', view.html):
        assert text[int(m.group(1)):int(m.group(2))] == m.group(3)


def test_document_view(engine):
    view = engine.document("EN", "EN-NEWS-0001", "elections")
    assert view.title == "Election commission reports turnout" and view.date == "2008-03-01"
    assert [(view.title[s.start:s.end]) for s in view.title_spans] == ["Election"]
    assert "&amp;" in view.html and "54 percent & more." in view.text
    assert engine.document("EN", "EN-NEWS-0001").spans == []
    assert engine.document("EN", "NO-SUCH-DOC") is None


def test_snippets_are_escaped_and_marked(engine):
    hit = engine.search("EN", "percent").hits[0]
    assert '<mark data-start="' in hit.snippet_html and "&amp;" in hit.snippet_html
    text = engine.document("EN", hit.docid).text
    for m in re.finditer(r'<mark data-start="(\d+)" data-end="(\d+)">(.*?)</mark>', hit.snippet_html):
        assert text[int(m.group(1)):int(m.group(2))] == m.group(3) == "percent"


# ---------------------------------------------------------------- generated queries

def test_generated_queries(engine):
    q = engine.generate_query("CS", ["禽流感", "疫苗", " 禽流感 ", "", '委员"会'])
    assert q == '"禽流感" OR "疫苗" OR "委员 会"'
    assert docids(engine, "CS", q)[0] == "CS-NEWS-0001"          # has all three
    assert engine.generate_query("EN", ["the", "bird flu", "Vaccines", "vaccine"]) == '"bird flu" OR "Vaccines"'
    assert docids(engine, "EN", engine.generate_query("EN", ["avian influenza", "stockpile"])) == ["EN-NEWS-0002"]
    q = engine.generate_query("JA", ["選挙管理委員会", "投票率"])
    assert docids(engine, "JA", q) == ["JA-NEWS-0001"]
    assert engine.generate_query("EN", ["the", "  "]) == ""


# ---------------------------------------------------------------- index life cycle and errors

def test_incremental_add_and_stats(built, tmp_path):
    store, index_dir = built
    extra = tmp_path / "more.jsonl"
    extra.write_text(json.dumps({"id": "EN-NEWS-0003", "title": "Flu", "text": "A new flu vaccine."}) + "\n",
                     encoding="utf-8")
    assert ingest(store, "EN", [extra], progress=False).stored == 1
    engine = open_engine(index_dir)
    assert engine.search("EN", "flu").total == 1                  # not indexed yet
    report = build_index(store, "EN", index_dir, procs=1, progress=False)
    assert (report.added, report.total, report.rebuilt) == (1, 3, False)
    assert engine.search("EN", "flu").total == 2                  # the engine sees the new segment
    again = build_index(store, "EN", index_dir, procs=1, progress=False)
    assert (again.added, again.total) == (0, 3)
    stats = index_stats("EN", index_dir, store)
    assert (stats.documents, stats.pending) == (3, 0) and stats.terms > 10
    rebuilt = build_index(store, "EN", index_dir, rebuild=True, procs=1, progress=False)
    assert (rebuilt.added, rebuilt.total, rebuilt.rebuilt) == (3, 3, True)


def test_errors(engine, tmp_path):
    with pytest.raises(SearchError, match="unknown language"):
        engine.search("KO", "x")
    with pytest.raises(SearchError, match="page"):
        engine.search("EN", "x", page=0)
    with pytest.raises(SearchError, match="no JA index"):
        open_engine(tmp_path, engine.name).search("JA", "東京")
    assert engine.search("EN", "the").total == 0                  # only a stop word
    assert engine.languages() == ["EN", "CS", "CT", "JA"]


def test_cli_search_and_index(built, engine, monkeypatch, tmp_path):
    from sepia.cli import main

    store, _ = built
    monkeypatch.setenv("SEPIA_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SEPIA_DATABASE_URL", str(store.engine.url))
    runner = CliRunner()
    result = runner.invoke(main, ["index", "build", "--lang", "CS", "--engine", engine.name, "--no-progress"])
    assert result.exit_code == 0 and "3 documents added" in result.output, result.output
    result = runner.invoke(main, ["search", "--lang", "cs", '"禽流感疫苗"', "--json"])
    data = json.loads(result.output)
    assert data["total"] == 1 and data["hits"][0]["docid"] == "CS-NEWS-0001"
    result = runner.invoke(main, ["search", "--lang", "CS", "--terms", "禽流感,疫苗"])
    assert result.exit_code == 0 and "2 documents" in result.output
    result = runner.invoke(main, ["index", "stats"])
    assert "CS\t3\t0" in result.output
    result = runner.invoke(main, ["search", "--lang", "JA", "東京"])
    assert result.exit_code == 1 and "no JA index" in result.output


@pytest.mark.parametrize("engine_name", ENGINES)
@pytest.mark.slow
def test_parallel_build_matches_single_process_build(engine_name, tmp_path, monkeypatch):
    """Both cores (Whoosh's multiprocessing writer, forked workers unpickling the schema; the
    tantivy engine's analysis workers) give the same documents and hits as one process."""
    import sepia.search.indexer as indexer
    import sepia.search.parallel as parallel

    monkeypatch.setattr(indexer, "PARALLEL_MIN_DOCS", 10)
    monkeypatch.setattr(parallel, "PARALLEL_MIN_DOCS", 10)
    store = Store(f"sqlite:///{tmp_path / 'p.db'}")
    lines = [json.dumps({"id": f"P{i}", "title": f"doc {i}", "text": f"选举管理委员会 第{i}号 公告 疫苗{i % 7}"},
                        ensure_ascii=False) for i in range(300)]
    (tmp_path / "p.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert ingest(store, "CS", [tmp_path / "p.jsonl"], progress=False).stored == 300
    results = {}
    for procs in (1, 2):
        engine = open_engine(tmp_path / f"index{procs}", engine_name)
        report = engine.build(StoredDocuments(store), "CS", procs=procs, progress=False)
        assert report.total == 300
        page = engine.search("CS", "委员会 AND 疫苗3", page_size=100)
        results[procs] = sorted(h.docid for h in page.hits)
    assert results[1] == results[2] and len(results[1]) == len([i for i in range(300) if i % 7 == 3])
    store.dispose()
