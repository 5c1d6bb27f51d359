"""`sepia pool`: gather what runs retrieved or answered, by priority and depth, and share it out to
the assessors."""
from __future__ import annotations

import json
import sys
from dataclasses import asdict

import click

from sepia.commands.common import sharing_options, store_session
from sepia.store.db import Store
from sepia.store.errors import ImportRefused
from sepia.store.plans import MAX_SEED
from sepia.text.plural import counted
from sepia.store.pools import DEFAULT_DEPTH, assign_pool, build_pool, pool_document, pool_rows, pool_size
from sepia.vocab import LANGUAGES


@click.group()
def pool():
    """Pools of IR4QA documents or CCLQA responses for the assessors."""


def _refused(exc: ImportRefused) -> None:
    click.echo("; ".join(exc.reasons), err=True)
    sys.exit(1)


@pool.command("build")
@click.argument("name")
@click.option("--kind", type=click.Choice(["ir4qa", "cclqa"]), required=True)
@click.option("--lang", type=click.Choice(LANGUAGES), help="Only runs of this target language.")
@click.option("--depth", type=click.IntRange(1),
              help=f"Documents or responses taken from each run and topic (default: CCLQA {DEFAULT_DEPTH['cclqa']}, "
                   f"IR4QA {DEFAULT_DEPTH['ir4qa']}).")
@click.option("--priority", "priorities", type=click.IntRange(1), multiple=True,
              help="Only runs of this priority (NN); repeat for several.")
@click.option("--max-priority", type=click.IntRange(1), help="Only runs of this priority (NN) or better.")
@click.option("--replace", is_flag=True,
              help="Rebuild a pool of that name (keeping its judging plan, unless --budget or --topics draws a new one).")
@click.option("--suggest", is_flag=True,
              help="CCLQA: pre-mark the BINARIZED decision on the judging screen (agreement with it is reported).")
@click.option("--budget", help="CCLQA: judge only this share of each language's topics (30%), drawn at random; "
                               "the rest is estimated (sepia evaluate --store --plan NAME).")
@click.option("--topics", "topic_count", type=click.IntRange(1), help="CCLQA: judge N random topics per language.")
@click.option("--strata", type=click.Choice(["none", "type"]), default="none", show_default=True,
              help="With --budget or --topics: draw within each answer type.")
@click.option("--seed", type=click.IntRange(0, MAX_SEED), default=0, show_default=True,
              help="Seed of the judging plan's draw.")
@click.option("--unit", type=click.Choice(["topics", "items"]), default="topics", show_default=True,
              help="With --budget: draw whole topics, or (items) the budget's share of every topic's nuggets, "
                   "judged for every response.")
def pool_build(name, kind, lang, depth, priorities, max_priority, replace, suggest, budget, topic_count, strata, seed,
               unit):
    """Build pool NAME from the stored runs; equal CCLQA responses of a topic are one item. With
    --budget or --topics, also its judging plan: the topics humans judge, drawn at random."""
    if budget is not None and topic_count is not None:
        raise click.UsageError("give --budget or --topics, not both")
    if budget is not None and not budget.strip().endswith("%"):
        raise click.BadParameter(f"a share of the topics such as 30%, not {budget!r} (a number of topics is "
                                 "--topics N)", param_hint="--budget")
    planned = budget if budget is not None else topic_count
    if unit == "items" and (budget is None or strata != "none"):
        raise click.UsageError("--unit items takes --budget (a share of every topic's nuggets), without --topics "
                               "or --strata")
    if planned is not None:
        from sepia.store.plans import parse_budget

        if kind != "cclqa":
            raise click.UsageError("judging plans (--budget, --topics) are for CCLQA pools")
        try:
            parse_budget(str(planned))
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--budget") from None
    try:
        with store_session() as session:
            kept = _kept_plan(session, name) if replace and planned is None and kind == "cclqa" else None
            built = build_pool(session, name, kind, depth or DEFAULT_DEPTH[kind], max_priority, replace, lang,
                               priorities)
            built.suggest = suggest and kind == "cclqa"
            size = pool_size(session, built.id)
            merged = f" ({size.responses} responses)" if kind == "cclqa" else ""
            plan = _plan(session, name, str(planned), strata, seed, unit) if planned is not None else ""
            if kept:
                plan = _restored(session, name, kept)
            click.echo(f"pool {name}: {size.items} {kind} items{merged} over {size.topics} topics{plan}")
    except ImportRefused as exc:
        _refused(exc)


def _kept_plan(session, name: str) -> dict | None:
    """The judging plan of the pool NAME that --replace rebuilds (`sepia.store.plans.kept_plan`)."""
    from sqlalchemy import select

    from sepia.store.models import Pool
    from sepia.store.plans import kept_plan

    pool_id = session.scalar(select(Pool.id).where(Pool.name == name))
    return None if pool_id is None else kept_plan(session, pool_id)


def _restored(session, name: str, kept: dict) -> str:
    from sepia.commands.common import warn
    from sepia.store.plans import restore_plan

    for change in restore_plan(session, name, kept):
        warn(f"pool {name}'s judging plan: {change}; its estimates are refused until a new plan is drawn "
             "(--replace with --budget or --topics)")
    return f"; judging plan kept: {len(kept['topics'])} topics ({kept['budget']}, seed {kept['seed']})"


def _plan(session, name: str, budget: str, strata: str, seed: int, unit: str) -> str:
    from sepia.store.plans import make_plan

    plan = make_plan(session, name, budget, strata, seed, unit)
    if unit == "items":
        responses = len({(n.topic_id, n.run_id) for n in plan.nuggets})
        return (f"; item-level judging plan: {len(plan.nuggets)} (response, nugget) pairs, each of {responses} responses "
                f"its own sample of its topic's nuggets, over {len(plan.topics)} topics ({budget}, seed {seed})")
    return f"; judging plan: {len(plan.topics)} topics ({budget}, strata {strata}, seed {seed})"


@pool.command("plan")
@click.argument("name")
@click.option("--add", "add", type=click.IntRange(1),
              help="Draw N more topics per language from those not planned; for an item-level plan, once every "
                   "planned pair is judged, its next wave: N (response, nugget) pairs expected, drawn more often where "
                   "the learned model, trained on the plan's judgments, is unsure.")
@click.option("--seed", type=click.IntRange(0, MAX_SEED), default=0, show_default=True, help="Seed of the added draw.")
@click.option("--format", "output", type=click.Choice(["table", "json"]), default="table", show_default=True)
def pool_plan(name, add, seed, output):
    """Show pool NAME's judging plan: per stratum the topics planned and judged; --add N draws more."""
    from sepia.store.plans import add_topics, get_plan, plan_status

    wave = None
    try:
        with Store() as store:
            with store.transaction() as session:
                items = get_plan(session, name).unit == "items"
            if add and items:
                from sepia.services.plan_waves import draw_wave

                wave = draw_wave(store, name, add, seed)
            with store.transaction() as session:
                added = add_topics(session, name, add, seed) if add and not items else []
                status = plan_status(session, name)
    except ImportRefused as exc:
        _refused(exc)
    if output == "json":
        click.echo(json.dumps({**status, "added": added, "wave": wave and asdict(wave)}, ensure_ascii=False, indent=1))
        return
    if added:
        click.echo(f"added {len(added)} topics (seed {seed}): {', '.join(added)}")
    if wave:
        click.echo(f"wave {wave.wave}: {wave.drawn} (response, nugget) pairs drawn for {wave.responses} responses "
                   f"({wave.expected} expected among the {wave.candidates} not yet planned, each with probability at "
                   f"least {wave.floor:.4f}, seed {seed}); {counted(wave.reopened, 'judged item')} "
                   f"{'is' if wave.reopened == 1 else 'are'} back in the assessors' queues")
    unit = "item-level judging plan" if status["unit"] == "items" else "judging plan"
    waves = f", {status['waves']} waves" if status["waves"] > 1 else ""
    if status["wave_seed"] is not None:
        waves += f" (wave 1: seed {status['wave_seed']}, {status['wave_expected']} pairs expected)"
    click.echo(f"pool {name}: {unit} {status['budget']}, strata {status['strata']}, seed {status['seed']}{waves}")
    for s in status["by_stratum"]:
        complete = sum(t["complete"] for t in s["topics"])
        click.echo(f"  {s['stratum']}: {s['planned']} of {s['population']} topics planned, {complete} fully judged")
        for t in s["topics"]:
            nuggets = _planned_pairs(t["samples"])
            click.echo(f"    {t['topic_id']}  draw {t['draw']} (seed {t['seed']})  p = {t['probability']:.3f}  "
                       f"{t['judged_items']}/{t['items']} items judged{nuggets}")


def _planned_pairs(samples: dict[str, dict]) -> str:
    """A topic's planned nuggets in a line: those of every response ("*"), or how many pairs of how
    many responses when each response has its own."""
    if not samples:
        return ""
    if "*" in samples:
        return f"  nuggets {' '.join(samples['*'])}"
    pairs = sum(len(drawn) for drawn in samples.values())
    return f"  {pairs} (response, nugget) pairs of {len(samples)} responses"


@pool.command("export")
@click.argument("name")
@click.option("--format", "output", type=click.Choice(["tsv", "json"]), default="tsv", show_default=True)
def pool_export(name, output):
    """Print pool NAME: a TSV with a header line (one line per pooled response or document), or JSON
    with each topic's nuggets and items."""
    try:
        with store_session() as session:
            if output == "json":
                click.echo(json.dumps(pool_document(session, name), ensure_ascii=False, indent=1))
                return
            header, rows = pool_rows(session, name)
    except ImportRefused as exc:
        _refused(exc)
    click.echo("\t".join(header))
    for row in rows:
        click.echo("\t".join(" ".join(str(v).split()) for v in row))


@pool.command("assign")
@click.argument("name")
@sharing_options("items")
def pool_assign(name, assessors, overlap, seed):
    """Share pool NAME's items out to the assessors (topics in turn, OVERLAP doubled)."""
    try:
        with store_session() as session:
            added = assign_pool(session, name, list(assessors), overlap, seed)
    except ImportRefused as exc:
        _refused(exc)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    click.echo(f"pool {name}: {added} assignments to {len(assessors)} assessors")
