"""SEPIA's query language on tantivy: the query is parsed by Whoosh's parser over SEPIA's own
analyzers (sepia.search.base.parse_query), exactly as for the Whoosh engine, and the parsed
tree is translated node by node into tantivy queries. So AND/OR/NOT, "phrases", field:word,
prefix* and the phrase a CJK word becomes mean the same on both engines; only the scores differ
(docs/search.md, "Ranking").

Prefixes and other patterns are expanded against the tantivy lexicon through `Lexicon`, which
offers the few reader methods Whoosh's own expansion uses, so highlighting expands them the same way.
"""
from __future__ import annotations

import tantivy
from tantivy import Occur, Query
from whoosh import query as wq

from sepia.search.engine import SearchError


class Lexicon:
    """The terms of a tantivy index in the shape Whoosh's MultiTerm.expanded_terms reads them:
    UTF-8 bytes, in byte order. Terms of deleted documents may linger until segments merge."""

    def __init__(self, searcher: tantivy.Searcher, schema):
        self.searcher = searcher
        self.schema = schema  # the Whoosh schema (from_bytes / to_bytes of its fields)

    def expand_prefix(self, fieldname: str, prefix):
        if isinstance(prefix, bytes):
            prefix = prefix.decode("utf-8")
        for term, _docs in self.searcher.terms_with_prefix(fieldname, prefix):
            yield term.encode("utf-8")

    def lexicon(self, fieldname: str):
        return self.expand_prefix(fieldname, "")

    def terms_from(self, fieldname: str, start: bytes):
        for term in self.lexicon(fieldname):
            if term >= start:
                yield fieldname, term


def to_tantivy(q: wq.Query, schema: tantivy.Schema, lexicon: Lexicon) -> Query | None:
    """The tantivy query of a parsed Whoosh query; None when it can match nothing."""
    translated = _translate(q, schema, lexicon)
    boost = getattr(q, "boost", 1.0)
    if translated is not None and boost != 1.0 and not isinstance(q, (wq.MultiTerm,)):
        translated = Query.boost_query(translated, float(boost))
    return translated


def _everything_but(query: Query | None) -> Query:
    if query is None:
        return Query.all_query()
    return Query.boolean_query([(Occur.Must, Query.all_query()), (Occur.MustNot, query)])


def _translate(q, schema, lexicon) -> Query | None:
    if q is wq.NullQuery or isinstance(q, type(wq.NullQuery)):
        return None
    if isinstance(q, wq.Term):
        return Query.term_query(schema, q.fieldname, q.text)
    if isinstance(q, wq.Phrase):
        words = list(q.words)
        if not words:
            return None
        if len(words) == 1:
            return Query.term_query(schema, q.fieldname, words[0])
        # Whoosh's slop 1 is adjacent words; tantivy's is 0
        return Query.phrase_query(schema, q.fieldname, words, slop=max(0, q.slop - 1))
    if isinstance(q, wq.Every):
        return Query.all_query()
    if isinstance(q, wq.MultiTerm):
        return _expanded(q, schema, lexicon)
    if isinstance(q, wq.Not):
        return _everything_but(to_tantivy(q.query, schema, lexicon))
    if isinstance(q, wq.AndNot):
        return _boolean([(Occur.Must, q.a), (Occur.MustNot, q.b)], schema, lexicon)
    if isinstance(q, wq.AndMaybe):
        return _boolean([(Occur.Must, q.a), (Occur.Should, q.b)], schema, lexicon)
    if isinstance(q, wq.Require):
        positive = to_tantivy(q.a, schema, lexicon)
        required = to_tantivy(q.b, schema, lexicon)
        if positive is None or required is None:
            return None
        return Query.boolean_query([(Occur.Must, positive), (Occur.Must, Query.const_score_query(required, 0.0))])
    if isinstance(q, wq.And):
        return _boolean([(Occur.MustNot, c.query) if isinstance(c, wq.Not) else (Occur.Must, c)
                         for c in q.subqueries], schema, lexicon)
    if isinstance(q, wq.DisjunctionMax):
        subs = [s for s in (to_tantivy(c, schema, lexicon) for c in q.subqueries) if s is not None]
        return Query.disjunction_max_query(subs, tie_breaker=q.tiebreak or None) if subs else None
    if isinstance(q, wq.Or):
        return _boolean([(Occur.Should, c) for c in q.subqueries], schema, lexicon,
                        minmatch=getattr(q, "minmatch", 0) or None)
    raise SearchError(f"the tantivy engine cannot run {type(q).__name__} queries ({q})")


def _boolean(clauses, schema, lexicon, minmatch: int | None = None) -> Query | None:
    out = []
    for occur, child in clauses:
        sub = to_tantivy(child, schema, lexicon)
        if sub is None:
            if occur == Occur.Must:
                return None          # a required part that matches nothing
            continue                 # an optional or excluded one changes nothing
        out.append((occur, sub))
    if not any(occur != Occur.MustNot for occur, _ in out):
        if not out:
            return None
        out.append((Occur.Must, Query.all_query()))  # only exclusions: everything else
    return Query.boolean_query(out, minimum_number_should_match=minmatch)


def _expanded(q: wq.MultiTerm, schema, lexicon) -> Query | None:
    """A prefix, wildcard or other pattern: the lexicon's matching terms, each scored by BM25 as
    Whoosh (whoosh-reloaded 2.7.5) does, whatever `constantscore` says: several terms are ORed
    with the pattern's boost; a single term stands alone, without it."""
    fieldname = q.field()
    terms = [t.decode("utf-8") for _f, t in q.expanded_terms(lexicon)]
    if not fieldname or not terms:
        return None
    if len(terms) == 1:
        return Query.term_query(schema, fieldname, terms[0])
    sub = Query.boolean_query([(Occur.Should, Query.term_query(schema, fieldname, t)) for t in terms])
    return sub if q.boost == 1.0 else Query.boost_query(sub, float(q.boost))
