"""The Whoosh implementation of the SearchEngine protocol."""
from __future__ import annotations

import threading
from pathlib import Path

from whoosh import query as wq
from whoosh import scoring
from whoosh.qparser import MultifieldParser

from sepia import config
from sepia.search.engine import DocumentView, SearchError, SearchHit, SearchPage, Span
from sepia.search.highlight import mark_html, match_spans, query_terms, snippet_html, snippet_spans
from sepia.search.indexer import index_path, open_index
from sepia.search.querygen import generate_query
from sepia.vocab import LANGUAGES

FIELD_BOOSTS = {"title": 2.0, "body": 1.0}
MAX_PAGE_SIZE = 100


class WhooshEngine:
    """Searches the per-language indexes under `index_dir`. Safe to share between threads: each
    thread keeps its own searchers, refreshed when an index has changed."""

    def __init__(self, index_dir: Path | str | None = None):
        self.index_dir = Path(index_dir) if index_dir else config.index_dir()
        self._local = threading.local()

    # ------------------------------------------------------------------ protocol

    def languages(self) -> list[str]:
        return [lang for lang in LANGUAGES if open_index(lang, self.index_dir) is not None]

    def search(self, lang: str, query: str, page: int = 1, page_size: int = 10) -> SearchPage:
        lang = _language(lang)
        if page < 1 or not 1 <= page_size <= MAX_PAGE_SIZE:
            raise SearchError(f"page must be >= 1 and page size 1..{MAX_PAGE_SIZE}")
        searcher = self._searcher(lang)
        q = self._parse(lang, searcher, query)
        if q is wq.NullQuery:
            return SearchPage(lang, query, "", page, page_size, 0, [])
        # Without block skipping the one scoring pass also counts every match, which is faster
        # than skipping and then counting in a second pass (measured: about half the time).
        results = searcher.search(q, limit=page * page_size, optimize=False)
        total = len(results)
        wanted = query_terms(q, searcher.reader())
        analyzer = searcher.schema["body"].analyzer
        hits = []
        for offset in range((page - 1) * page_size, min(page * page_size, results.scored_length())):
            stored = results[offset]
            body = stored.get("body", "")
            spans, start, end = snippet_spans(analyzer, body, wanted)
            hits.append(SearchHit(
                rank=offset + 1, docid=stored["docid"], title=stored.get("title", ""),
                date=stored.get("date") or None, score=round(float(results.score(offset)), 6),
                snippet_html=snippet_html(body, spans, start=start, end=end)))
        return SearchPage(lang, query, str(q), page, page_size, total, hits)

    def generate_query(self, lang: str, key_terms: list[str]) -> str:
        return generate_query(_language(lang), key_terms)

    def document(self, lang: str, docid: str, query: str | None = None) -> DocumentView | None:
        lang = _language(lang)
        searcher = self._searcher(lang)
        stored = searcher.document(docid=docid)
        if stored is None:
            return None
        text, title = stored.get("body", ""), stored.get("title", "")
        spans: list[tuple[int, int]] = []
        title_spans: list[tuple[int, int]] = []
        if query and query.strip():
            q = self._parse(lang, searcher, query)
            wanted = query_terms(q, searcher.reader())
            analyzer = searcher.schema["body"].analyzer
            spans = match_spans(analyzer, text, wanted)
            title_spans = match_spans(analyzer, title, wanted)
        return DocumentView(
            lang=lang, docid=stored["docid"], title=title, date=stored.get("date") or None,
            text=text, spans=[Span(s, e) for s, e in spans],
            title_spans=[Span(s, e) for s, e in title_spans], html=mark_html(text, spans))

    # ------------------------------------------------------------------ internals

    def _searcher(self, lang: str):
        searchers = self._local.__dict__.setdefault("searchers", {})
        old = searchers.get(lang)
        if old is None:
            ix = open_index(lang, self.index_dir)
            if ix is None:
                raise SearchError(f"no {lang} index in {index_path(lang, self.index_dir)}: "
                                  f"run `sepia index build --lang {lang}`")
            searcher = ix.searcher(weighting=scoring.BM25F())
        else:
            searcher = old.refresh()  # the new reader reuses the old one's segments: no close
        searchers[lang] = searcher
        return searcher

    def _parse(self, lang: str, searcher, text: str):
        parser = MultifieldParser(["title", "body"], searcher.schema, fieldboosts=FIELD_BOOSTS)
        try:
            return parser.parse(text)
        except Exception as exc:  # Whoosh raises assorted errors on odd syntax
            raise SearchError(f"cannot parse query {text!r}: {exc}") from exc


def _language(lang: str) -> str:
    code = (lang or "").upper()
    if code not in LANGUAGES:
        raise SearchError(f"unknown language {lang!r}; expected one of {', '.join(LANGUAGES)}")
    return code

