"""`sepia evaluate`: F(beta) of CCLQA runs against a gold standard, as the spec's section 3 defines."""
from __future__ import annotations

import click

from sepia.commands.common import (check_store_use, expand_run_paths, f_score_options, load_or_exit, score_or_exit,
                                   store_options, warn)
from sepia.formats.judgments import read_judgments
from sepia.formats.model import CCLQARun, GoldStandard
from sepia.formats.read import expect, read_file
from sepia.scoring.allowance import parse_overrides
from sepia.scoring.evaluate import Evaluator, Settings
from sepia.scoring.matchers import MATCHERS
from sepia.scoring.report import as_json, table, tsv
from sepia.scoring.tokenize import Tokenizer


@click.command()
@click.option("--gold", "gold_path", type=click.Path(exists=True, dir_okay=False), help="Gold standard XML.")
@click.option("--run", "run_paths", multiple=True, type=click.Path(exists=True),
              help="CCLQA run XML, or a folder of them; repeat for several runs.")
@click.argument("more_runs", nargs=-1, type=click.Path(exists=True))
@click.option("--matcher", type=click.Choice(MATCHERS), default="binarized", show_default=True)
@click.option("--judgments", "judgments_path", type=click.Path(exists=True, dir_okay=False),
              help="Human nugget judgments TSV (needed by --matcher human).")
@f_score_options
@click.option("--allowance", multiple=True, metavar="N|TYPE=N",
              help="Character allowance C per match, everywhere (N) or for one answer type (TYPE=N). "
                   "Default: mean gold nugget length per language and type.")
@click.option("--stem", is_flag=True, help="Stem English words (Porter2 / Snowball English) before matching.")
@click.option("--stopwords", is_flag=True, help="Drop English stop words before matching.")
@click.option("--set", "as_set", is_flag=True, help="Count tokens as a set instead of a bag.")
@store_options
@click.option("--format", "output", type=click.Choice(["table", "tsv", "json"]), default="table", show_default=True)
def evaluate(gold_path, run_paths, more_runs, matcher, judgments_path, beta, theta, weights, allowance, stem, stopwords,
             as_set, from_store, run_ids, lang_pairs, save, output):
    """Score CCLQA runs: per topic, macro average over all topics, and by answer type; ranked.

    Runs are given with --run or as further arguments (`--run a.xml b.xml`, `runs/*.xml`); with
    --store, the gold standard, the CCLQA runs and the nugget judgments come from the campaign store."""
    check_store_use(from_store, {"--gold": gold_path, "--run": run_paths + more_runs,
                                 "--judgments": judgments_path}, run_ids, lang_pairs)
    try:
        per_type, everywhere = parse_overrides(allowance)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--allowance") from None
    settings = Settings(matcher, beta, theta, weights, per_type, everywhere, Tokenizer(stem=stem, stopwords=stopwords),
                        as_set)
    if from_store:
        from sepia.scoring.campaign import score_stored_runs
        from sepia.store.db import Store

        results = score_or_exit(score_stored_runs, Store(), settings, run_ids, lang_pairs, save=save)
    else:
        results = _score_files(gold_path, expand_run_paths(run_paths + more_runs), judgments_path, settings)
    for message in dict.fromkeys(w for r in results for w in r.warnings):
        warn(message)
    described = settings.describe()
    if output == "json":
        click.echo(as_json(results, described))
    elif output == "tsv":
        click.echo(tsv(results), nl=False)
    else:
        header = (f"F{beta:g} with the {matcher.upper()} matcher"
                  + (f" (theta {theta:g})" if matcher == "binarized" else "")
                  + f", {weights} weights, {described['allowance']}; tokens: {described['tokens']}")
        click.echo(table(results, header), nl=False)


def _score_files(gold_path, run_paths, judgments_path, settings: Settings):
    if not gold_path:
        raise click.UsageError("give the gold standard: --gold GOLD.xml (or --store to score the campaign store)")
    if not run_paths:
        raise click.UsageError("give at least one run: --run RUN.xml (a file or a folder of run files)")
    if settings.matcher == "human" and not judgments_path:
        raise click.UsageError("--matcher human needs --judgments FILE.tsv")
    gold = expect(load_or_exit(read_file, gold_path, "gold"), GoldStandard, gold_path)
    runs = [expect(load_or_exit(read_file, p, "cclqa"), CCLQARun, p) for p in run_paths]
    duplicates = {r.run_id for r in runs if sum(o.run_id == r.run_id for o in runs) > 1}
    if duplicates:
        raise click.UsageError(f"the same run ID is given more than once: {', '.join(sorted(duplicates))}")
    judgments = load_or_exit(read_judgments, judgments_path) if judgments_path else None
    return Evaluator(gold, settings, judgments).rank(runs)
