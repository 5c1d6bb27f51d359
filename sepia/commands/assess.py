"""`sepia assess`: the LLM assessor's decisions as files, to audit, re-import (`--auto-judgments`) and
set against the humans' (`sepia agreement`); `--dry-run` counts the requests and tokens first."""
from __future__ import annotations

import json
from pathlib import Path

import click

from sepia.commands.common import expand_run_paths, key_values, load_or_exit, made_or_exit
from sepia.formats.model import CCLQARun, GoldStandard, Judgment
from sepia.formats.read import expect, read_file

FILES = ("judgments.tsv", "assignments.jsonl", "undecided.tsv")


@click.command()
@click.option("--gold", "gold_path", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Gold standard XML: the nuggets to decide.")
@click.option("--run", "run_paths", multiple=True, required=True, type=click.Path(exists=True),
              help="CCLQA run XML, or a directory of them; repeat for more.")
@click.option("--matcher-option", "matcher_options", multiple=True, metavar="NAME=VALUE", callback=key_values,
              help="The llm matcher's options: base_url=URL (required), model=, api_key_env=, batch=, ... "
                   "(docs/llm.md); repeat.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), help="Where to write " + ", ".join(FILES) + ".")
@click.option("--assessor", default="llm-assessor", show_default=True,
              help="The assessor column of the judgments (not a built-in matcher's name).")
@click.option("--topics-map", type=click.Path(exists=True, dir_okay=False),
              help="topics.tsv of `sepia convert nuggetizer`: the JSONL names the track's qids (re-importable).")
@click.option("--runs-map", type=click.Path(exists=True, dir_okay=False),
              help="runs.tsv of `sepia convert nuggetizer`: the JSONL names the track's run IDs.")
@click.option("--dry-run", is_flag=True, help="Count the requests and estimate the tokens; ask nothing.")
@click.option("--force", is_flag=True, help="Replace the files in --out.")
def assess(gold_path, run_paths, matcher_options, out_dir, assessor, topics_map, runs_map, dry_run, force):
    """Have an LLM decide every (run, topic, nugget) and write its decisions as a judgments TSV and
    nuggetizer JSONL (undecided pairs apart).

    Example: sepia assess --gold gold.xml --run runs/ --matcher-option base_url=http://127.0.0.1:8080/v1
    --out llm/
    """
    from sepia.llm.assessor import Assessor, Config, estimate
    from sepia.matchers import OptionError, builtin_kinds, check_options
    from sepia.matchers.llm import LLMMatcher, items_of

    config = made_or_exit(Config.parse, matcher_options)
    try:
        check_options("llm", matcher_options)
    except OptionError as exc:
        raise click.BadParameter(str(exc), param_hint="--matcher-option") from None
    if not dry_run and not out_dir:
        raise click.UsageError("give --out DIR for the decisions (or --dry-run to count the requests)")
    if assessor in builtin_kinds():
        raise click.BadParameter(f"{assessor} is a built-in matcher's name", param_hint="--assessor")
    out = Path(out_dir) if out_dir else None
    if out and not force and any((out / name).exists() for name in FILES):
        raise click.UsageError(f"{out} holds earlier decisions; --force replaces them")
    gold = expect(load_or_exit(read_file, gold_path, "gold"), GoldStandard, gold_path)
    runs = [expect(load_or_exit(read_file, p, "cclqa"), CCLQARun, p) for p in expand_run_paths(run_paths)]
    items = [item for item, _ in items_of(gold, runs)]
    if dry_run:
        cost = estimate(Assessor(config), items)
        click.echo(f"{len(runs)} runs, {len(items)} (run, topic) responses, {cost['decisions']:,} nugget decisions: "
                   f"{cost['requests']:,} requests of up to {config.batch} nuggets; about {cost['prompt_tokens']:,} "
                   f"prompt + {cost['completion_tokens']:,} completion tokens (estimated without a tokenizer: "
                   "4 Latin characters or 1 CJK character a token); the cache is not read")
        return
    matcher = made_or_exit(lambda: LLMMatcher(Assessor(config).connect()).learn(gold, runs))
    judgments, undecided = decisions(gold, runs, matcher, assessor)
    from sepia.commands.convert import backwards
    from sepia.convert.nuggetizer_export import assignments, jsonl
    from sepia.formats.judgments import judgments_to_tsv

    assert out is not None
    out.mkdir(parents=True, exist_ok=True)
    written = {"judgments.tsv": judgments_to_tsv(judgments),
               "assignments.jsonl": jsonl(assignments(gold, runs, judgments, backwards(topics_map), backwards(runs_map))),
               "undecided.tsv": "".join(f"{t}\t{r}\t{n}\n" for r, t, n in [("run_id", "topic_id", "nugget_id"),
                                                                         *undecided])}
    for name, text in written.items():
        (out / name).write_text(text, encoding="utf-8")
    for line in matcher.warnings:
        click.echo(f"warning: {line}", err=True)
    click.echo(f"{len(judgments):,} decisions of {matcher.assessor.model} ({len(undecided)} undecided) written to "
               + ", ".join(str(out / name) for name in FILES))
    click.echo(json.dumps({"usage": matcher.assessor.usage.as_dict(), **matcher.assessor.describe()}), err=True)


def decisions(gold: GoldStandard, runs, matcher, assessor: str) -> tuple[list[Judgment], list[tuple[str, str, str]]]:
    """Each decided (run, topic, nugget) as a judgment of the run's first response (the matcher judged
    the responses together); the undecided apart."""
    undecided = set(matcher.undecided)
    judgments = []
    nuggets = {t.topic_id: t.nuggets for t in gold.topics}
    for run in runs:
        for topic in run.topics:
            values = matcher.decided.get((run.run_id, topic.topic_id))
            if values is None:
                continue
            rank = min(a.rank for a in topic.answers)
            judgments += [Judgment(topic.topic_id, run.run_id, rank, n.nugget_id, v, assessor)
                          for n, v in zip(nuggets[topic.topic_id], values)
                          if (run.run_id, topic.topic_id, n.nugget_id) not in undecided]
    return judgments, matcher.undecided
