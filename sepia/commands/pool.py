"""`sepia pool`: gather what runs retrieved or answered, by priority and depth, for assessment."""
from __future__ import annotations

import sys

import click

from sepia.store.db import Store
from sepia.store.io import ImportRefused
from sepia.store.pools import build_pool, pool_rows


@click.group()
def pool():
    """Pools of IR4QA documents or CCLQA answers for the assessors."""


@pool.command("build")
@click.argument("name")
@click.option("--kind", type=click.Choice(["ir4qa", "cclqa"]), required=True)
@click.option("--depth", type=click.IntRange(1), required=True, help="Documents or answers taken from each run.")
@click.option("--max-priority", type=click.IntRange(1), help="Only runs of this priority (NN) or better.")
@click.option("--replace", is_flag=True, help="Rebuild a pool of that name.")
def pool_build(name, kind, depth, max_priority, replace):
    """Build pool NAME from the stored runs."""
    try:
        with Store().transaction() as session:
            built = build_pool(session, name, kind, depth, max_priority, replace)
            topics = len({e.topic_id for e in built.entries})
            click.echo(f"pool {name}: {len(built.entries)} {kind} items over {topics} topics")
    except ImportRefused as exc:
        click.echo("; ".join(exc.reasons), err=True)
        sys.exit(1)


@pool.command("export")
@click.argument("name")
def pool_export(name):
    """Print pool NAME as a TSV with a header line."""
    try:
        with Store().transaction() as session:
            header, rows = pool_rows(session, name)
    except ImportRefused as exc:
        click.echo("; ".join(exc.reasons), err=True)
        sys.exit(1)
    click.echo("\t".join(header))
    for row in rows:
        click.echo("\t".join(map(str, row)))
