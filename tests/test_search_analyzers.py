"""Analyzers: tokens, positions and character offsets per language; Sudachi's input limit;
schemas that pickle without a tokenizer inside; an index remembers its analysis."""
from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from sepia.search import SearchError, open_engine
from sepia.search.analyzers import ANALYSIS_FILE, ANALYSIS_HISTORY, analyzer_for, schema_for, tokenize
from sepia.search.chinese import decompose, to_simplified
from sepia.search.engine import ENGINES
from sepia.search.japanese import MAX_CHUNK_BYTES, chunks
from sepia.services.documents import ingest
from sepia.services.indexing import StoredDocuments
from sepia.store.db import Store

CORPUS = Path(__file__).parent / "data" / "corpus"


def test_cs_positions_are_sequential_with_compounds_on_their_first_piece():
    tokens = tokenize("CS", "我国的禽流感疫苗研制成功")
    assert tokens == [
        ("我国", 0, 0, 2), ("的", 1, 2, 3),
        ("禽流感", 2, 3, 6), ("禽", 2, 3, 4), ("流感", 3, 4, 6),
        ("疫苗", 4, 6, 8),
        ("研制成功", 5, 8, 12), ("研制", 5, 8, 10), ("成功", 6, 10, 12),
    ]


def test_cs_query_mode_gives_the_finest_pieces():
    analyzer = analyzer_for("CS")
    assert [t.text for t in analyzer("禽流感疫苗", mode="query")] == ["禽", "流感", "疫苗"]
    assert [t.text for t in analyzer("流感疫苗", mode="query")] == ["流感", "疫苗"]
    assert [t.text for t in analyzer("委员会", mode="query")] == ["委员", "会"]


def test_cs_decomposition_is_recursive_and_keeps_unsplittable_words():
    pieces = decompose("中华人民共和国")
    fine = [("中华人民共和国"[s:e]) for s, e, f in pieces if f]
    assert "".join(fine) == "中华人民共和国" and len(fine) >= 3
    assert decompose("一帆风顺") == ((0, 4, True),)    # only single characters would cover it
    assert decompose("疫苗") == ((0, 2, True),)


def test_cs_punctuation_and_space_are_not_tokens_and_latin_is_lowered():
    tokens = tokenize("CS", "COVID-19疫苗， 好")
    assert [t[0] for t in tokens] == ["covid", "19", "疫苗", "好"]
    assert [(s, e) for _, _, s, e in tokens] == [(0, 5), (6, 8), (8, 10), (12, 13)]
    assert [p for _, p, _, _ in tokens] == [0, 1, 2, 3]


def test_ct_converts_to_simplified_with_offsets_kept():
    text = "臺灣的禽流感疫苗研製成功"
    tokens = tokenize("CT", text)
    assert tokens[0] == ("台湾", 0, 0, 2)
    assert ("研制", 5, 8, 10) in tokens
    assert all(text[s:e] for _, _, s, e in tokens)
    # traditional and simplified spellings of a query give the same terms
    analyzer = analyzer_for("CT")
    assert [t.text for t in analyzer("資訊科技", mode="query")] == [t.text for t in analyzer("资讯科技", mode="query")]


def test_ct_conversion_never_changes_length():
    text = "乾隆皇帝的頭髮很乾燥。\n這台電腦的記憶體\n"
    simplified = to_simplified(text)
    assert len(simplified) == len(text)
    assert simplified.startswith("乾隆") and "头发" in simplified and "干燥" in simplified


def test_ja_short_units_positions_and_long_unit_on_first():
    tokens = tokenize("JA", "東京都選挙管理委員会は発表した")
    by_term = {t: (p, s, e) for t, p, s, e in tokens}
    assert by_term["選挙"] == (2, 3, 5)
    assert by_term["管理"] == (3, 5, 7)
    assert by_term["委員"] == (4, 7, 9)
    assert by_term["会"] == (5, 9, 10)
    assert by_term["選挙管理委員会"] == (2, 3, 10)
    analyzer = analyzer_for("JA")
    assert [t.text for t in analyzer("委員会", mode="query")] == ["委員", "会"]


def test_ja_normalised_forms_and_astral_offsets():
    text = "𠮷野家で食べた。ＳＵＤＡＣＨＩと附属病院"
    tokens = tokenize("JA", text)
    by_term = {t: (s, e) for t, _, s, e in tokens}
    assert text[slice(*by_term["𠮷"])] == "𠮷"
    assert by_term["野家"] == (1, 3)                 # code points: 𠮷 is one
    assert by_term["食べる"] == (4, 6)                # 食べ(た) normalised to its dictionary form
    assert text[slice(*by_term["sudachi"])] == "ＳＵＤＡＣＨＩ"
    assert text[slice(*by_term["付属"])] == "附属"    # normalised spelling
    assert "。" not in by_term


def test_ja_text_longer_than_sudachis_limit_is_split_with_offsets_kept():
    sentence = "選挙管理委員会は投票率を発表した。"
    text = sentence * 4000                           # ~200 KB of UTF-8, Sudachi refuses 49,149
    pieces = list(chunks(text))
    assert len(pieces) > 4
    assert all(len(p.encode("utf-8")) <= MAX_CHUNK_BYTES for _, p in pieces)
    assert "".join(p for _, p in pieces) == text
    assert all(p.endswith("。") for _, p in pieces)   # cut at sentence ends
    assert [o for o, _ in pieces] == [sum(len(p) for _, p in pieces[:i]) for i in range(len(pieces))]
    tokens = tokenize("JA", text)
    last = [t for t in tokens if t[0] == "選挙管理委員会"][-1]
    assert text[last[2]:last[3]] == "選挙管理委員会" and last[2] == len(text) - len(sentence)
    positions = sorted({p for _, p, _, _ in tokens})
    assert positions == list(range(len(positions)))


def test_ja_one_sentence_over_the_limit_is_cut_between_characters():
    text = "あ" * 20000 + "𠮷" * 10                     # no sentence end, 60 KB
    pieces = list(chunks(text))
    assert len(pieces) == 2 and "".join(p for _, p in pieces) == text
    assert all(len(p.encode("utf-8")) <= MAX_CHUNK_BYTES for _, p in pieces)
    assert tokenize("JA", text)                      # Sudachi accepts every piece


def test_en_stemming_and_stop_words():
    tokens = tokenize("EN", "The Election commissions were running elections")
    assert [t[0] for t in tokens] == ["elect", "commiss", "run", "elect"]
    assert tokens[0][1:] == (1, 4, 12) and tokens[2][1:] == (3, 30, 37)  # Whoosh closes the gap of were
    assert [t[0] for t in tokenize("EN", "runs run hopping vaccines")] == ["run", "run", "hop", "vaccin"]
    # Snowball English (sepia.text.english), not Whoosh's porter2: universities is not universal
    assert [t[0] for t in tokenize("EN", "universities universal added")] == ["universiti", "universal", "add"]
    # SEPIA's stop words: may, us and can are words here
    assert [t[0] for t in tokenize("EN", "In May the US can vote")] == ["may", "us", "can", "vote"]


@pytest.mark.parametrize("name", ENGINES)
def test_index_built_with_another_analysis_is_refused_then_rebuilt(name, tmp_path):
    engine = open_engine(tmp_path / "index", name)
    doc = {"docid": "EN-1", "title": "", "date": "", "body": "Universities organize elections."}
    assert engine.add("EN", [doc]) == 1
    recorded = engine.index_path("EN") / ANALYSIS_FILE
    assert recorded.read_text() == f"{len(ANALYSIS_HISTORY['EN'])}\n"
    assert [h.docid for h in engine.search("EN", "university").hits] == ["EN-1"]
    recorded.unlink()  # as every index written before SEPIA recorded its analysis (porter2 for EN)
    fresh = open_engine(tmp_path / "index", name)
    message = "the EN index in .* was built with Whoosh's porter2 .*: run `sepia index build --lang EN`"
    with pytest.raises(SearchError, match=message):
        fresh.search("EN", "university")
    with pytest.raises(SearchError, match=message):
        fresh.add("EN", [doc])
    recorded.write_text("7\n")
    with pytest.raises(SearchError, match="EN analysis '7', which this SEPIA does not know"):
        open_engine(tmp_path / "index", name).search("EN", "university")

    store = Store(f"sqlite:///{tmp_path / 's.db'}")
    assert ingest(store, "EN", [CORPUS / "en_news.sgml"], progress=False).ok
    report = fresh.build(StoredDocuments(store), "EN", procs=1, progress=False)
    assert report.rebuilt and any("was built with EN analysis '7'" in n and n.endswith("rebuilt") for n in report.notes)
    assert recorded.read_text() == f"{len(ANALYSIS_HISTORY['EN'])}\n"
    assert fresh.search("EN", "university").total == 0 and fresh.search("EN", "election").total > 0
    store.dispose()


@pytest.mark.parametrize("lang", ["CS", "CT", "JA", "EN"])
def test_schema_pickles_without_tokenizer_state(lang):
    schema = schema_for(lang)
    analyzer = schema["body"].analyzer
    list(analyzer("東京の選挙管理委員会と禽流感疫苗 elections", mode="index"))  # tokenizers now exist
    data = pickle.dumps(schema)
    assert len(data) < 5000
    assert b"sudachipy" not in data and b"jieba.Tokenizer" not in data and b"OpenCC" not in data
    restored = pickle.loads(data)
    text = "選挙管理委員会と禽流感疫苗 elections"
    assert [t.text for t in restored["body"].analyzer(text)] == [t.text for t in analyzer(text)]


def test_unknown_language_is_refused():
    with pytest.raises(ValueError, match="unknown language"):
        analyzer_for("KO")
