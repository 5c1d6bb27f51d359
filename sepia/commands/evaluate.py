"""`sepia evaluate`: F(beta) of CCLQA runs against a gold standard, as docs/spec.md (F-score) defines."""
from __future__ import annotations

from dataclasses import replace
from typing import Iterable

import click

from sepia.commands.common import (MatcherName, allowance_option, auto_judgments_option, check_store_use,
                                   exit_if_unscored, expand_run_paths, token_options,
                                   f_score_options, load_auto_matchers, load_or_exit, matcher_help,
                                   made_or_exit, matcher_option_flags, partial_option, score_or_exit, store_options,
                                   warn)
from sepia.formats.judgments import read_judgments
from sepia.formats.model import CCLQARun, GoldStandard
from sepia.formats.read import expect, read_file
from sepia.commands.calibrate import calibrate_options, calibrated, calibration_asked
from sepia.text.plural import counted
from sepia.text.repeated import shape, summarised
from sepia.matchers.decisions import read_decisions
from sepia.scoring.evaluate import Evaluator, Settings
from sepia.scoring.heap import keep_freed_memory
from sepia.scoring.output import FORMATS, RankedOutput
from sepia.text.tokenize import Tokenizer


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
    settings = Settings(matcher, beta=beta, theta=theta, weights=weights, allowance_per_type=per_type,
                        allowance=everywhere, tokenizer=Tokenizer(stem=stem, stopwords=stopwords), as_set=as_set,
                        partial=partial, depth=depth, numbers=numbers, matcher_options=matcher_options)
    _check_matcher_options(settings)
    described = made_or_exit(settings.describe)  # an LLM's server is asked which model it serves
    if calibration_asked():  # --calibrate FILE or --store --plan POOL: PPI++ estimates instead of scores
        click.echo(calibrated(settings, gold_path, expand_run_paths(run_paths + more_runs), judgments_path, measures,
                              from_store, auto_judgment_specs, output), nl=False)
        return
    out = RankedOutput(output, measures, described)
    if from_store:
        from sepia.services.scores import score_stored_runs
        from sepia.store.db import Store

        for result in score_or_exit(score_stored_runs, Store(), settings, run_ids, lang_pairs, save=save):
            out.add(result)
    else:
        _score_files(out, gold_path, expand_run_paths(run_paths + more_runs), judgments_path, settings,
                     auto_judgment_specs)
    shown, more = summarised(out.warnings(), shape)
    for message in shown:
        warn(message)
    for example, left_out in more:
        warn(f"{counted(left_out, 'more warning')} like '{example}' not shown")

    from sepia.api import Evaluation


    title = Evaluation([], settings, judged=bool(auto_judgment_specs)).title
    out.write(lambda text: click.echo(text, nl=False), title)
    exit_if_unscored(out.unscored)


def _check_matcher_options(settings: Settings) -> None:
    """The matcher's options, checked against its descriptor before anything is read."""
    from sepia.api import OptionError, check_matcher_options

    try:
        check_matcher_options(settings)
    except OptionError as exc:
        hint = {"numbers": "--numbers", "matcher_options": "--matcher-option"}[exc.option]
        raise click.BadParameter(str(exc), param_hint=hint) from None


def _score_files(out: RankedOutput, gold_path, run_paths, judgments_path, settings: Settings, auto_specs=()):
    """Read, validate and score one run file at a time (each with every matcher) into `out`."""
    if not gold_path:
        raise click.UsageError("give the gold standard: --gold GOLD.xml (or --store to score the campaign store)")
    if not run_paths:
        raise click.UsageError("give at least one run: --run RUN.xml (a file or a folder of run files)")
    kind = settings.matcher_kind()
    if kind and kind.needs_judgments and not judgments_path:
        raise click.UsageError(f"--matcher {settings.matcher} needs --judgments FILE.tsv")
    keep_freed_memory()
    gold = expect(load_or_exit(read_file, gold_path, "gold"), GoldStandard, gold_path)
    # a matcher that learns reads every judgment; the others only each (run, topic)'s decisions
    reader = read_judgments if kind and kind.learns_from_other_runs else read_decisions
    judgments = load_or_exit(reader, judgments_path) if judgments_path else None
    if auto_specs:  # each automatic assessor's file is scored as a matcher of its own
        evaluators = [Evaluator(gold, replace(settings, matcher=name), None, m)
                      for name, m in load_auto_matchers(auto_specs, gold, settings.partial).items()]
    else:
        evaluators = [made_or_exit(Evaluator, gold, settings, judgments)]
    runs: Iterable[CCLQARun] = (load_or_exit(read_file, path, "cclqa") for path in run_paths)
    if any(e.learns for e in evaluators):  # a matcher that learns from other runs sees them all first
        runs = list(runs)
        for evaluator in evaluators:
            made_or_exit(evaluator.learn, runs)
    seen, duplicates = set(), set()
    for run in runs:
        if run.run_id in seen:
            duplicates.add(run.run_id)
            continue
        seen.add(run.run_id)
        for group, evaluator in enumerate(evaluators):
            out.add(evaluator.evaluate(run), group)
    if duplicates:
        raise click.UsageError(f"the same run ID is given more than once: {', '.join(sorted(duplicates))}")
