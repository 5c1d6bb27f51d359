"""The tantivy index's stored tokens (sepia.search.offsets) give the spans of all the text's tokens."""
from __future__ import annotations

from sepia.search.highlight import QueryTerms, token_spans
from sepia.search.offsets import pack_units, unpack_spans

UNITS = [("a", 0, 0, 1), ("a", 1, 2, 3), ("bc", 2, 4, 6), ("b", 2, 4, 5), ("c", 3, 5, 6), ("a", 4, 7, 8),
         ("選挙", 5, 9, 11)]


def test_stored_tokens_give_the_spans_of_every_token():
    blob = pack_units(UNITS)
    for wanted in (QueryTerms({"a"}), QueryTerms({"bc", "選挙"}), QueryTerms(phrases={("b", "c")}),
                   QueryTerms({"c"}, {("a", "a"), ("c", "a")}), QueryTerms({"x", ""}), QueryTerms()):
        assert unpack_spans(blob, wanted) == token_spans(UNITS, wanted), wanted
    assert unpack_spans(blob, QueryTerms({"a"})) == [(0, 1), (2, 3), (7, 8)]  # hand-checked


def test_an_empty_text_and_a_term_holding_the_separator():
    assert unpack_spans(pack_units([]), QueryTerms({"a"})) == []
    assert pack_units([("a\x00b", 0, 0, 3)]) is None
