"""The common queries of the query language parsed without Whoosh's parser, to the same tree.

Whoosh's parser (sepia.search.base.parse_query) runs some twenty taggers and filters over every
query and analyses each word once per field; for a query of a few words that is most of a tantivy
search's time. The forms generated queries, the search pane and topic developers mostly use are
read here directly: words and "phrases" separated by white space, all joined by AND (or nothing)
or all by OR. Each is analysed once and becomes what Whoosh's MultifieldParser makes of it (the
term or phrase in title, boosted, OR in body), normalised as Whoosh normalises the parser's tree
(its normalize() copied every node: a quarter of the parse), so the result is equal to the
parser's (tests/test_search_simple_query.py compares them). Anything else (fields, NOT,
parentheses, prefixes, boosts, slop, mixed AND and OR, an EN word of several terms, ...) returns
None and goes to the parser.
"""
from __future__ import annotations

import re

from whoosh import query as wq

from sepia.search.natural import FIELD_BOOSTS

_TOKEN = re.compile(r'"[^"\n]*"|[^\s"]+')
# Characters some tagger of Whoosh's default parser reads as syntax inside or next to a word.
_SYNTAX = frozenset("\"'():*?[]{}^~\\")
_OPERATORS = frozenset({"AND", "OR", "NOT", "ANDNOT", "ANDMAYBE", "REQUIRE"})


def _items(text: str) -> tuple[list[str], str] | None:
    """The words and phrases of `text` and the operator joining them ("AND" or "OR"); None when
    `text` has any other syntax."""
    items: list[str] = []
    joined = set()
    expect_item, end = True, 0
    for match in _TOKEN.finditer(text):
        gap = text[end:match.start()]
        if gap and not gap.isspace() or not gap and end:
            return None  # an unclosed quote, or a phrase with something next to it
        end = match.end()
        token = match.group()
        if token in _OPERATORS:
            if token not in ("AND", "OR") or expect_item:
                return None
            joined.add(token)
            expect_item = True
            continue
        if token == '""' or token[0] != '"' and not _SYNTAX.isdisjoint(token):
            return None
        if not expect_item:
            joined.add("AND")  # white space alone joins by AND, as the parser's default group
        items.append(token)
        expect_item = False
    tail = text[end:]
    if expect_item or tail and not tail.isspace() or len(joined) > 1:
        return None
    return items, (joined.pop() if joined else "AND")


def simple_query(schema, text: str) -> wq.Query | None:
    """The query tree Whoosh's MultifieldParser (title x2, body) gives for `text` when it has only
    words and phrases joined all by AND or all by OR; None otherwise."""
    read = _items(text)
    if read is None:
        return None
    items, operator = read
    fields = [(name, boost, schema[name]) for name, boost in FIELD_BOOSTS.items()]
    analyzer, multitoken = fields[0][2].analyzer, fields[0][2].multitoken_query
    if any(field.analyzer is not analyzer or field.multitoken_query != multitoken for *_f, field in fields):
        return None
    groups = []
    for item in items:
        phrase = item[0] == '"'
        words = [token.text for token in analyzer(item[1:-1] if phrase else item, mode="query")]
        if not words:
            continue  # a stop word, punctuation: nothing in either field
        if len(words) > 1 and not phrase and multitoken != "phrase":
            return None  # each word a term of its own, ANDed inside the field: left to the parser
        if len(words) > 1:
            subs = [wq.Phrase(name, words, boost=boost) for name, boost, _field in fields]
        elif phrase:  # a phrase of one word is its term, without the field's boost (Phrase.normalize)
            subs = [wq.Term(name, words[0]) for name, _boost, _field in fields]
        else:
            subs = [wq.Term(name, words[0], boost=boost) for name, boost, _field in fields]
        groups.append(wq.Or(subs))
    # What Whoosh's normalize() makes of the parser's tree: an OR of the items flattened, an AND
    # of them; repeats dropped, a single part standing alone.
    parts = [sub for group in groups for sub in group.subqueries] if operator == "OR" else groups
    unique: list[wq.Query] = []
    for part in parts:
        if part not in unique:
            unique.append(part)
    if len(unique) <= 1:
        return unique[0] if unique else wq.NullQuery
    return wq.Or(unique) if operator == "OR" else wq.And(unique)
