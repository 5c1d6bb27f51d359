"""`sepia nuggetize`: an LLM proposes nuggets for stored topics from their saved answer passages."""
from __future__ import annotations

import json

import click

from sepia.commands.common import key_values, made_or_exit


@click.command()
@click.option("--topic", "topic_ids", multiple=True, required=True, help="A stored topic's ID; repeat for more.")
@click.option("--matcher-option", "matcher_options", multiple=True, metavar="NAME=VALUE", callback=key_values,
              help="The llm matcher's server options: base_url=URL (required), model=, api_key_env=, ... (docs/llm.md).")
@click.option("--max", "most", type=click.IntRange(1, 50), default=12, show_default=True,
              help="Most nuggets suggested per topic.")
@click.option("--format", "output", type=click.Choice(["table", "json"]), default="table", show_default=True)
def nuggetize(topic_ids, matcher_options, most, output):
    """Propose nuggets (text and source DOCIDs) for stored topics from their saved answer passages.

    Nothing is stored: add the ones you keep in the web tool's nugget screen (its "Suggest nuggets"
    does the same there), or edit them first. Votes stay human.

    Example: sepia nuggetize --topic ACLIA2-CS-0001 --matcher-option base_url=http://127.0.0.1:8080/v1
    """
    from sepia.services.nugget_suggestions import suggestions
    from sepia.store.db import Store

    with Store() as store:
        found = {topic_id: made_or_exit(suggestions, store, topic_id, matcher_options, most)[0]
                 for topic_id in topic_ids}
    if output == "json":
        click.echo(json.dumps({t: [{"text": s.text, "docids": list(s.docids)} for s in found[t]] for t in found},
                              ensure_ascii=False, indent=1))
        return
    for topic_id, listed in found.items():
        click.echo(f"{topic_id}: {len(listed)} suggested nuggets")
        for n, s in enumerate(listed, 1):
            click.echo(f"  {n:2d}. {s.text}  [{', '.join(s.docids) or 'no source named'}]")
