"""What every engine does the same way: the query language (Whoosh's parser over SEPIA's
analyzers, whatever engine runs the query), generated queries, snippets and highlighting at
code-point offsets (sepia.search.highlight), pages and errors. An engine supplies the index
side: opening a reader, running a parsed query, fetching a stored document, expanding prefixes."""
from __future__ import annotations

import re
import shutil
from functools import lru_cache
from pathlib import Path

from whoosh import query as wq
from whoosh.qparser import MultifieldParser

from sepia import config
from sepia.search.analyzers import analysis_mismatch, plain_fold, schema_for
from sepia.search.engine import DocumentView, SearchError, SearchHit, SearchPage, Span
from sepia.search.highlight import (QueryTerms, best_window, mark_html, match_spans, query_terms, snippet_html,
                                    snippet_spans)
from sepia.search.natural import FIELD_BOOSTS, any_term_query, is_natural, natural_query
from sepia.search.querygen import generate_query
from sepia.search.simple_query import simple_query
from sepia.vocab import LANGUAGES

_QUOTED = re.compile(r'"([^"]*)"')
MAX_PAGE_SIZE = 100


@lru_cache(maxsize=None)
def cached_schema(lang: str):
    """The Whoosh schema of a language: its analyzers hold configuration only (tokenizers are
    made per process or thread on use), so one copy serves every thread."""
    return schema_for(lang)


def parse_query(schema, text: str):
    """A Whoosh query tree: words ANDed, OR/NOT/AND, "phrases", title:/body:, prefix*; a word
    without a field looks in title (weighted x2) and body. Words and phrases joined all by AND or
    all by OR are read without Whoosh's parser, to the same tree (sepia.search.simple_query)."""
    simple = simple_query(schema, text)
    if simple is not None:
        return simple
    parser = MultifieldParser(["title", "body"], schema, fieldboosts=FIELD_BOOSTS)
    try:
        return parser.parse(text)
    except Exception as exc:  # Whoosh raises assorted errors on odd syntax
        raise SearchError(f"cannot parse query {text!r}: {exc}") from exc


def understand(schema, lang: str, text: str):
    """(query tree, what was searched instead of `text` or ''): CJK text without operators is any
    of its words (sepia.search.natural), anything else the query language."""
    if is_natural(lang, text):
        return natural_query(lang, text)
    return parse_query(schema, text), ""


def check_language(lang: str) -> str:
    code = (lang or "").upper()
    if code not in LANGUAGES:
        raise SearchError(f"unknown language {lang!r}; expected one of {', '.join(LANGUAGES)}")
    return code


class BaseEngine:
    """The SearchEngine protocol's reading side over an engine's four primitives below."""

    name = ""

    def __init__(self, index_dir: Path | str | None = None):
        self.index_dir = Path(index_dir) if index_dir else config.index_dir()

    # ---------------------------------------------------------------- what an engine supplies

    def index_path(self, lang: str) -> Path:
        raise NotImplementedError

    def has_index(self, lang: str) -> bool:
        raise NotImplementedError

    def _reader(self, lang: str):
        """A handle on the language's index as of now (new commits visible); SearchError if none."""
        raise NotImplementedError

    def _schema(self, reader):
        """The Whoosh schema whose analyzers parse queries and mark hits."""
        raise NotImplementedError

    def _lexicon(self, reader):
        """An object with Whoosh's reader methods for expanding prefixes and patterns
        (expand_prefix, lexicon, terms_from, schema)."""
        raise NotImplementedError

    def _run(self, reader, q, offset: int, limit: int) -> tuple[int, list[tuple[dict, float]]]:
        """(total matches, [(stored fields, score)] of ranks offset+1..offset+limit)."""
        raise NotImplementedError

    def _body_matches(self, reader, wanted: QueryTerms, docids: list[str]) -> set[str] | None:
        """Which of `docids` have any of `wanted`'s terms or phrases in their body, as the index
        says; None when the engine cannot say cheaply. Only a shortcut: a body without any is
        not analysed for its snippet, which analysis would leave unmarked anyway."""
        return None

    def _indexed_spans(self, reader, field: str, wanted: QueryTerms, documents: list) -> dict | None:
        """docid -> the spans of `wanted` in `field` of each of `documents` (stored fields as `_run`
        or `_stored` give them), read from an index that keeps each token's character offsets (the
        same spans as analysing the text again, at a fraction of the cost); None when the index
        keeps none (the text is then analysed)."""
        return None

    def _stored(self, reader, docid: str) -> dict | None:
        raise NotImplementedError

    # ---------------------------------------------------------------- the protocol

    def no_index(self, lang: str) -> SearchError:
        return SearchError(f"no {lang} index in {self.index_path(lang)}: run `sepia index build --lang {lang}`")

    def check_analysis(self, lang: str) -> None:
        """SearchError when the language's index was built with an analysis SEPIA no longer uses:
        its terms are not what queries look for, so it is refused rather than searched."""
        problem = analysis_mismatch(self.index_path(lang), lang)
        if problem:
            raise SearchError(f"{problem}: run `sepia index build --lang {lang}` to rebuild it")

    def languages(self) -> list[str]:
        return [lang for lang in LANGUAGES if self.has_index(lang)]

    def drop(self, lang: str) -> bool:
        if not self.has_index(lang):
            return False
        shutil.rmtree(self.index_path(lang))
        return True

    def search(self, lang: str, query: str, page: int = 1, page_size: int = 10) -> SearchPage:
        lang = check_language(lang)
        if page < 1 or not 1 <= page_size <= MAX_PAGE_SIZE:
            raise SearchError(f"page must be >= 1 and page size 1..{MAX_PAGE_SIZE}")
        reader = self._reader(lang)
        schema = self._schema(reader)
        q, searched = understand(schema, lang, query)
        if q is wq.NullQuery:
            return SearchPage(lang, query, "", page, page_size, 0, [], searched=searched,
                              why="the query has no word to search for (only stop words, punctuation or operators)")
        offset = (page - 1) * page_size
        total, rows = self._run(reader, q, offset, page_size)
        if total == 0:
            return SearchPage(lang, query, str(q), page, page_size, 0, [], searched=searched,
                              **self._no_hit(reader, schema, lang, query, searched))
        wanted = query_terms(q, self._lexicon(reader))
        analyzer = schema["body"].analyzer
        docids = [stored["docid"] for stored, _ in rows]
        indexed = self._indexed_spans(reader, "body", wanted, [stored for stored, _ in rows]) if rows else None
        in_body = self._body_matches(reader, wanted, docids) if rows and indexed is None else None
        hits = []
        for rank, (stored, score) in enumerate(rows, offset + 1):
            body = stored.get("body", "")
            if indexed is not None:
                spans = indexed.get(stored["docid"], [])
                start, end = best_window(body, spans)
            elif in_body is None or stored["docid"] in in_body:
                spans, start, end = snippet_spans(analyzer, body, wanted, fold=plain_fold(lang))
            else:
                spans, start, end = [], *best_window(body, [])
            hits.append(SearchHit(
                rank=rank, docid=stored["docid"], title=stored.get("title", ""),
                date=stored.get("date") or None, score=round(float(score), 6),
                snippet_html=snippet_html(body, spans, start=start, end=end)))
        return SearchPage(lang, query, str(q), page, page_size, total, hits, searched=searched)

    def _no_hit(self, reader, schema, lang: str, query: str, searched: str) -> dict:
        """Why a query found nothing, and the any-term search of its words when that finds some."""
        words = ", ".join(_QUOTED.findall(searched or any_term_query(lang, query))) or query
        if not searched:
            any_terms = any_term_query(lang, query)
            found = any_terms and any_terms != query and self._run(reader, parse_query(schema, any_terms), 0, 1)[0]
            if found:
                return {"why": (f"no {lang} document matches the whole query (words outside OR are all required, "
                                f"a quoted phrase needs its words side by side); {found} have some of its words"),
                        "any_terms": any_terms}
        return {"why": f"none of the words {words} occurs in the {lang} collection"}

    def _marks(self, reader, field: str, text: str, stored, wanted: QueryTerms, analyzer):
        """The spans of `wanted` in one stored document's field: from the index when it can say."""
        indexed = self._indexed_spans(reader, field, wanted, [stored])
        return match_spans(analyzer, text, wanted) if indexed is None else indexed.get(stored["docid"], [])

    def generate_query(self, lang: str, key_terms: list[str]) -> str:
        return generate_query(check_language(lang), key_terms)

    def document(self, lang: str, docid: str, query: str | None = None) -> DocumentView | None:
        lang = check_language(lang)
        reader = self._reader(lang)
        stored = self._stored(reader, docid)
        if stored is None:
            return None
        text, title = stored.get("body", ""), stored.get("title", "")
        spans: list[tuple[int, int]] = []
        title_spans: list[tuple[int, int]] = []
        if query and query.strip():
            schema = self._schema(reader)
            wanted = query_terms(understand(schema, lang, query)[0], self._lexicon(reader))
            analyzer = schema["body"].analyzer
            spans, title_spans = (self._marks(reader, field, value, stored, wanted, analyzer)
                                  for field, value in (("body", text), ("title", title)))
        return DocumentView(
            lang=lang, docid=stored["docid"], title=title, date=stored.get("date") or None,
            text=text, spans=[Span(s, e) for s, e in spans],
            title_spans=[Span(s, e) for s, e in title_spans], html=mark_html(text, spans))
