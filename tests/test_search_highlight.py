"""Highlighting helpers: span merging, HTML escaping, snippet windows on long texts."""
from __future__ import annotations

import re

from whoosh.qparser import MultifieldParser

from sepia.search.analyzers import analyzer_for, schema_for
from sepia.search.highlight import (QueryTerms, best_window, mark_html, match_spans, merge_spans, query_terms,
                                    snippet_html, snippet_spans)

MARK = re.compile(r'<mark data-start="(\d+)" data-end="(\d+)">(.*?)</mark>')


def parse(lang, text):
    return MultifieldParser(["title", "body"], schema_for(lang)).parse(text)


def test_merge_spans_joins_overlapping_and_touching():
    assert merge_spans([(5, 7), (0, 2), (1, 3), (3, 4), (8, 9)]) == [(0, 4), (5, 7), (8, 9)]
    assert merge_spans([]) == []


def test_mark_html_escapes_and_clips():
    text = "a<b> & c"
    assert mark_html(text, [(0, 1), (5, 6)]) == ('<mark data-start="0" data-end="1">a</mark>&lt;b&gt; '
                                                 '<mark data-start="5" data-end="6">&amp;</mark> c')
    assert mark_html(text, [(0, 1)], start=2, end=4) == "b&gt;"


def test_query_terms_skip_negated_parts_and_keep_phrases():
    wanted = query_terms(parse("EN", 'election "new york" NOT vaccine'))
    assert wanted.terms == {"elect"} and wanted.phrases == {("new", "york")}
    wanted = query_terms(parse("JA", "委員会 選挙"))
    assert wanted.phrases == {("委員", "会")} and wanted.terms == {"選挙"}


def test_phrase_marks_need_consecutive_positions():
    analyzer = analyzer_for("JA")
    text = "委員の会合と委員会"
    assert match_spans(analyzer, text, QueryTerms(phrases={("委員", "会")})) == [(6, 9)]


def test_snippet_never_cuts_a_mark_and_shows_ellipses():
    text = "x" * 300 + "目標語" + "y" * 300
    html = snippet_html(text, [(300, 303)], width=50)
    assert html.startswith("…") and html.endswith("…")
    assert MARK.search(html).group(3) == "目標語"
    start, end = best_window("abc", [(0, 1)], width=10)
    assert (start, end) == (0, 3)


def test_windowed_snippet_spans_match_full_analysis():
    analyzer = analyzer_for("JA")
    sentence = "東京都選挙管理委員会は投票率を発表した。"
    text = "前置きの文章です。" * 80 + sentence + "後書きの文章です。" * 80
    wanted = query_terms(parse("JA", "委員会 投票率"))
    spans, start, end = snippet_spans(analyzer, text, wanted)
    full = match_spans(analyzer, text, wanted)
    assert spans and set(spans) <= set(full)
    assert start <= full[0][0] and full[-1][1] <= end
    html = snippet_html(text, spans, start=start, end=end)
    assert [m.group(3) for m in MARK.finditer(html)] == ["委員会", "投票率"]
    for m in MARK.finditer(html):
        assert text[int(m.group(1)):int(m.group(2))] == m.group(3)


def test_windowed_snippet_falls_back_when_words_differ_in_writing():
    analyzer = analyzer_for("JA")
    text = "前置きの文章です。" * 80 + "附属病院で会った。"
    wanted = query_terms(parse("JA", "付属"))       # the text writes 附属
    spans, start, end = snippet_spans(analyzer, text, wanted)
    assert [text[s:e] for s, e in spans] == ["附属"] and start <= spans[0][0] < end


def test_snippet_of_words_present_but_not_as_the_phrase_is_the_unmarked_start():
    """A document found by its title: the phrase's words occur in the body, but apart."""
    analyzer = analyzer_for("JA")
    text = "検定の話。" * 60 + "通過した。" * 60
    spans, start, end = snippet_spans(analyzer, text, QueryTerms(phrases={("検定", "通過")}))
    assert (spans, start) == ([], 0) and end == 200


def test_traditional_text_is_searched_in_its_simplified_spelling():
    from sepia.search.analyzers import plain_fold

    analyzer = analyzer_for("CT")
    text = "前言。" * 100 + "臺灣的資訊科技產業發展迅速。" + "後記。" * 100
    wanted = query_terms(parse("CT", "台湾"))
    assert plain_fold("CT")(text).find("台湾") == 300
    spans, start, end = snippet_spans(analyzer, text, wanted, fold=plain_fold("CT"))
    assert [text[s:e] for s, e in spans] == ["臺灣"] and start <= 300 < end
