"""Marks read from the index: a Whoosh index keeps each token's character offsets, a tantivy index
each body's tokens with their offsets (sepia.search.offsets), and the search pane's snippets and
the document view take their marks from them instead of analysing each hit again. They must be exactly the marks analysis gives (`match_spans` over the whole text), for
terms, phrases and prefixes in every language; an index built before offsets were kept is
searched by analysis as before."""
from __future__ import annotations

import random
from pathlib import Path

import pytest
from whoosh.fields import TEXT

from sepia.search import indexer
from sepia.search.analyzers import analyzer_for, index_units, schema_for
from sepia.search.base import understand
from sepia.search.highlight import best_window, match_spans, query_terms, snippet_html
from sepia.search import tantivy_engine
from sepia.search.tantivy_engine import TantivyEngine
from sepia.search.whoosh_engine import WhooshEngine
from sepia.services.documents import ingest
from sepia.services.indexing import StoredDocuments
from sepia.store.db import Store

ROOT = Path(__file__).parents[1]
COLLECTIONS = {"CS": ROOT / "corpora/cs/docs", "JA": ROOT / "corpora/ja/docs", "CT": ROOT / "corpora/ct/docs",
               "EN": ROOT / "tests/data/corpus/en_news.sgml"}


def _documents(store, lang):
    _count, stream = StoredDocuments(store).stream(lang)
    return list(stream)


@pytest.fixture(scope="module")
def collections(tmp_path_factory):
    """A store with the sample collections, and each language's documents as the index has them,
    long ones too (several documents' text in one, beyond a snippet's width)."""
    root = tmp_path_factory.mktemp("indexed-marks")
    store = Store(f"sqlite:///{root / 'marks.db'}")
    documents = {}
    for lang, path in COLLECTIONS.items():
        files = sorted(path.iterdir()) if path.is_dir() else [path]
        assert ingest(store, lang, files, progress=False).ok
        docs = _documents(store, lang)
        docs += [{"docid": f"LONG-{lang}-{i}", "title": docs[i]["title"], "date": None,
                  "body": "\n".join(d["body"] for d in docs[i:] + docs[:i])} for i in range(min(3, len(docs)))]
        documents[lang] = docs
    yield store, root, documents
    store.dispose()


ENGINES = {"whoosh": WhooshEngine, "tantivy": TantivyEngine}


def _index(store, root: Path, documents, name: str, engine_class=WhooshEngine):
    engine = engine_class(root / name)
    for lang, docs in documents.items():
        engine.build(StoredDocuments(store), lang, procs=1, progress=False)
        engine.add(lang, [d for d in docs if d["docid"].startswith("LONG-")])
    return engine


def _queries(lang: str, docs: list[dict], count: int = 40) -> list[str]:
    """Terms, phrases of two or three words and prefixes, taken from the documents' own tokens."""
    rng = random.Random(lang)
    units = index_units(lang)
    queries = []
    for _ in range(count):
        tokens = [t for t in units(rng.choice(docs)["body"])]
        finest = sorted({pos: term for term, pos, _s, _e in reversed(tokens)}.items())
        if not finest:
            continue
        at = rng.randrange(len(finest))
        words = [term for _pos, term in finest[at:at + rng.choice((1, 2, 3))]]
        kind = rng.random()
        if kind < 0.3 and len(words) > 1:
            queries.append('"' + " ".join(words) + '"')
        elif kind < 0.45 and len(words[0]) > 1:
            queries.append(words[0][:-1] + "*")
        else:
            queries.append(" ".join(words) if lang == "EN" else "".join(words))
    return queries


def _analysed(lang: str, text: str, query: str, engine) -> list[tuple[int, int]]:
    reader = engine._reader(lang)
    wanted = query_terms(understand(schema_for(lang), lang, query)[0], engine._lexicon(reader))
    return match_spans(analyzer_for(lang), text, wanted)


@pytest.mark.parametrize("engine_name", sorted(ENGINES))
@pytest.mark.parametrize("lang", sorted(COLLECTIONS))
@pytest.mark.slow
def test_marks_from_the_index_are_the_marks_of_analysis(collections, lang, engine_name):
    store, root, documents = collections
    engine = _index(store, root, {lang: documents[lang]}, f"offsets-{engine_name}-{lang}", ENGINES[engine_name])
    marked = 0
    for query in _queries(lang, documents[lang]):
        for hit in engine.search(lang, query, page_size=20).hits:
            view = engine.document(lang, hit.docid, query)
            spans = _analysed(lang, view.text, query, engine)
            assert [(s.start, s.end) for s in view.spans] == spans, (query, hit.docid)
            assert [(s.start, s.end) for s in view.title_spans] == _analysed(lang, view.title, query, engine)
            start, end = best_window(view.text, spans)
            assert hit.snippet_html == snippet_html(view.text, spans, start=start, end=end), (query, hit.docid)
            marked += bool(spans)
    assert marked > 40  # the queries do find and mark text


@pytest.mark.parametrize("engine_name", sorted(ENGINES))
def test_hits_are_not_analysed_again(collections, monkeypatch, engine_name):
    store, root, documents = collections
    engine = _index(store, root, {"JA": documents["JA"]}, f"offsets-only-{engine_name}", ENGINES[engine_name])
    page = engine.search("JA", "選挙")
    titles = {engine.document("JA", hit.docid).title for hit in page.hits}

    def analysed(_analyzer, text, *_args, **_kwargs):
        if engine_name == "whoosh" or text not in titles:  # tantivy analyses titles (short)
            raise AssertionError("a hit was analysed again")
        return []

    monkeypatch.setattr("sepia.search.base.match_spans", analysed)
    monkeypatch.setattr("sepia.search.base.snippet_spans", analysed)
    page = engine.search("JA", "選挙")
    assert page.hits and any("<mark" in hit.snippet_html for hit in page.hits)
    assert engine.document("JA", page.hits[0].docid, "選挙").spans


def _same_pages(old, new, lang: str, docs: list[dict]) -> None:
    """The index without offsets (marked by analysis) shows what the one with them shows."""
    for query in _queries(lang, docs, count=15):
        old_page, new_page = old.search(lang, query), new.search(lang, query)
        assert [h.docid for h in old_page.hits] == [h.docid for h in new_page.hits]
        for old_hit, new_hit in zip(old_page.hits, new_page.hits):
            if len(new.document(lang, new_hit.docid).text) <= 224:  # longer texts: windowed analysis
                assert old_hit.snippet_html == new_hit.snippet_html
            assert old.document(lang, old_hit.docid, query) == new.document(lang, new_hit.docid, query)


def test_an_index_without_offsets_is_marked_by_analysis(collections, monkeypatch):
    store, root, documents = collections

    def without_offsets(lang):
        schema = schema_for(lang)
        for name in ("title", "body"):
            field = schema[name]
            schema.remove(name)
            schema.add(name, TEXT(analyzer=field.analyzer, stored=True, multitoken_query=field.multitoken_query))
        return schema

    monkeypatch.setattr(indexer, "schema_for", without_offsets)
    old = _index(store, root, {"CS": documents["CS"]}, "no-offsets")
    monkeypatch.undo()
    new = _index(store, root, {"CS": documents["CS"]}, "with-offsets")
    assert not old._reader("CS").schema["body"].format.supports("characters")
    assert new._reader("CS").schema["body"].format.supports("characters")
    _same_pages(old, new, "CS", documents["CS"])


def test_a_tantivy_index_without_offsets_is_marked_by_analysis(collections, monkeypatch):
    store, root, documents = collections
    schema = tantivy_engine.tantivy_schema

    def without_offsets():
        builder = tantivy_engine.tantivy.SchemaBuilder()
        for name in ("docid", "date"):
            builder.add_text_field(name, stored=True, tokenizer_name="raw", index_option="basic")
        for name in ("title", "body"):
            builder.add_text_field(name, tokenizer_name=tantivy_engine.TERMS_TOKENIZER, index_option="position")
        for name in ("title_text", "body_text"):
            builder.add_text_field(name, stored=True, tokenizer_name=tantivy_engine.STORED_ONLY_TOKENIZER,
                                   index_option="basic")
        builder.add_unsigned_field("ntokens", fast=True)
        return builder.build()

    monkeypatch.setattr(tantivy_engine, "tantivy_schema", without_offsets)
    old = _index(store, root, {"JA": documents["JA"]}, "tantivy-no-offsets", TantivyEngine)
    monkeypatch.setattr(tantivy_engine, "tantivy_schema", schema)
    new = _index(store, root, {"JA": documents["JA"]}, "tantivy-with-offsets", TantivyEngine)
    assert old._stored(old._reader("JA"), documents["JA"][0]["docid"]).offsets is None
    assert new._stored(new._reader("JA"), documents["JA"][0]["docid"]).offsets is not None
    _same_pages(old, new, "JA", documents["JA"])
