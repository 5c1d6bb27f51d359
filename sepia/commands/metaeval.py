"""`sepia metaeval`: how far automatic scores agree with human ones (and `sepia metaeval aeollm`)."""
from __future__ import annotations

import json
from pathlib import Path

import click

from sepia.commands.common import (MatcherName, allowance_option, api_or_exit, auto_judgments_option, f_score_options,
                                   key_values, load_auto_matchers, load_or_exit, made_or_exit, matcher_option_flags,
                                   output_folder, partial_option, token_options, warn)
from sepia.formats.judgments import read_judgments
from sepia.formats.model import CCLQARun, GoldStandard
from sepia.formats.read import expect, read_file
from sepia.matchers import versions_of as matcher_versions
from sepia.matchers.base import NUMBER_RULES
from sepia.metaeval.probes import PROBES
from sepia.versions import stamped


def _needs_judgments(matcher: str, judgment_paths) -> None:
    from sepia import matchers

    if matchers.kind(matcher).needs_judgments and not judgment_paths:
        raise click.UsageError(f"--matcher {matcher} needs --judgments FILE.tsv")


def expand(paths, pattern: str) -> list[Path]:
    """Files as given, directories as the files in them that match the pattern."""
    found = []
    for p in map(Path, paths):
        found += sorted(p.glob(pattern)) if p.is_dir() else [p]
    return found


@click.group(invoke_without_command=True)
@click.option("--gold", "gold_path", type=click.Path(exists=True, dir_okay=False), help="Gold standard XML.")
@click.option("--run", "run_paths", multiple=True, type=click.Path(exists=True),
              help="CCLQA run XML, or a directory of them; repeat for more.")
@click.option("--judgments", "judgment_paths", multiple=True, type=click.Path(exists=True),
              help="Human nugget judgments TSV, or a directory of *.tsv; repeat for more.")
@click.option("--matcher", "matchers", multiple=True, type=MatcherName(automatic_only=True),
              help="Automatic matchers to compare (default: binarized, softmatch and exact); a plug-in's name too.")
@auto_judgments_option
@f_score_options
@click.option("--numbers", type=click.Choice(NUMBER_RULES), default="lenient", show_default=True,
              help="binarized and softmatch: strict = a nugget's numbers and dates must be in the response.")
@click.option("--matcher-option", "matcher_options", multiple=True, metavar="NAME=VALUE", callback=key_values,
              help="An option of a matcher's own, for the matchers that take it (the learned matcher: holdout=team, "
                   "threshold=T); repeat.")
@click.option("--permutations", type=click.IntRange(1), default=1000, show_default=True,
              help="Permutations per test and bootstrap resamples.")
@click.option("--repetitions", type=click.IntRange(1), default=100, show_default=True,
              help="Random half splits for ranking consistency.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--limit", type=click.IntRange(0), default=20, show_default=True,
              help="Disagreements listed in the table (0 = all; JSON always has all).")
@click.option("--plots", "plot_dir", type=click.Path(file_okay=False), help="Write PNG and SVG figures here.")
@click.option("--format", "output", type=click.Choice(["table", "json"]), default="table", show_default=True)
@click.pass_context
def metaeval(ctx, gold_path, run_paths, judgment_paths, matchers, auto_judgment_specs, theta, beta, weights, numbers,
             matcher_options, permutations, repetitions,
             seed, limit, plot_dir, output):
    """Automatic versus human scores for every matcher: correlations at four levels, confidence
    intervals, discriminative power, ranking consistency, run-ranking agreement, disagreements.

    Example: sepia metaeval --gold gold.xml --run runs/ --judgments judgments.tsv --plots figures/
    """
    if ctx.invoked_subcommand:
        return
    if not gold_path or not run_paths or not judgment_paths:
        raise click.UsageError("metaeval needs --gold, at least one --run and --judgments "
                               "(or the sub-command: sepia metaeval aeollm --pred P --human H)")
    from sepia.metaeval.report import AUTOMATIC, metaeval_report, score_matrices
    from sepia.metaeval.disagreement import disagreements
    from sepia.metaeval.render import json_ready, metaeval_text

    gold = expect(load_or_exit(read_file, gold_path, "gold"), GoldStandard, gold_path)
    run_files = expand(run_paths, "*.xml")
    if not run_files:
        raise click.UsageError("no run files found (directories are searched for *.xml)")
    runs = [expect(load_or_exit(read_file, p, "cclqa"), CCLQARun, p) for p in run_files]
    duplicates = sorted({r.run_id for r in runs if sum(o.run_id == r.run_id for o in runs) > 1})
    if duplicates:
        raise click.UsageError(f"the same run ID is given more than once: {', '.join(duplicates)}")
    judgment_files = expand(judgment_paths, "*.tsv")
    if not judgment_files:
        raise click.UsageError("no judgments files found (directories are searched for *.tsv)")
    judgments = [j for p in judgment_files for j in load_or_exit(read_judgments, p)]
    if len(runs) < 3:
        warn("with fewer than three runs, most system-level correlations are undefined or trivial")
    auto = list(load_auto_matchers(auto_judgment_specs, gold).values()) if auto_judgment_specs else []
    data = made_or_exit(score_matrices, gold, runs, judgments, matchers=list(matchers or AUTOMATIC) + auto, beta=beta,
                        theta=theta, weights=weights, numbers=numbers, matcher_options=matcher_options)
    for message in data.warnings:
        warn(message)
    report = metaeval_report(data, n_resamples=permutations, repetitions=repetitions, seed=seed)
    listing = disagreements(gold, runs, judgments, theta=theta).as_dict()
    written = []
    if plot_dir:
        from sepia.metaeval.plots import pvalue_curves, scatter_runs

        written = [str(p) for p in scatter_runs(report, Path(plot_dir)) + pvalue_curves(report, Path(plot_dir))]
    if output == "json":
        click.echo(json.dumps(stamped(json_ready({**report, "disagreements": listing, "plots": written,
                                                  "warnings": data.warnings}),
                                      matcher_versions(report["matchers"], matcher_options)),
                              ensure_ascii=False, indent=1))
    else:
        click.echo(metaeval_text(report, listing, limit or None), nl=False)
        for path in written:
            click.echo(f"wrote {path}")


@metaeval.command()
@click.option("--pred", "pred_paths", required=True, multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Evaluator scores: taskId questionId answerId score rank; repeat for a leaderboard.")
@click.option("--human", "human_paths", required=True, multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Human scores in the same layout (rank optional); an answer on several lines or in several "
                   "files has several annotators, whose median counts.")
@click.option("--format", "output", type=click.Choice(["table", "json"]), default="table", show_default=True)
def aeollm(pred_paths, human_paths, output):
    """Agreement of AEOLLM-style evaluators with human scores: acc, Kendall's tau and Spearman's
    rho per task (over the answers of each question, averaged) and overall (mean of tasks); with
    several --pred files, a leaderboard ranked by overall acc, then tau, then rho.

    Example: sepia metaeval aeollm --pred run1.txt --pred run2.txt --human human.txt
    """
    from sepia.metaeval.aeollm import leaderboard, read_human_scores, read_scores
    from sepia.metaeval.render import aeollm_leaderboard_text, aeollm_text, json_ready

    human, annotated = load_or_exit(read_human_scores, human_paths)
    names = [Path(p).stem for p in pred_paths]
    if len(set(names)) < len(names):
        names = list(pred_paths)
    if len(set(names)) < len(names):
        raise click.UsageError("the same --pred file is given more than once")
    entries, warnings = leaderboard({n: load_or_exit(read_scores, p) for n, p in zip(names, pred_paths)}, human)
    for run, messages in warnings.items():
        for message in messages:
            warn(f"{run}: {message}" if len(entries) > 1 else message)
    empty = [e.run for e in entries if not e.tasks]
    if empty:
        raise click.ClickException(f"no answer is scored in both files: {', '.join(empty)} and the human scores"
                                   if len(entries) > 1 else "no answer is scored in both files")
    if len(entries) == 1:
        report = {"tasks": [t.as_dict() for t in entries[0].tasks], "overall": entries[0].overall.as_dict()}
    else:
        report = {"leaderboard": [e.as_dict() for e in entries]}
    report = json_ready({**report, "annotated_answers": len(human), "several_annotators": annotated})
    if output == "json":
        click.echo(json.dumps(stamped(report), indent=1))
    elif len(entries) == 1:
        click.echo(aeollm_text(report["tasks"], report["overall"]), nl=False)
    else:
        click.echo(aeollm_leaderboard_text(report["leaderboard"]), nl=False)
    if output != "json" and annotated:
        click.echo(f"human score = median of the annotators for {annotated} of {len(human)} answers")


def parse_budgets(ctx, param, value: str) -> list[float]:
    """"10,20,30,50" (per cent of the topics, a trailing % allowed) -> [10.0, 20.0, 30.0, 50.0]."""
    try:
        budgets = [float(part.strip().rstrip("%")) for part in value.split(",")]
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a comma-separated list of percentages") from None
    from sepia.api import check_budgets

    try:
        check_budgets(budgets)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    return budgets


@metaeval.command()
@click.option("--gold", "gold_path", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Gold standard XML.")
@click.option("--run", "--runs", "run_paths", multiple=True, required=True, type=click.Path(exists=True),
              help="CCLQA run XML, or a folder of them; repeat.")
@click.option("--judgments", "judgment_paths", multiple=True, required=True, type=click.Path(exists=True),
              help="Human nugget judgments of every run and topic: TSV, or a directory of *.tsv.")
@click.option("--matcher", type=MatcherName(automatic_only=True), default="binarized", show_default=True)
@auto_judgments_option
@f_score_options
@allowance_option
@partial_option
@matcher_option_flags
@token_options
@click.option("--budgets", default="10,20,30,50", show_default=True, callback=parse_budgets,
              help="Shares of each language pair's topics judged, in per cent, comma-separated.")
@click.option("--trials", type=click.IntRange(1), default=1000, show_default=True,
              help="Random topic samples per budget.")
@click.option("--level", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.95, show_default=True,
              help="Confidence level of the intervals.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--feature", type=MatcherName(automatic_only=True), default=None,
              help="With --matcher learned: this automatic matcher's values are one of the model's features "
                   "(e.g. embedding; docs/metaeval.md).")
@click.option("--waves", type=click.IntRange(2), default=2, show_default=True,
              help="With --matcher learned: the active plans' waves (the first uniform, each later one drawn "
                   "where the model refitted on every judgment so far is unsure).")
@click.option("--format", "output", type=click.Choice(["table", "json"]), default="table", show_default=True)
def budget(gold_path, run_paths, judgment_paths, matcher, auto_judgment_specs, theta, beta, weights, allowance,
           partial, numbers, matcher_options, stem, stopwords, as_set, budgets, trials, level, seed, feature, waves, output):
    """Judging part of the topics: from fully judged runs, re-sample topic-level judging plans and
    report per budget the coverage and width of the PPI++ intervals (against human-only intervals
    from the same topics) for run means and run differences, and Kendall's tau of the estimated ranking.

    Example: sepia metaeval budget --gold gold.xml --runs runs/ --judgments j.tsv --budgets 10,20,30,50
    """
    from sepia import api

    options = {"beta": beta, "theta": theta, "weights": weights, "allowance_per_type": allowance[0],
               "allowance": allowance[1], "partial": partial, "numbers": numbers, "matcher_options": matcher_options,
               "stem": stem, "stopwords": stopwords, "as_set": as_set}
    with api_or_exit():
        simulated = api.budget(gold=gold_path, runs=list(run_paths), judgments=list(judgment_paths), matcher=matcher,
                               auto_judgments=auto_judgment_specs, budgets=budgets, trials=trials, level=level,
                               seed=seed, progress=True, feature=feature, waves=waves, **options)
    for message in simulated.warnings:
        warn(message)
    if not simulated.report["language_pairs"]:
        raise click.ClickException("no run is scored on any topic of the gold standard")
    click.echo(simulated.render(output), nl=False)


@metaeval.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--human", required=True, help="The metric that holds the human scores.")
@click.option("--metric", "metrics", multiple=True, help="Compare only these metrics (repeat; default: all).")
@click.option("--by", help="Also report per value of this column of the long TSV (answer_type, subset, aspect).")
@click.option("--permutations", type=click.IntRange(1), default=1000, show_default=True,
              help="Permutations per test of discriminative power.")
@click.option("--repetitions", type=click.IntRange(1), default=100, show_default=True,
              help="Random half splits for ranking consistency.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--format", "output", type=click.Choice(["table", "tsv", "json"]), default="table", show_default=True)
def scores(paths, human, metrics, by, permutations, repetitions, seed, output):
    """Any metric against human scores: a long TSV (system, input, metric, value and any grouping
    columns) or trec_eval -q files (one per system). Correlations at four levels, pairwise accuracy
    with tie calibration, Williams' test, ties diagnostics, discriminative power, ranking consistency.

    Example: sepia metaeval scores scores.tsv --human human --by answer_type
    """
    from sepia.metaeval.render import json_ready
    from sepia.metaeval.score_files import read_score_files
    from sepia.metaeval.scores import score_grids, scores_report
    from sepia.metaeval.scores_render import scores_text, scores_tsv

    table = load_or_exit(read_score_files, paths)
    if by is not None and not table.columns:
        raise click.UsageError("--by needs a long TSV with grouping columns; trec_eval files have none")
    try:
        grids = score_grids(table, human, metrics, by)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    for grid in grids:
        for message in grid.warnings:
            warn(message)
    reports = [json_ready(scores_report(g, n_resamples=permutations, repetitions=repetitions, seed=seed))
               for g in grids]
    settings = {"permutations": permutations, "repetitions": repetitions, "seed": seed}
    if output == "json":
        click.echo(json.dumps(stamped({"human": human, "by": by, "settings": settings, "groups": reports}),
                              ensure_ascii=False, indent=1))
    elif output == "tsv":
        click.echo(scores_tsv(reports), nl=False)
    else:
        click.echo(scores_text(reports, settings), nl=False)


@metaeval.command()
@click.option("--gold", "gold_path", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Gold standard XML.")
@click.option("--run", "run_paths", multiple=True, required=True, type=click.Path(exists=True, dir_okay=False),
              help="CCLQA run XML; give exactly two (A, then B).")
@click.option("--matcher", type=MatcherName(), default="binarized", show_default=True)
@click.option("--judgments", "judgment_paths", multiple=True, type=click.Path(exists=True),
              help="Human nugget judgments TSV, or a directory of *.tsv (needed by --matcher human).")
@f_score_options
@click.option("--samples", type=click.IntRange(1), default=10000, show_default=True,
              help="Sign flips of the randomization test and bootstrap resamples.")
@click.option("--confidence", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.95,
              show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--format", "output", type=click.Choice(["table", "json"]), default="table", show_default=True)
def compare(gold_path, run_paths, matcher, judgment_paths, theta, beta, weights, samples, confidence, seed, output):
    """Is run A better than run B? Per-topic F-scores, their mean difference, the paired
    randomization test and the paired bootstrap interval over the topics both runs are scored on.

    Example: sepia metaeval compare --gold gold.xml --run A.xml --run B.xml --seed 1
    """
    if len(run_paths) != 2:
        raise click.UsageError("compare needs exactly two runs: --run A.xml --run B.xml")
    _needs_judgments(matcher, judgment_paths)
    from sepia.metaeval.render import json_ready, runpair_text
    from sepia.metaeval.runpair import compare_runs
    from sepia.scoring.evaluate import evaluate_runs

    gold = expect(load_or_exit(read_file, gold_path, "gold"), GoldStandard, gold_path)
    runs = [expect(load_or_exit(read_file, p, "cclqa"), CCLQARun, p) for p in run_paths]
    if runs[0].run_id == runs[1].run_id:
        raise click.UsageError(f"both files hold run {runs[0].run_id}")
    judgments = [j for p in expand(judgment_paths, "*.tsv") for j in load_or_exit(read_judgments, p)] or None
    scores = {s.run_id: s for s in evaluate_runs(gold, runs, matcher=matcher, judgments=judgments, beta=beta,
                                                 theta=theta, weights=weights)}
    for message in dict.fromkeys(w for s in scores.values() for w in s.warnings):
        warn(message)
    a, b = (scores[r.run_id] for r in runs)
    try:
        result = compare_runs(a.run_id, {t.topic_id: t.f for t in a.topics}, b.run_id,
                              {t.topic_id: t.f for t in b.topics}, n_resamples=samples, confidence=confidence,
                              seed=seed)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    report = json_ready(result.as_dict())
    if output == "json":
        click.echo(json.dumps(stamped({"matcher": matcher, "beta": beta, **report}), indent=1))
    else:
        click.echo(runpair_text(report, f"F{beta:g} ({matcher})"), nl=False)


@metaeval.command()
@click.option("--gold", "gold_path", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Gold standard XML.")
@click.option("--run", "run_paths", multiple=True, required=True, type=click.Path(exists=True),
              help="CCLQA run XML, or a folder of them; repeat.")
@click.option("--matcher", type=MatcherName(), default="binarized", show_default=True)
@click.option("--judgments", "judgment_paths", multiple=True, type=click.Path(exists=True),
              help="Human nugget judgments TSV, or a directory of *.tsv (needed by --matcher human).")
@f_score_options
@click.option("--trials", type=click.IntRange(1), default=10000, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), help="Write the p-values as a chart (.png, .svg).")
@click.option("--format", "output", type=click.Choice(["table", "json"]), default="table", show_default=True)
def tukey(gold_path, run_paths, matcher, judgment_paths, theta, beta, weights, trials, seed, plot_path, output):
    """All pairs of runs of each language pair: randomised Tukey HSD on the per-topic F-scores."""
    _needs_judgments(matcher, judgment_paths)
    from sepia.commands.common import expand_run_paths
    from sepia.metaeval.tukey_command import plot_tukey, tukey_by_language_pair, tukey_text
    from sepia.scoring.evaluate import evaluate_runs

    gold = expect(load_or_exit(read_file, gold_path, "gold"), GoldStandard, gold_path)
    runs = [expect(load_or_exit(read_file, p, "cclqa"), CCLQARun, p) for p in expand_run_paths(run_paths)]
    judgments = [j for p in expand(judgment_paths, "*.tsv") for j in load_or_exit(read_judgments, p)] or None
    scores = evaluate_runs(gold, runs, matcher=matcher, judgments=judgments, beta=beta, theta=theta, weights=weights)
    results = tukey_by_language_pair(scores, trials, seed)
    if not results:
        raise click.ClickException("no language pair has two runs or more")
    if plot_path:
        output_folder(plot_path)
        plot_tukey(results, plot_path)
        click.echo(f"wrote {plot_path}", err=True)  # standard error: the JSON on standard output stays whole
    if output == "json":
        click.echo(json.dumps(stamped({"language_pairs": {pair: r.as_dict() for pair, r in results.items()}}),
                              indent=1))
    else:
        click.echo(tukey_text(results), nl=False)


@metaeval.command()
@click.option("--gold", "gold_path", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Gold standard XML.")
@click.option("--matcher", "matchers", multiple=True, type=MatcherName(automatic_only=True),
              help="A matcher to probe; repeat (default: every automatic matcher, plug-ins included).")
@click.option("--numbers", "number_rules", multiple=True, type=click.Choice(NUMBER_RULES),
              help="Number rules to probe the matchers that take one with; repeat (default: lenient and strict).")
@auto_judgments_option
@click.option("--probe", "probes", multiple=True, type=click.Choice(list(PROBES)),
              help="Only this perturbation; repeat (default: all).")
@click.option("--matcher-option", "matcher_options", multiple=True, metavar="NAME=VALUE", callback=key_values,
              help="An option of a matcher's own, for the matchers that take it (the learned matcher: model=MODEL); "
                   "repeat.")
@f_score_options
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the shuffles.")
@click.option("--write-runs", "runs_dir", type=click.Path(file_okay=False),
              help="Also write the faithful and perturbed responses here as CCLQA runs, for an automatic "
                   "assessor to judge (its judgments then come back with --auto-judgments).")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False),
              help="Write the fooled rates as a chart (PATH.png and PATH.svg).")
@click.option("--format", "output", type=click.Choice(["table", "tsv", "json"]), default="table", show_default=True)
def adversarial(gold_path, matchers, number_rules, auto_judgment_specs, probes, matcher_options, theta, beta, weights,
                seed, runs_dir, plot_path, output):
    """Can a matcher be fooled? For every topic a faithful response (its nuggets' text) and perturbed
    ones (numbers and dates changed, named entities swapped, a negation, characters shuffled, word
    salad, padding), scored by every matcher: the fooled rate is the share of topics where the
    perturbed response scores at least as high as the faithful one.

    Example: sepia metaeval adversarial --gold gold.xml --plot figures/adversarial
    """
    from sepia.metaeval.adversarial import probe_runs, run_probes
    from sepia.metaeval.adversarial_report import fooled_chart, fooled_table, fooled_tsv
    from sepia.scoring.evaluate import Settings

    gold = expect(load_or_exit(read_file, gold_path, "gold"), GoldStandard, gold_path)
    probes = list(probes or PROBES)
    auto = load_auto_matchers(auto_judgment_specs, gold) if auto_judgment_specs else {}
    try:
        report = run_probes(gold, matchers, number_rules or NUMBER_RULES, auto,
                            Settings(beta=beta, theta=theta, weights=weights, matcher_options=matcher_options), probes,
                            seed)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    if runs_dir:
        from sepia.formats.write import to_xml

        Path(runs_dir).mkdir(parents=True, exist_ok=True)
        for run in probe_runs(report.context, probes)[0]:
            (Path(runs_dir) / f"{run.run_id}.xml").write_bytes(to_xml(run))
    for message in report.warnings:
        warn(message)
    rows = report.rows
    written = fooled_chart(rows, Path(plot_path)) if plot_path else []
    if output == "json":
        click.echo(json.dumps(stamped({**report.as_dict(), "plots": [str(p) for p in written]},
                                      matcher_versions(report.matchers, matcher_options)), ensure_ascii=False,
                              indent=1))
        return
    click.echo(fooled_tsv(rows) if output == "tsv" else fooled_table(rows), nl=False)
    if output == "table":
        if runs_dir:
            click.echo(f"wrote the probe runs to {runs_dir}")
        for path in written:
            click.echo(f"wrote {path}")


def _level_counts(ctx, param, value: str) -> tuple[int, ...]:
    try:
        counts = tuple(sorted({int(part) for part in value.split(",") if part.strip()}))
    except ValueError:
        raise click.BadParameter(f"expected level counts separated by commas, e.g. 2,3,5,10; got {value!r}") from None
    if not counts or counts[0] < 2:
        raise click.BadParameter("every level count must be at least 2")
    return counts


@metaeval.command()
@click.option("--rho", type=click.FloatRange(-1, 1), default=0.5, show_default=True,
              help="The true correlation of the latent human and metric scores.")
@click.option("--systems", type=click.IntRange(2), default=10, show_default=True)
@click.option("--inputs", type=click.IntRange(2), default=50, show_default=True)
@click.option("--levels", default="2,3,5,10", show_default=True, callback=_level_counts,
              help="Numbers of distinct values the discretised scores take (the continuous scores are always shown).")
@click.option("--side", type=click.Choice(["both", "human", "metric"]), default="both", show_default=True,
              help="Which scores are discretised.")
@click.option("--replicates", type=click.IntRange(1), default=200, show_default=True)
@click.option("--system-share", type=click.FloatRange(0, 1), default=0.3, show_default=True,
              help="Share of a score's variance that is the system's (the same on every input).")
@click.option("--input-share", type=click.FloatRange(0, 1), default=0.2, show_default=True,
              help="Share of a score's variance that is the input's (the same for every system).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False),
              help="Write the chart as PATH.png and PATH.svg.")
@click.option("--format", "output", type=click.Choice(["table", "tsv", "json"]), default="table", show_default=True)
def simulate(rho, systems, inputs, levels, side, replicates, system_share, input_share, seed, plot_path, output):
    """How the number of values a scale can take changes each of the sixteen correlation measures:
    latent human and metric scores with a true correlation RHO, discretised into k equally likely
    levels, every measure averaged over the replicates (Gao et al., NAACL 2025).

    Example: sepia metaeval simulate --levels 2,3,5,10 --side human --plot figures/simulate
    """
    from sepia.metaeval.simulate import CONTINUOUS, Simulation
    from sepia.metaeval.simulate import simulate as run_simulation
    from sepia.metaeval.simulate_render import simulation_chart, simulation_table, simulation_tsv

    settings = Simulation(rho=rho, systems=systems, inputs=inputs, levels=levels, side=side, replicates=replicates,
                          seed=seed, system_share=system_share, input_share=input_share)
    try:
        settings.check()
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    steps = len(levels) + 1
    done: list[int] = []

    def progress(k: int) -> None:
        done.append(k)
        click.echo(f"simulated {'continuous scores' if k == CONTINUOUS else f'k={k}'} ({len(done)}/{steps})", err=True)

    result = run_simulation(settings, progress)
    written = simulation_chart(result, Path(plot_path)) if plot_path else []
    if output == "json":
        click.echo(json.dumps(stamped({**result.as_dict(), "plots": [str(p) for p in written]}), indent=1))
        return
    click.echo(simulation_tsv(result) if output == "tsv" else simulation_table(result), nl=False)
    for path in written:
        click.echo(f"wrote {path}", err=output == "tsv")
