"""`sepia evaluate`: F(beta) of CCLQA runs against a gold standard, as docs/spec.md (F-score) defines."""
from __future__ import annotations

import click

from sepia import api
from sepia.commands.common import (MatcherName, allowance_option, api_or_exit, auto_judgments_option,
                                   check_store_use, exit_if_unscored, expand_run_paths, f_score_options, made_or_exit,
                                   matcher_help, matcher_option_flags, partial_option, score_or_exit, store_options,
                                   token_options, warn)
from sepia.commands.calibrate import calibrate_options, calibrated, calibration_asked
from sepia.text.plural import counted
from sepia.text.repeated import shape, summarised
from sepia.scoring.evaluate import Settings
from sepia.scoring.heap import keep_freed_memory
from sepia.scoring.output import FORMATS, RankedOutput


@click.command()
@click.option("--gold", "gold_path", type=click.Path(exists=True, dir_okay=False), help="Gold standard XML.")
@click.option("--run", "run_paths", multiple=True, type=click.Path(exists=True),
              help="CCLQA run XML, or a folder of them; repeat for several runs.")
@click.argument("more_runs", nargs=-1, type=click.Path(exists=True))
@click.option("--matcher", type=MatcherName(), default="binarized", show_default=True, help=matcher_help())
@auto_judgments_option
@click.option("--judgments", "judgments_path", type=click.Path(exists=True, dir_okay=False),
              help="Human nugget judgments TSV (needed by --matcher human).")
@f_score_options
@allowance_option
@partial_option
@matcher_option_flags
@click.option("--measures", "measures", multiple=True, type=click.Choice(["f", "nuggetizer"]),
              help="Add TREC RAG's four nugget scores (strict vital, vital, strict all, all; castorini/"
                   "nuggetizer) beside F, averaged over all topics and over the answered topics.")
@token_options
@click.option("--depth", type=click.IntRange(1), default=None,
              help="Scoring depth: only the first N responses (by rank) of a run per topic count.")
@calibrate_options
@store_options
@click.option("--format", "output", type=click.Choice(FORMATS), default="table", show_default=True)
def evaluate(gold_path, run_paths, more_runs, matcher, auto_judgment_specs, judgments_path, beta, theta, weights, allowance, partial,
             numbers, matcher_options, measures, stem, stopwords, as_set, depth, from_store, run_ids, lang_pairs, save, output):
    """Score CCLQA runs: per topic, macro average over all topics, and by answer type; ranked.

    Runs are given with --run or as further arguments (`--run a.xml b.xml`, `runs/*.xml`); with
    --store, the gold standard, the CCLQA runs and the nugget judgments come from the campaign store."""
    check_store_use(from_store, {"--gold": gold_path, "--run": run_paths + more_runs,
                                 "--judgments": judgments_path, "--auto-judgments": auto_judgment_specs},
                    run_ids, lang_pairs)
    per_type, everywhere = allowance
    with api_or_exit():  # the options checked against the matcher's descriptor before anything is read
        settings = api.settings(matcher=matcher, beta=beta, theta=theta, weights=weights, allowance_per_type=per_type,
                                allowance=everywhere, stem=stem, stopwords=stopwords, as_set=as_set, partial=partial,
                                depth=depth, numbers=numbers, matcher_options=matcher_options)
    described = made_or_exit(settings.describe)  # an LLM's server is asked which model it serves
    if calibration_asked():  # --calibrate FILE or --store --plan POOL: PPI++ estimates instead of scores
        click.echo(calibrated(settings, gold_path, expand_run_paths(run_paths + more_runs), judgments_path, measures,
                              from_store, auto_judgment_specs, output), nl=False)
        return
    out = RankedOutput(output, measures, described)
    if from_store:
        from sepia.services.scores import score_stored_runs
        from sepia.store.db import Store

        with Store() as store:
            for result in score_or_exit(score_stored_runs, store, settings, run_ids, lang_pairs, save=save):
                out.add(result)
    else:
        _score_files(out, gold_path, expand_run_paths(run_paths + more_runs), judgments_path, settings,
                     auto_judgment_specs)
    shown, more = summarised(out.warnings(), shape)
    for message in shown:
        warn(message)
    for example, left_out in more:
        warn(f"{counted(left_out, 'more warning')} like '{example}' not shown")

    title = api.Evaluation([], settings, judged=bool(auto_judgment_specs)).title
    out.write(lambda text: click.echo(text, nl=False), title)
    exit_if_unscored(out.unscored)


def _score_files(out: RankedOutput, gold_path, run_paths, judgments_path, settings: Settings, auto_specs=()):
    """Score the run files (`sepia.api.score_each`) into `out`, one run at a time; the files' problems
    are printed as `sepia validate` prints them (exit 1)."""
    if not gold_path:
        raise click.UsageError("give the gold standard: --gold GOLD.xml (or --store to score the campaign store)")
    if not run_paths:
        raise click.UsageError("give at least one run: --run RUN.xml (a file or a folder of run files)")
    kind = settings.matcher_kind()
    if kind and kind.needs_judgments and not judgments_path:
        raise click.UsageError(f"--matcher {settings.matcher} needs --judgments FILE.tsv")
    keep_freed_memory()
    with api_or_exit():
        for group, result in api.score_each(gold=gold_path, runs=run_paths, config=settings,
                                            judgments=judgments_path, auto_judgments=auto_specs):
            out.add(result, group)
