"""The tantivy index's stored tokens (sepia.search.offsets) give the spans of all the text's tokens,
and the analysers' one-pass columns (sepia.search.units.Columns) are their unit streams."""
from __future__ import annotations

import pytest

from sepia.search.analyzers import index_columns, index_units
from sepia.search.highlight import QueryTerms, token_spans
from sepia.search.offsets import pack_columns, unpack_spans
from sepia.search.units import Columns, split_compounds, unit_columns

UNITS = [("a", 0, 0, 1), ("a", 1, 2, 3), ("bc", 2, 4, 6), ("b", 2, 4, 5), ("c", 3, 5, 6), ("a", 4, 7, 8),
         ("選挙", 5, 9, 11)]
WANTED = (QueryTerms({"a"}), QueryTerms({"bc", "選挙"}), QueryTerms(phrases={("b", "c")}),
          QueryTerms({"c"}, {("a", "a"), ("c", "a")}), QueryTerms({"x", ""}), QueryTerms())


def test_stored_tokens_give_the_spans_of_every_token():
    columns = unit_columns(UNITS)
    assert columns == Columns(["a", "a", "b", "c", "a", "選挙"], ["bc"], [0, 1, 2, 3, 4, 5, 5, 6, 7, 8, 9, 11],
                              [2, 4, 6])  # hand-checked: bc is the compound at b's position
    blob = pack_columns(columns)
    for wanted in WANTED:
        assert unpack_spans(blob, wanted) == token_spans(UNITS, wanted), wanted
    assert unpack_spans(blob, QueryTerms({"a"})) == [(0, 1), (2, 3), (7, 8)]  # hand-checked


def test_positions_with_a_gap_are_kept_as_they_are():
    units = [("a", 0, 0, 1), ("b", 2, 4, 5), ("a", 3, 6, 7)]
    assert split_compounds(units) is None
    columns = unit_columns(units)
    assert columns == Columns([], ["a", "b", "a"], [], [0, 0, 1, 2, 4, 5, 3, 6, 7])
    for wanted in (QueryTerms({"a"}), QueryTerms(phrases={("b", "a")}), QueryTerms(phrases={("a", "b")})):
        assert unpack_spans(pack_columns(columns), wanted) == token_spans(units, wanted), wanted


def test_an_empty_text_and_a_term_holding_the_separator():
    assert unpack_spans(pack_columns(unit_columns([])), QueryTerms({"a"})) == []
    assert pack_columns(unit_columns([("a\x00b", 0, 0, 3)])) is None


TEXTS = {"JA": ["選挙管理委員会は東京都の知事選挙について発表した。", "インターネットエクスプローラー（Internet Explorer）の新版",
                "附属病院で食べた𠮷野家の牛丼、ＳＵＤＡＣＨＩ。", ""],
         "CS": ["中华人民共和国选举管理委员会发布禽流感疫苗公告。", "2008年 北京奥运会 abc DEF", "的了", ""],
         "CT": ["中華人民共和國選舉管理委員會發佈禽流感疫苗公告。", "臺灣高鐵通車", ""],
         "EN": ["The election commissions said turnout in New York rose to 54 percent & more.", "a I", ""]}


@pytest.mark.parametrize("lang", TEXTS)
def test_columns_are_the_unit_stream_in_one_pass(lang):
    columns, units = index_columns(lang), index_units(lang)
    for text in TEXTS[lang]:
        stream = list(units(text))
        assert columns(text) == unit_columns(stream), text
        fine, compounds = split_compounds(stream)
        assert (columns(text).fine, columns(text).compounds) == (fine, compounds)
        every = [(t, p, s, e) for t, p, s, e in stream]
        for wanted in (QueryTerms({t for t, *_ in every[::2]}), QueryTerms(phrases={tuple(t for t, *_ in every[1:3])})):
            assert unpack_spans(pack_columns(columns(text)), wanted) == token_spans(every, wanted), (text, wanted)
