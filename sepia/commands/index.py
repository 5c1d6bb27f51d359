"""`sepia index build [--lang L] [--rebuild]`, `sepia index stats`."""
from __future__ import annotations

import click

from sepia.vocab import LANGUAGES


@click.group()
def index():
    """Whoosh search indexes, one per language, in the data directory."""


@index.command("build")
@click.option("--lang", "langs", multiple=True, type=click.Choice(LANGUAGES, case_sensitive=False),
              help="Language to index (repeatable); default: every language with stored documents.")
@click.option("--rebuild", is_flag=True, help="Write a fresh index instead of adding new documents.")
@click.option("--procs", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Worker processes analysing documents.")
@click.option("--progress/--no-progress", default=True)
def build(langs, rebuild, procs, progress):
    """Index the store's documents; without --rebuild only documents not yet indexed are added."""
    from sepia.commands.common import warn
    from sepia.corpus.lookup import document_counts
    from sepia.search.indexer import IndexBusy, build_index
    from sepia.store.db import open_store

    store = open_store()
    if not langs:
        with store.transaction() as session:
            langs = [lang for lang, n in sorted(document_counts(session).items()) if n]
        if not langs:
            click.echo("nothing to index: no documents stored (sepia corpus add LANG PATH...)", err=True)
            raise SystemExit(1)
    for lang in langs:
        try:
            report = build_index(store, lang, rebuild=rebuild, procs=procs, progress=progress)
        except IndexBusy as exc:
            click.echo(f"error: {exc}", err=True)
            raise SystemExit(1)
        for note in report.notes:
            warn(note)
        how = "rebuilt" if report.rebuilt else "updated"
        click.echo(f"{report.lang}: {how}, {report.added} documents added, {report.total} indexed "
                   f"({report.seconds:.1f} s)")


@index.command("stats")
def stats():
    """Documents, terms, size and documents waiting to be indexed, per language."""
    from sepia.search.indexer import index_stats
    from sepia.store.db import open_store

    store = open_store()
    click.echo("lang\tdocuments\tpending\tsegments\tterms\ttokens\tMB")
    for lang in LANGUAGES:
        s = index_stats(lang, store=store)
        if s is not None:
            click.echo(f"{s.lang}\t{s.documents}\t{s.pending}\t{s.segments}\t{s.terms}\t{s.tokens}\t"
                       f"{s.bytes / 1e6:.1f}")
