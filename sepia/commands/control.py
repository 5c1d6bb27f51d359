"""`sepia control`: control items (items with a known answer) for qualifying assessors."""
from __future__ import annotations

import json
import sys

import click

from sepia.commands.common import store_session
from sepia.store.errors import ImportRefused


@click.group()
def control():
    """Control items: kept with their expected answer, mixed blind into a pool's queues."""


def _refused(reasons: list[str]) -> None:
    click.echo("; ".join(reasons), err=True)
    sys.exit(1)


def _entry(session, pool, item: str):
    """A pool item by its number (the `item` of `sepia pool export`) or, for documents, TOPIC:DOCID."""
    from sqlalchemy import select

    from sepia.store.models import PoolEntry

    query = select(PoolEntry).where(PoolEntry.pool_id == pool.id, PoolEntry.control_id.is_(None))
    if item.isdigit():
        query = query.where(PoolEntry.id == int(item))
    else:
        topic_id, _, docid = item.partition(":")
        query = query.where(PoolEntry.topic_id == topic_id, PoolEntry.docid == docid)
    found = session.scalar(query)
    if found is None:
        _refused([f"pool {pool.name} has no item {item}"])
    return found


@control.command("add")
@click.argument("pool_name", metavar="POOL")
@click.option("--item", "items", multiple=True, required=True,
              help="The item: its number in `sepia pool export`, or TOPIC:DOCID in an IR4QA pool; repeat for several.")
@click.option("--expect", "nuggets", help="The nuggets the response contains, e.g. 'N001 N003' ('' for none); "
                                          "without --expect or --level, the organiser's decision on the item.")
@click.option("--level", type=int, help="IR4QA: the expected relevance level.")
@click.option("--reason", default="", help="Why this is the answer (shown in training).")
def control_add(pool_name, items, nuggets, level, reason):
    """Keep items of POOL as control items with their expected answer."""
    from sepia.store.controls import mark_control, written_answer
    from sepia.store.pools import get_pool

    try:
        with store_session() as session:
            pool = get_pool(session, pool_name)
            for item in items:
                entry = _entry(session, pool, item)
                given = None
                if nuggets is not None or level is not None:
                    given = written_answer(session, entry, None if nuggets is None else nuggets.split(), level)
                made = mark_control(session, entry, reason, "sepia control add", given)
                click.echo(f"control item {made.id}: {pool_name} item {item} ({made.kind}, expected {made.expected or 'none'})")
    except ImportRefused as exc:
        _refused(exc.reasons)


@control.command("mix")
@click.argument("pool_name", metavar="POOL")
@click.option("--rate", type=float, default=0.1, show_default=True,
              help="The share of each assessor's queue made up of control items, from 0 up to (not including) 1.")
@click.option("--training", is_flag=True, help="Show the expected answer and its reason after each control item.")
def control_mix(pool_name, rate, training):
    """Mix control items into the queues of POOL's assessors."""
    from sepia.store.controls import mix_controls
    from sepia.store.pools import get_pool

    try:
        with store_session() as session:
            pool = get_pool(session, pool_name)
            added = mix_controls(session, pool, rate)
            pool.training = training
    except ImportRefused as exc:
        _refused(exc.reasons)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--rate") from None
    click.echo(f"pool {pool_name}: {added} control item(s) mixed in" + (" (training)" if training else ""))


@control.command("accuracy")
@click.option("--threshold", type=float, default=0.8, show_default=True,
              help="Flag an accuracy below this (0 to 1).")
@click.option("--format", "output", type=click.Choice(["table", "json"]), default="table", show_default=True)
def control_accuracy(threshold, output):
    """Each assessor's accuracy on the control items they answered, with a 95% Wilson interval."""
    from sepia.store.controls import accuracy

    try:
        with store_session() as session:
            rows = [r.as_dict() for r in accuracy(session, threshold)]
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--threshold") from None
    if output == "json":
        click.echo(json.dumps({"threshold": threshold, "assessors": rows}, indent=1))
        return
    for r in rows:
        flag = f"  below {threshold:g}" if r["flagged"] else ""
        click.echo(f"{r['assessor']}\t{r['kind']}\t{r['correct']}/{r['answered']}\t{r['accuracy']:.3f}"
                   f"\t[{r['low']:.3f}, {r['high']:.3f}]{flag}")
