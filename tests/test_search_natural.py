"""Natural-language CJK queries (issue 21, item 2): text without operators is searched as any of its
content words, ranked by BM25 (documents with every word first); phrases only in quotes; a search
that finds nothing says why and offers the any-term search. Both engines, the CLI and the web pane."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sepia.search import open_engine
from sepia.search import natural
from sepia.search.engine import ENGINES, remember_engine
from sepia.search.natural import (ALL_WORDS_BOOST, any_term_query, content_words, has_operators, is_natural,
                                  is_question, natural_query)
from sepia.services.documents import ingest
from sepia.services.indexing import build_index
from sepia.store.db import Store

JA_DOCS = [
    ("JA-1", "宇宙ニュース", "探査機はやぶさの打ち上げが成功した。探査機は順調。探査機は順調。探査機は順調。"),
    ("JA-2", "探査機の帰還", "はやぶさが地球に帰還した。"),
    ("JA-3", "ロケットの打ち上げ、打ち上げ", "新型ロケットの打ち上げは延期された。打ち上げが延期。打ち上げが延期。"),
    ("JA-4", "ノーベル賞", "物理学賞の受賞者が発表された。"),
    ("JA-5", "天気", "東京は晴れ。"),
    ("JA-6", '山口で高校生の祖父殺害、「"隠れてゲームをするな"と怒られた」',
     "山口県で高校生が祖父を殺害した事件で、高校生は隠れてゲームをするなと怒られたと話している。"),
]
EN_DOCS = [
    ("EN-1", "Bird flu", "A new strain of bird flu was found."),
    ("EN-2", "Vaccines", "The vaccine supply is sufficient."),
    ("EN-3", "Olive oil", "Olive oil prices rose after a drought in Spain cut the harvest."),
    ("EN-4", "Markets", "The price of wheat has increased."),
]
CS_DOCS = [
    ("CS-1", "诺贝尔物理学奖", "三位科学家获得了诺贝尔物理学奖。"),
    ("CS-2", "奖学金", "学生获得了奖学金。"),
    ("CS-3", "天气", "北京今天下雨。"),
]


# ---------------------------------------------------------------- how text is read

@pytest.mark.parametrize("text,expected", [
    ("はやぶさの打ち上げ", '"はやぶさ" OR "打ち上げ"'),
    ("ノーベル物理学賞の受賞者", '"ノーベル" OR "物理学" OR "賞" OR "受賞者"'),
    ("東京都知事選挙について", '"東京" OR "都知事" OR "選挙"'),  # について is a compound particle; middle units
    ("誰がノーベル賞を受賞したのですか？", '"ノーベル賞" OR "受賞"'),  # pronoun, particles, auxiliaries dropped
    ("京都で何があったか?", '"京都"'),                          # a final ? is no wildcard
    ("関与か?について", '"関与"'),                                # nor one before a Japanese word
    ("再発見 (タイ)", '"再発見" OR "タイ"'),                      # parentheses alone are punctuation
    ("の", '"の"'),                                            # only function words: they are searched
])
def test_japanese_text_becomes_any_of_its_content_words(text, expected):
    assert is_natural("JA", text)
    assert natural_query("JA", text)[1] == expected


def test_words_are_analysed_in_their_context():
    # 打ち上げ before が is one noun, at the end the verb 打つ + 上げる: the written word is a term too
    assert [w.terms for w in content_words("JA", "はやぶさの打ち上げが")] == [("隼",), ("打ち上げ",)]
    assert [w.terms for w in content_words("JA", "はやぶさの打ち上げ")] == [("隼",), ("打つ", "上げる")]
    q, _ = natural_query("JA", "はやぶさの打ち上げ")
    assert str(q) == ("(((title:隼^2.0 OR body:隼 OR title:はやぶさ^2.0 OR body:はやぶさ) AND "
                      '(title:"打つ 上げる" OR body:"打つ 上げる" OR title:打ち上げ^2.0 OR body:打ち上げ)) OR '
                      "(title:隼^2.0 OR body:隼 OR title:はやぶさ^2.0 OR body:はやぶさ) OR "
                      '(title:"打つ 上げる" OR body:"打つ 上げる" OR title:打ち上げ^2.0 OR body:打ち上げ))')
    # a word of several units is their phrase
    q, _ = natural_query("CS", "禽流感疫苗")
    assert str(q).endswith(' OR (title:"禽 流感" OR body:"禽 流感") OR (title:疫苗^2.0 OR body:疫苗))')


def test_chinese_text_becomes_any_of_its_content_words():
    assert natural_query("CS", "谁获得了诺贝尔物理学奖？")[1] == '"获得" OR "诺贝尔物理学奖"'
    # CT is segmented in simplified characters, the words kept as written
    assert natural_query("CT", "誰獲得了諾貝爾物理學獎？")[1] == '"獲得" OR "諾貝爾物理學獎"'
    assert [w.surface for w in content_words("CS", "的 了")] == ["的", "了"]


@pytest.mark.parametrize("text", ['"はやぶさの打ち上げ"', "はやぶさ OR 打ち上げ", "はやぶさ NOT 打ち上げ", "title:はやぶさ",
                                  "はやぶさ*", "(はやぶさ OR 隼)", "はやぶさ^2", '"はや ぶさ"~2', "ha?busa"])
def test_text_with_operators_is_the_query_language(text):
    assert has_operators(text) and not is_natural("JA", text)


# ---------------------------------------------------------------- questions (issue 33, item 8)

@pytest.mark.parametrize("lang,text,question", [
    ("EN", "why has olive oil increased in price", True),          # opens with a question word
    ("EN", "explain how hereditary diseases are passed on.", True),
    ("EN", "olive oil price?", True),                               # a final question mark
    ("EN", 'what is "bird flu"?', True),                            # quotes inside a question are text
    ("EN", "olive oil price", False),
    ("EN", "May 2024 elections", False),                            # a modal opens a question only with a ?
    ("EN", "can someone become lactose intolerant?", True),
    ("EN", '"olive oil" price', False),
    ("EN", "why olive OR oil", False),                              # a Boolean operator: the query language
    ("EN", "title:why?", False),                                    # a field too
    ("JA", '山口で高校生の祖父殺害、「"隠れてゲームをするな"と怒られた」とはどういうことか', True),
    ("JA", "裁判員制度とは", True),
    ("JA", "東京で何があった", True),
    ("JA", '"選挙管理委員会"', False),
    ("CS", "禽流感疫苗有效吗", True),
    ("CS", '"禽流感"是什么', True),
    ("CT", "高鐵什麼時候通車", True),
    ("CS", '"禽流感疫苗"', False),
    ("CS", '"谁获得了诺贝尔物理学奖"', False),                      # what asks is looked for outside quotes
    ("EN", '"who is it?"', False),
])
def test_what_is_a_question(lang, text, question):
    assert is_question(lang, text) is question
    assert is_natural(lang, text) is (question or lang != "EN" and not has_operators(text))


@pytest.mark.parametrize("lang,text,expected", [
    ("EN", "why has olive oil increased in price", '"olive" OR "oil" OR "increased" OR "price"'),
    ("EN", "can someone become lactose intolerant?", '"someone" OR "become" OR "lactose" OR "intolerant"'),
    ("EN", "explain how tax credits work", '"tax" OR "credits" OR "work"'),
    ("EN", "what happened in May 2024?", '"happened" OR "May" OR "2024"'),  # may is asking only as an opening
    ("EN", "can a tin can be recycled?", '"tin" OR "can" OR "recycled"'),     # the second can is a word
    ("EN", 'what is "bird flu"?', '"bird" OR "flu"'),
    ("JA", '山口で高校生の祖父殺害、「"隠れてゲームをするな"と怒られた」とはどういうことか',
     '"山口" OR "高校生" OR "祖父" OR "殺害" OR "隠れ" OR "ゲーム" OR "怒ら"'),  # とはどういうことか dropped
    ("JA", "何が起きたのか", '"起き"'),
    ("JA", "なぜ円高になったのか", '"円高"'),
    ("JA", "どのような影響があるのか", '"影響"'),
    ("CS", "禽流感疫苗有效吗", '"禽流感" OR "疫苗" OR "有效"'),
    ("CS", "台湾高铁什么时候通车", '"台湾" OR "高铁" OR "通车"'),
    ("CS", '"禽流感"是什么？', '"禽流感"'),
])
def test_questions_are_their_content_words(lang, text, expected):
    assert natural_query(lang, text)[1] == expected


def test_english_is_not_rewritten():
    assert not is_natural("EN", "nobel prize winners")
    # its any-term search leaves out negated parts and operators
    assert any_term_query("EN", 'title:nobel NOT physics "prize winners"') == '"nobel" OR "prize" OR "winners"'
    assert any_term_query("EN", "may 2024 elections") == '"may" OR "2024" OR "elections"'  # no question: may is a word


# ---------------------------------------------------------------- both engines

@pytest.fixture(scope="module", params=ENGINES)
def engine(request, tmp_path_factory):
    root = tmp_path_factory.mktemp(f"natural-{request.param}")
    store = Store(f"sqlite:///{root / 'n.db'}")
    remember_engine(root / "index", request.param)
    for lang, docs in (("JA", JA_DOCS), ("CS", CS_DOCS), ("EN", EN_DOCS)):
        path = root / f"{lang}.jsonl"
        path.write_text("".join(json.dumps({"id": d, "title": t, "text": x}, ensure_ascii=False) + "\n"
                                for d, t, x in docs), encoding="utf-8")
        assert ingest(store, lang, [path], progress=False).ok
        build_index(store, lang, root / "index", procs=1, progress=False)
    yield open_engine(root / "index")
    store.dispose()


def _ids(page):
    return [hit.docid for hit in page.hits]


def test_unspaced_japanese_finds_documents_with_any_word_all_first(engine):
    page = engine.search("JA", "はやぶさの打ち上げ")
    # computed apart: the documents whose text holds either word, both words
    texts = {docid: title + text for docid, title, text in JA_DOCS}
    either = {d for d, t in texts.items() if "はやぶさ" in t or "打ち上げ" in t}
    both = {d for d, t in texts.items() if "はやぶさ" in t and "打ち上げ" in t}
    assert either == {"JA-1", "JA-2", "JA-3"} and both == {"JA-1"}
    assert page.total == 3 and set(_ids(page)) == either and _ids(page)[0] == "JA-1"
    assert page.searched == '"はやぶさ" OR "打ち上げ"' and "body:打ち上げ" in page.parsed
    assert not page.why and not page.any_terms
    # today's reading, the whole text as one phrase, is what quotes ask for
    assert engine.search("JA", '"はやぶさの打ち上げ"').total == 0


def test_the_score_is_that_of_the_or_of_the_words_and_again_with_all(engine):
    """BM25 over any of the words: each document scores as for the OR of the words written out,
    and a document with all of them that score again ALL_WORDS_BOOST times."""
    natural = {h.docid: h.score for h in engine.search("CS", "谁获得了诺贝尔物理学奖？").hits}
    explicit = {h.docid: h.score for h in engine.search("CS", '"获得" OR "诺贝尔物理学奖"').hits}
    assert set(natural) == set(explicit) == {"CS-1", "CS-2"}  # CS-2 has 获得 only
    assert natural["CS-2"] == pytest.approx(explicit["CS-2"], rel=1e-5)
    assert natural["CS-1"] == pytest.approx(explicit["CS-1"] * (1 + ALL_WORDS_BOOST), rel=1e-5)


def test_documents_with_all_the_words_come_first(engine, monkeypatch):
    """JA-3 says 打ち上げ five times in a short text, JA-1 has はやぶさ and 打ち上げ in a longer one: by
    BM25 alone JA-3 comes first (tested), with all the words counted again JA-1."""
    page = engine.search("JA", "はやぶさの打ち上げ")
    assert _ids(page)[0] == "JA-1"
    monkeypatch.setattr(natural, "ALL_WORDS_BOOST", 1e-9)
    assert _ids(engine.search("JA", "はやぶさの打ち上げ"))[0] == "JA-3"


def test_chinese_question_finds_its_document_first(engine):
    page = engine.search("CS", "谁获得了诺贝尔物理学奖？")
    assert _ids(page) == ["CS-1", "CS-2"]  # CS-2 has 获得 only
    assert engine.search("CS", '"谁获得了诺贝尔物理学奖"').total == 0


def test_zero_hits_say_why_and_offer_the_any_term_search(engine):
    page = engine.search("JA", '"打ち上げの受賞者"')
    assert page.total == 0 and page.hits == []
    assert page.any_terms == '"打ち上げ" OR "受賞者"'
    some = engine.search("JA", page.any_terms).total
    assert some >= 1 and "JA-4" in _ids(engine.search("JA", page.any_terms))
    assert page.why == ("no JA document matches the whole query (words outside OR are all required, a quoted "
                        f"phrase needs its words side by side); {some} have some of its words")
    missing = engine.search("JA", "冥王星の衛星")
    assert missing.total == 0 and missing.why == "none of the words 冥王星, 衛星 occurs in the JA collection"
    assert missing.any_terms == ""
    empty = engine.search("JA", "。、！")  # punctuation is no word
    assert empty.total == 0 and empty.why.startswith("the query has no word")


def test_english_words_stay_anded_and_a_miss_offers_any_of_them(engine):
    page = engine.search("EN", "bird vaccine")
    assert page.total == 0 and page.searched == ""
    assert page.any_terms == '"bird" OR "vaccine"' and "1 have some" not in page.why and "2 have some" in page.why
    assert {h.docid for h in engine.search("EN", page.any_terms).hits} == {"EN-1", "EN-2"}
    data = page.to_dict()
    assert (data["searched"], data["any_terms"]) == ("", '"bird" OR "vaccine"') and data["why"] == page.why


def test_an_english_question_finds_documents_with_any_word_ranked(engine):
    page = engine.search("EN", "why has olive oil increased in price")
    # computed apart: EN-3 has olive, oil and price (prices), EN-4 price and increased
    assert page.searched == '"olive" OR "oil" OR "increased" OR "price"'
    assert _ids(page) == ["EN-3", "EN-4"]
    # the query language is unchanged for text that is no question: its words are all required
    assert engine.search("EN", "olive oil increased price").total == 0
    assert _ids(engine.search("EN", 'what is "bird flu"?')) == ["EN-1"]
    assert engine.search("EN", '"flu bird"').total == 0  # a phrase outside a question is a phrase


def test_a_question_with_quotation_marks_finds_its_article(engine):
    """The title of a Wikinews article asked as a question: its quotation marks are text."""
    title = JA_DOCS[-1][1]
    page = engine.search("JA", f"{title}とはどういうことか")
    assert _ids(page)[0] == "JA-6" and page.total == 1
    assert _ids(engine.search("CS", '"诺贝尔物理学奖"是什么？')) == ["CS-1"]


def test_document_marks_the_natural_words(engine):
    view = engine.document("JA", "JA-1", "はやぶさの打ち上げ")
    assert [view.text[s.start:s.end] for s in view.spans] == ["はやぶさ", "打ち上げ"]


def test_cli_shows_what_was_searched_and_the_way_out(engine, monkeypatch, tmp_path):
    from sepia.cli import main

    monkeypatch.setenv("SEPIA_HOME", str(tmp_path))
    monkeypatch.setattr("sepia.search.open_engine", lambda *a, **k: engine)
    runner = CliRunner()
    result = runner.invoke(main, ["search", "--lang", "JA", "はやぶさの打ち上げ"])
    assert result.exit_code == 0
    assert 'searched as any of its words: "はやぶさ" OR "打ち上げ"' in result.output
    assert "3 documents for" in result.output
    result = runner.invoke(main, ["search", "--lang", "JA", '"打ち上げの受賞者"'])
    assert result.exit_code == 0 and "no hit: no JA document matches the whole query" in result.output
    assert """any of its words: sepia search --lang JA '"打ち上げ" OR "受賞者"'""" in result.output
