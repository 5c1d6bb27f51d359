"""`sepia guidelines set|show`: the guidelines for assessors of one judging task, kept in the store in
versions (the web tool's Guidelines page writes the same; docs/assessment.md)."""
from __future__ import annotations

import click

from sepia.commands.common import login_name, store_session, utf8_text
from sepia.store.guidelines import TASKS

_TASK = click.Choice(list(TASKS))


@click.group()
def guidelines() -> None:
    """Guidelines for assessors per judging task, in versions."""


@guidelines.command("set")
@click.argument("task", type=_TASK)
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--author", default=login_name, show_default="your login name", help="Who wrote this version.")
def set_(task: str, file: str, author: str) -> None:
    """Save FILE (UTF-8 text, a little Markdown) as TASK's next version; assessors acknowledge it
    before they judge TASK again."""
    from sepia.store import guidelines as store_guidelines

    text = utf8_text(file)
    try:
        with store_session() as session:
            version = store_guidelines.save(session, task, text, author).version
    except ValueError as error:
        raise click.ClickException(f"{file}: {error}") from error
    click.echo(f"The {TASKS[task]} guidelines saved as version {version} by {author}.")


@guidelines.command("show")
@click.argument("task", type=_TASK)
@click.option("--history", is_flag=True, help="Every version, the newest first, not only the current one.")
def show(task: str, history: bool) -> None:
    """Print TASK's current guidelines (or all versions), each headed by its version, author and time."""
    from sepia.store import guidelines as store_guidelines

    with store_session() as session:
        rows = store_guidelines.history(session, task)
        shown = [(r.version, r.author, r.created_at, r.text) for r in (rows if history else rows[:1])]
    if not shown:
        raise click.ClickException(f"no {TASKS[task]} guidelines yet: write them with `sepia guidelines set`")
    for version, author, at, text in shown:
        click.echo(f"# version {version}, {author}, {at:%Y-%m-%d %H:%M} UTC\n\n{text}\n")
