"""`sepia corpus add LANG PATH...`, `sepia corpus show DOCID`, `sepia corpus stats`."""
from __future__ import annotations

import json

import click

from sepia.vocab import LANGUAGES

LANG = click.Choice(LANGUAGES, case_sensitive=False)


@click.group()
def corpus():
    """Target-language document collections in the store."""


@corpus.command("add")
@click.argument("lang", type=LANG)
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--encoding", help="utf-8, euc-jp, shift_jis/cp932, gbk/gb2312/gb18030, big5/cp950, ...; "
                                 "detected per file when not given.")
@click.option("--max-document-bytes", type=click.IntRange(min=1), default=None,
              help="Skip (and report) longer documents and lines, without reading them into memory; "
                   "default SEPIA_MAX_DOCUMENT_BYTES or 16 MiB.")
@click.option("--progress/--no-progress", default=True, help="Progress bar on a terminal.")
def add(lang, paths, encoding, max_document_bytes, progress):
    """Load SGML newswire (<DOC><DOCNO>..) or JSON lines files, plain or gzipped, or directories
    of them, as collection LANG. Exit 0 when every document was stored, 1 when any was skipped
    (each reported as PATH:LINE: message; the others are stored), 2 when nothing could be read."""
    from sepia.corpus.ingest import IngestError
    from sepia.services.documents import ingest
    from sepia.store.db import Store

    try:
        with Store() as store:
            report = ingest(store, lang, paths, encoding=encoding, progress=progress,
                            max_document_bytes=max_document_bytes)
    except IngestError as exc:
        click.echo(f"error: {exc}", err=True)
        raise SystemExit(2) from None
    for problem in report.problems:
        click.echo(str(problem), err=True)
    click.echo(f"{report.lang}: {report.stored} documents stored from {report.files} files, "
               f"{report.skipped} skipped ({report.seconds:.1f} s)")
    raise SystemExit(0 if report.ok else 1)


@corpus.command("show")
@click.argument("docid")
@click.option("--json", "as_json", is_flag=True)
def show(docid, as_json):
    """Print one stored document."""
    from sepia.services.documents import get_document
    from sepia.commands.common import store_session

    with store_session() as session:
        doc = get_document(session, docid)
        if doc is None:
            click.echo(f"error: no document {docid}", err=True)
            raise SystemExit(1)
        data = {"docid": doc.docid, "lang": doc.lang, "title": doc.title, "date": doc.date,
                "source": doc.source, "text": doc.text}
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False, indent=1))
    else:
        click.echo(f"{data['docid']} [{data['lang']}] {data['date'] or ''}\n{data['title']}\n\n{data['text']}")


@corpus.command("stats")
def stats():
    """Documents stored per language."""
    from sepia.services.documents import document_counts
    from sepia.commands.common import store_session

    with store_session() as session:
        counts = document_counts(session)
    for lang in LANGUAGES:
        click.echo(f"{lang}\t{counts.get(lang, 0)}")
