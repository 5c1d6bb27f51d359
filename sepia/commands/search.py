"""`sepia search --lang JA "query" [--json] [--page N]` and `--terms` for a generated query."""
from __future__ import annotations

import json
import re
import shlex

import click

from sepia.vocab import LANGUAGES

_MARK = re.compile(r"<mark[^>]*>(.*?)</mark>", re.S)


def _terminal_snippet(html: str) -> str:
    from html import unescape

    return unescape(_MARK.sub(lambda m: click.style(m.group(1), bold=True, fg="red"), html))


@click.command()
@click.argument("query", required=False)
@click.option("--lang", required=True, type=click.Choice(LANGUAGES, case_sensitive=False))
@click.option("--terms", help="Key terms, comma-separated: search with the query generated from them.")
@click.option("--page", type=click.IntRange(1), default=1, show_default=True)
@click.option("--page-size", type=click.IntRange(1, 100), default=10, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the result page as JSON.")
def search(query, lang, terms, page, page_size, as_json):
    """Search a collection: words (AND), OR, NOT, "phrases", title:word, prefix*; ranked by BM25,
    with the data directory's engine (Whoosh or tantivy). CS, CT or JA text without operators, and a
    question in any language (why has olive oil increased in price), is searched as any of its words
    (はやぶさの打ち上げ: はやぶさ OR 打ち上げ)."""
    from sepia.search import SearchError, open_engine

    engine = open_engine()
    if terms:
        query = engine.generate_query(lang, [t for t in terms.split(",")])
    if not query:
        click.echo("error: give a QUERY or --terms", err=True)
        raise SystemExit(2)
    try:
        result = engine.search(lang, query, page=page, page_size=page_size)
    except SearchError as exc:
        click.echo(f"error: {exc}", err=True)
        raise SystemExit(1) from None
    if as_json:
        click.echo(json.dumps(result.to_dict(), ensure_ascii=False, indent=1))
        return
    if result.searched:
        click.echo(f"searched as any of its words: {result.searched}  (documents with all of them first; "
                   f"quote a phrase to search it as one)")
    click.echo(f"{result.total} documents for {result.parsed or query}  (page {result.page} of {result.pages})")
    if result.why:
        click.echo(f"no hit: {result.why}")
    if result.any_terms:
        click.echo(f"any of its words: sepia search --lang {lang.upper()} {shlex.quote(result.any_terms)}")
    for hit in result.hits:
        click.echo(f"\n{hit.rank:>4}. {hit.docid}  {hit.date or ''}  {hit.score:.3f}\n      {hit.title}")
        click.echo(f"      {_terminal_snippet(hit.snippet_html)}")
