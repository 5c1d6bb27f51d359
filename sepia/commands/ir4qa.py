"""`sepia evaluate-ir4qa`: AP, NTCIREVAL's Q-measure and nDCG, and the other measures of `sepia.ir4qa.registry`
(ir_measures' names, NTCIREVAL's under `ntcir:`), of
IR4QA runs (SEPIA XML or TREC runs) against graded qrels (SEPIA TSV or TREC qrels)."""
from __future__ import annotations

from typing import Iterable, Iterator

import click

from sepia.commands.common import (check_store_use, exit_if_unscored, expand_run_paths, load_or_exit, score_or_exit,
                                   store_options, warn)
from sepia.ir4qa import trec
from sepia.ir4qa.evaluate import (MEASURES, IR4QAEvaluator, IR4QAResults, IRRunScore, ranked_ir4qa,
                                  read_xml_rankings, stored_measures)
from sepia.ir4qa.measures import default_gains, parse_gains
from sepia.ir4qa.registry import ndcg_note, parse_measures
from sepia.scoring.report import grouped_table


@click.command("evaluate-ir4qa")
@click.option("--qrels", "qrels_path", type=click.Path(exists=True, dir_okay=False),
              help="Graded relevance: SEPIA's TSV (topic_id docid level [assessor]) or TREC qrels (qid 0 docid rel).")
@click.option("--run", "run_paths", multiple=True, type=click.Path(exists=True),
              help="IR4QA run XML or TREC run (qid Q0 docid rank score tag), or a folder of XML runs; repeat.")
@click.argument("more_runs", nargs=-1, type=click.Path(exists=True))
@click.option("--gains", default=None, metavar="G1:G2:...",
              help="Gain of L1, L2, ... (default 1:2:...:k, the level itself).")
@click.option("--cutoff", type=click.IntRange(1), default=1000, show_default=True)
@click.option("--measures", "measure_names", multiple=True, metavar="M[,M...]",
              help="Measures to report: ir_measures' names mean ir_measures' measures (AP, P@10, R@100, nDCG@10, RR, "
                   "Bpref, Judged@10, ERR@20, P(rel=2)@10, ...), NTCIREVAL's are ntcir:Q, ntcir:nDCG@10, "
                   "ntcir:nERR@10, ... (default AP,ntcir:Q,ntcir:nDCG; see docs/ir4qa-measures.md).")
@click.option("--condensed", is_flag=True, help="Condensed lists: drop unjudged documents before scoring "
                                                "(trec_eval -J).")
@click.option("--ntcireval-cutoff", is_flag=True, hidden=True, expose_value=False,
              callback=lambda ctx, param, given: _gone(given))
@click.option("--average", type=click.Choice(["sepia", "trec_eval", "ir_measures"]), default="sepia",
              show_default=True,
              help="The topics a run's means are over: sepia, those of the run's language with a relevant "
                   "document (a topic not answered scores 0); trec_eval, the run's topics found in the qrels; "
                   "ir_measures, every topic of the qrels (a topic not answered scores 0).")
@store_options
@click.option("--format", "output", type=click.Choice(["table", "tsv", "json", "trec"]), default="table",
              show_default=True, help="trec: trec_eval -q's layout (measure, topic, value; 'all' for the mean, "
                                      "num_q for how many topics it is over).")
def evaluate_ir4qa_command(qrels_path, run_paths, more_runs, gains, cutoff, measure_names, condensed,
                           average, from_store, run_ids, lang_pairs, save, output):
    """Score IR4QA runs with AP, Q-measure (beta 1) and nDCG as NTCIREVAL defines them, or the other
    measures of --measures (ir_measures' names with ir_measures' meaning, NTCIREVAL's under ntcir:).

    With --store, the IR4QA runs and the relevance judgments come from the campaign store."""
    check_store_use(from_store, {"--qrels": qrels_path, "--run": run_paths + more_runs}, run_ids, lang_pairs)
    try:
        shown = parse_measures(measure_names)
        # the store keeps AP, Q and nDCG of every scoring, so those are computed there whatever is shown
        computed = stored_measures(shown) if from_store else shown
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--measures") from None
    note = ndcg_note(shown)  # nDCG meant NTCIREVAL's until 2026-11-28
    if note:
        click.echo(note, err=True)
    options = {"measures": computed, "condensed": condensed}
    if average != "sepia":  # SEPIA's averaging stays out of the settings the store keys scores by
        options["average"] = average
    from sepia.ir4qa.evaluate import AVERAGES

    over = AVERAGES[options.get("average")]
    try:
        if from_store:
            from sepia.services.scores import score_stored_ir4qa
            from sepia.store.db import Store

            with Store() as store:
                results = score_or_exit(score_stored_ir4qa, store, gains, cutoff, run_ids, lang_pairs, save=save,
                                        **options)
            gain_list, runs = results.gains, results.runs
        else:
            gain_list, runs = _score_files(qrels_path, expand_run_paths(run_paths + more_runs), gains, cutoff, options)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--gains") from None
    if output == "trec":  # trec_eval -q's layout, each run printed as soon as it is scored
        warned: set[str] = set()
        unscored: list[str] = []
        for r in runs:
            _warn(r.warnings, warned)
            click.echo("\n".join(trec.trec_eval_lines(r.run_id, shown, r.topics, r.means)))
            unscored += [] if r.topics else [r.run_id]
        click.echo(f"note: the 'all' lines are means over {over} (num_q of them)"
                   + ("" if average == "trec_eval" else "; trec_eval's: --average trec_eval"), err=True)
        exit_if_unscored(unscored)
        return
    # the other formats rank the runs: each run's scores are kept (not its documents)
    results = IR4QAResults(ranked_ir4qa(runs), gain_list, cutoff, options)
    _warn((w for r in results.runs for w in r.warnings), set())
    settings = results.settings
    if output == "json":
        from sepia.api import IR4QAEvaluation

        click.echo(IR4QAEvaluation(results.runs, tuple(shown), settings).to_json(), nl=False)
    elif output == "tsv":
        click.echo("\t".join(["run_id", "topic_id", *shown, "R"]))
        for r in results.runs:
            for topic_id, s in r.topics.items():
                click.echo("\t".join([r.run_id, topic_id, *(f"{s.values[m]:.6f}" for m in shown), str(s.relevant)]))
            click.echo(f"{r.run_id}\tALL\t" + "\t".join(_mean(r, m, 6) for m in shown) + "\t")
    else:
        title = (f"IR4QA: gains {settings['gains']} for L1..L{len(results.gains)}, cut-off {cutoff}, "
                 "Q with beta 1" + (", condensed lists" if condensed else "") + f"; means over {over}")
        click.echo(ir4qa_table(results.runs, title, shown), nl=False)
    exit_if_unscored([r.run_id for r in results.runs if not r.topics])


def _gone(given: bool) -> None:
    if given:
        raise click.UsageError("--ntcireval-cutoff is gone: NTCIREVAL's AP@l and Q@l, over min(k, R), are "
                               "ntcir:AP@k and ntcir:Q@k (AP@k is ir_measures', over R)")


def _mean(run, measure: str, digits: int) -> str:
    """A run's mean of a measure, '-' when no topic was scored (never 0)."""
    return f"{run.means[measure]:.{digits}f}" if run.topics else "-"


def _warn(messages: Iterable[str], warned: set[str]) -> None:
    """Each warning once."""
    for message in messages:
        if message not in warned:
            warned.add(message)
            warn(message)


def ir4qa_table(runs, title: str, measures=MEASURES) -> str:
    """One table per language pair: each run's mean of each measure (`MEASURES` by default)."""
    rows = {r.run_id: [_mean(r, m, 4) for m in measures] for r in runs}
    return grouped_table(runs, ["RUN", *measures], rows, title)


def _score_files(qrels_path, paths, gains, cutoff, options) -> tuple[list[float], Iterator[IRRunScore]]:
    """The gains, and the runs' scores, one run read and scored at a time."""
    if not qrels_path:
        raise click.UsageError("give the relevance judgments: --qrels QRELS.tsv (or --store to score the "
                               "campaign store)")
    if not paths:
        raise click.UsageError("give at least one run: --run RUN.xml (a file or a folder of run files)")
    qrels = load_or_exit(trec.read_any_qrels, qrels_path)
    gain_list = parse_gains(gains) if gains else default_gains(qrels)
    evaluator = IR4QAEvaluator(qrels, gain_list, cutoff, **options)
    return gain_list, (evaluator.score(run_id, rankings) for path in paths for run_id, rankings in _read_runs(path))


def _read_runs(path) -> Iterator[tuple[str, dict[str, list[str]]]]:
    """A TREC run file's runs, or the one SEPIA IR4QA XML run: each run's ID and rankings."""
    if trec.is_trec_run_file(path):
        yield from load_or_exit(trec.read_trec_runs, path)
    else:
        yield load_or_exit(read_xml_rankings, path)
