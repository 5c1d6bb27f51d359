"""The thin adapter between the topic page and the search engine (sepia.search, docs/search.md).

Views talk only to this module: it finds the engine (the app's SEARCH_ENGINE, or sepia.search's
`open_engine` on first use), turns its answers (SearchPage, DocumentView) into plain dicts, and
keeps only <mark>-like tags of its snippet HTML, so that no document can inject markup.
"""
from __future__ import annotations

from html import escape
from html.parser import HTMLParser

from flask import current_app
from markupsafe import Markup

from sepia.services.documents import a_title
from sepia.web.db import db

SNIPPET_TAGS = frozenset({"mark", "b", "strong", "em"})


class SearchUnavailable(RuntimeError):
    """No engine or no index for this collection: the page says so instead of failing."""


def _unavailable(message: str, error: Exception) -> SearchUnavailable:
    """What the page says; the cause, which may name server paths, goes to the server's log only."""
    current_app.logger.warning("search: %s", error, exc_info=error)
    return SearchUnavailable(message)


def engine():
    configured = current_app.config.get("SEARCH_ENGINE")
    if configured is not None:
        return configured
    cached = current_app.extensions.get("sepia_search_engine")
    if cached is None:
        try:
            from sepia.search import open_engine
        except ImportError as error:
            raise SearchUnavailable("The search engine (sepia.search) is not installed.") from error
        try:
            cached = open_engine(current_app.config.get("SEARCH_INDEX_DIR"))
        except Exception as error:  # a missing or broken index must not take the page down
            raise _unavailable("The search index cannot be opened: an organiser builds it with "
                               "`sepia index build`.", error) from error
        current_app.extensions["sepia_search_engine"] = cached
    return cached


def warm_up(say=None) -> None:
    """Open the engine and search each indexed collection once (for the title of one of its
    documents), so that no user waits while a fresh server process loads the analyzers'
    dictionaries: jieba's alone takes about a second of CPU. `say`, if given, is told each
    collection before its search (the seconds are not silent). Needs an application context;
    a problem is logged, never raised (the search pane then says what is wrong)."""
    try:
        found = engine()
        for lang in found.languages():
            if say is not None:
                say(f"loading the {lang} search analyzer (a first search of the collection)")
            title = a_title(db(), lang)
            found.search(lang, title or lang, page_size=1)
    except Exception as error:  # a missing or broken index must not stop the server
        current_app.logger.warning("search warm-up: %s", error)


def search(lang: str, query: str, page: int, page_size: int = 10) -> dict:
    """One page of ranked hits: {"total", "page", "page_size", "hits": [{rank, docid, title, date,
    snippet (safe Markup), score}], "parsed", "searched", "why", "any_terms"} (SearchPage's)."""
    try:
        result = engine().search(lang, query, page=page, page_size=page_size)
    except SearchUnavailable:
        raise
    except Exception as error:
        raise _unavailable("The search failed; try a simpler query.", error) from error
    hits = [
        {"rank": hit.rank, "docid": hit.docid, "title": hit.title or "", "date": hit.date or "",
         "snippet": safe_snippet(hit.snippet_html or ""), "score": hit.score}
        for hit in result.hits
    ]
    return {"total": result.total, "page": result.page, "page_size": result.page_size, "hits": hits,
            "parsed": result.parsed, "searched": result.searched, "why": result.why, "any_terms": result.any_terms}


def generate_query(lang: str, key_terms: list[str]) -> str:
    try:
        return engine().generate_query(lang, key_terms)
    except SearchUnavailable:
        raise
    except Exception as error:
        raise _unavailable("No query could be generated from these key terms.", error) from error


def question_query(question: str) -> str:
    """A topic's question as a query read as words, whatever characters it holds (a quote, a ?):
    any of its content words (sepia.search.natural); a final question mark is kept, so that an
    English question is read as one too."""
    from sepia.search.natural import words_only

    words = words_only(question).rstrip()
    asks = question.rstrip().endswith(("?", "？")) and not words.endswith(("?", "？"))  # the syntax drops only '?'
    return words + ("?" if asks else "")


def hit_spans(lang: str, docid: str, query: str | None, text_length: int) -> list[tuple[int, int]]:
    """Where the query's terms occur in the document, as sorted, merged (start, end) code-point
    offsets into the stored text; none when there is no query or no engine."""
    if not query:
        return []
    try:
        found = engine().document(lang, docid, query=query)
    except Exception:
        return []  # highlighting is a help, not a condition for reading the document
    if found is None:
        return []
    spans = [(span.start, span.end) for span in found.spans if 0 <= span.start < span.end <= text_length]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


class _SnippetCleaner(HTMLParser):
    """Keeps the text and a few attribute-less emphasis tags; everything else becomes plain text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.open: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in SNIPPET_TAGS:
            self.out.append(f"<{tag}>")
            self.open.append(tag)
        else:
            self.out.append(escape(self.get_starttag_text() or ""))

    def handle_endtag(self, tag):
        if tag in SNIPPET_TAGS and tag in self.open:
            while self.open:
                closing = self.open.pop()
                self.out.append(f"</{closing}>")
                if closing == tag:
                    break
        else:
            self.out.append(escape(f"</{tag}>"))

    def handle_data(self, data):
        self.out.append(escape(data))

    def result(self) -> str:
        self.close()
        return "".join(self.out) + "".join(f"</{tag}>" for tag in reversed(self.open))


def safe_snippet(snippet_html: str) -> Markup:
    cleaner = _SnippetCleaner()
    cleaner.feed(snippet_html)
    return Markup(cleaner.result())
