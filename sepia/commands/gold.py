"""`sepia gold export`: the gold standard of the store's voted nuggets as XML."""
from __future__ import annotations

import click

from sepia.commands.common import write_output
from sepia.vocab import LANGUAGES


@click.group()
def gold() -> None:
    """Work with the gold standard kept in the store."""


@gold.command("export")
@click.option("--lang", type=click.Choice(LANGUAGES, case_sensitive=False), help="Only this target language.")
@click.option("--out", "out", type=click.Path(dir_okay=False, writable=True), help="Write here (default: stdout).")
def export(lang: str | None, out: str | None) -> None:
    """Export topics, nuggets, votes and pyramid weights as a gold-standard XML file."""
    from sepia.store.db import Store
    from sepia.web.gold import gold_xml

    store = Store()
    try:
        with store.transaction() as session:
            data = gold_xml(session, lang.upper() if lang else None)
    finally:
        store.dispose()
    if out:
        write_output(out, data)
        click.echo(f"Gold standard written to {out}.", err=True)
    else:
        click.echo(data, nl=False)
