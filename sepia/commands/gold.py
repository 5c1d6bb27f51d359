"""`sepia gold export`: the gold standard of the store's voted nuggets as XML; `sepia gold copies`: its copies of one nugget, listed or merged."""
from __future__ import annotations

import click

from sepia.commands.common import store_session, write_output
from sepia.vocab import LANGUAGES


@click.group()
def gold() -> None:
    """Work with the gold standard kept in the store."""


@gold.command("export")
@click.option("--lang", type=click.Choice(LANGUAGES, case_sensitive=False), help="Only this target language.")
@click.option("--out", "out", type=click.Path(dir_okay=False, writable=True), help="Write here (default: stdout).")
def export(lang: str | None, out: str | None) -> None:
    """Export topics, nuggets, votes and pyramid weights as a gold-standard XML file."""
    from sepia.services.gold import gold_xml

    with store_session() as session:
        data = gold_xml(session, lang.upper() if lang else None)
    if out:
        write_output(out, data)
        click.echo(f"Gold standard written to {out}.", err=True)
    else:
        click.echo(data, nl=False)


@gold.command("copies")
@click.option("--topic", "topics", multiple=True, help="Only this topic (repeatable).")
@click.option("--merge", is_flag=True, help="Merge each group into its first nugget, keeping votes and judgments.")
def copies(topics: tuple[str, ...], merge: bool) -> None:
    """List a topic's nuggets that have one text (after NFKC and white-space folding); with --merge,
    merge them as the web tool's nugget list does. Exits 1 when copies are listed and not merged."""
    from sepia.store import nugget_copies

    with store_session() as session:
        chosen = list(topics) or None
        if merge:
            found = [(group, f"merged into {group.keep.label} ({moved['votes']} vote(s) and "
                             f"{moved['judgments']} judgment(s) moved or folded)")
                     for group, moved in nugget_copies.merge_all(session, chosen)]
        else:
            found = [(group, f"copy {group.keep.label} ({group.keep.text})")
                     for group in nugget_copies.find_copies(session, chosen)]
        for group, said in found:
            click.echo(f"{group.topic_id}: {', '.join(n.label for n in group.others)} {said}")
    click.echo(f"{len(found)} group(s) of copies{' merged' if merge else ''}.", err=True)
    raise SystemExit(1 if found and not merge else 0)
