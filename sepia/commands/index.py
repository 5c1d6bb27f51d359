"""`sepia index build [--lang L] [--rebuild] [--engine whoosh|tantivy]`, `sepia index stats`."""
from __future__ import annotations

import click

from sepia.search.engine import ENGINES
from sepia.vocab import LANGUAGES

ENGINE_CHOICE = click.Choice(list(ENGINES), case_sensitive=False)


@click.group()
def index():
    """Search indexes, one per language, in the data directory (Whoosh, or tantivy)."""


@index.command("build")
@click.option("--lang", "langs", multiple=True, type=click.Choice(LANGUAGES, case_sensitive=False),
              help="Language to index (repeatable); default: every language with stored documents.")
@click.option("--rebuild", is_flag=True, help="Write a fresh index instead of adding new documents.")
@click.option("--engine", "engine_name", type=ENGINE_CHOICE,
              help="Search engine of this data directory, remembered there (default: the one chosen "
                   "before, else whoosh). Changing it rebuilds every language with the new engine.")
@click.option("--procs", type=click.IntRange(1, 64), default=None,
              help="Processes analysing documents  [default: every core]")
@click.option("--progress/--no-progress", default=True)
def build(langs, rebuild, engine_name, procs, progress):
    """Index the store's documents; without --rebuild only documents not yet indexed are added."""
    from sepia.store.db import Store

    with Store() as store:
        _build(store, langs, rebuild, engine_name, procs, progress)


def _build(store, langs, rebuild, engine_name, procs, progress) -> None:
    from sepia.commands.common import warn
    from sepia.search.engine import ENGINE_FILE, IndexBusy, configured_engine, open_engine, remember_engine
    from sepia.services.documents import document_counts
    from sepia.services.indexing import StoredDocuments

    current = configured_engine()
    engine_name = (engine_name or current).lower()
    old = open_engine(engine=current)
    # Changing the engine rebuilds whatever the old one served too: the data directory never
    # serves some languages from each engine.
    switching = engine_name != current and bool(old.languages())
    if not langs:
        with store.transaction() as session:
            langs = [lang for lang, n in sorted(document_counts(session).items()) if n]
    langs = [lang.upper() for lang in langs]
    if switching:
        langs = [lang for lang in LANGUAGES if lang in {*langs, *old.languages()}]
    if not langs:
        click.echo("nothing to index: no documents stored (sepia corpus add LANG PATH...)", err=True)
        raise SystemExit(1)
    engine, documents = open_engine(engine=engine_name), StoredDocuments(store)
    for lang in langs:
        try:
            report = engine.build(documents, lang, rebuild=rebuild or switching, procs=procs, progress=progress)
        except IndexBusy as exc:
            click.echo(f"error: {exc}", err=True)
            raise SystemExit(1) from None
        for note in report.notes:
            warn(note)
        how = "rebuilt" if report.rebuilt else "updated"
        click.echo(f"{report.lang}: {how} ({engine.name}), {report.added} documents added, {report.total} indexed "
                   f"({report.seconds:.1f} s)")
    if engine_name != current or not (engine.index_dir / ENGINE_FILE).exists():
        remember_engine(engine.index_dir, engine_name)
    if switching:
        removed = [lang for lang in old.languages() if old.drop(lang)]
        click.echo(f"search engine: {engine_name} (was {current}"
                   + (f"; its {', '.join(removed)} indexes removed)" if removed else ")"))


@index.command("stats")
def stats():
    """Documents, terms, size and documents waiting to be indexed, per language."""
    from sepia.search.engine import open_engine
    from sepia.services.indexing import StoredDocuments
    from sepia.store.db import Store

    with Store() as store:
        documents = StoredDocuments(store)
        engine = open_engine()
        click.echo(f"engine: {engine.name}", err=True)
        click.echo("lang\tdocuments\tpending\tsegments\tterms\ttokens\tMB")
        for lang in LANGUAGES:
            s = engine.stats(lang, documents)
            if s is not None:
                click.echo(f"{s.lang}\t{s.documents}\t{s.pending}\t{s.segments}\t{s.terms}\t{s.tokens}\t"
                           f"{s.bytes / 1e6:.1f}")
