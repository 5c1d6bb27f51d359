"""`sepia evaluate-ir4qa`: AP, Q-measure and nDCG of IR4QA runs against graded qrels."""
from __future__ import annotations

import json

import click

from sepia.commands.common import check_store_use, expand_run_paths, load_or_exit, score_or_exit, store_options, warn
from sepia.formats.model import IR4QARun
from sepia.formats.read import expect, read_file
from sepia.ir4qa.evaluate import MEASURES, IR4QAResults, evaluate_ir4qa
from sepia.ir4qa.measures import default_gains, parse_gains
from sepia.ir4qa.qrels import read_qrels
from sepia.scoring.report import grouped_table


@click.command("evaluate-ir4qa")
@click.option("--qrels", "qrels_path", type=click.Path(exists=True, dir_okay=False),
              help="Graded relevance TSV: topic_id docid level [assessor].")
@click.option("--run", "run_paths", multiple=True, type=click.Path(exists=True),
              help="IR4QA run XML, or a folder of them; repeat for several runs.")
@click.argument("more_runs", nargs=-1, type=click.Path(exists=True))
@click.option("--gains", default=None, metavar="G1:G2:...",
              help="Gain of L1, L2, ... (default 1:2:...:k, the level itself).")
@click.option("--cutoff", type=click.IntRange(1), default=1000, show_default=True)
@store_options
@click.option("--format", "output", type=click.Choice(["table", "tsv", "json"]), default="table", show_default=True)
def evaluate_ir4qa_command(qrels_path, run_paths, more_runs, gains, cutoff, from_store, run_ids, lang_pairs, save,
                           output):
    """Score IR4QA runs with AP, Q-measure (beta 1) and nDCG as NTCIREVAL defines them.

    With --store, the IR4QA runs and the relevance judgments come from the campaign store."""
    check_store_use(from_store, {"--qrels": qrels_path, "--run": run_paths + more_runs}, run_ids, lang_pairs)
    try:
        if from_store:
            from sepia.scoring.campaign import score_stored_ir4qa
            from sepia.store.db import Store

            results = score_or_exit(score_stored_ir4qa, Store(), gains, cutoff, run_ids, lang_pairs, save=save)
        else:
            results = _score_files(qrels_path, expand_run_paths(run_paths + more_runs), gains, cutoff)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--gains") from None
    for message in dict.fromkeys(w for r in results.runs for w in r.warnings):
        warn(message)
    settings = results.settings
    if output == "json":
        click.echo(json.dumps({"runs": [r.as_dict() for r in results.runs], "settings": settings}, indent=2))
    elif output == "tsv":
        click.echo("run_id\ttopic_id\tAP\tQ\tnDCG\tR")
        for r in results.runs:
            for topic_id, s in r.topics.items():
                click.echo(f"{r.run_id}\t{topic_id}\t{s.ap:.6f}\t{s.q:.6f}\t{s.ndcg:.6f}\t{s.relevant}")
            click.echo(f"{r.run_id}\tALL\t" + "\t".join(f"{r.means[m]:.6f}" for m in MEASURES) + "\t")
    else:
        title = (f"IR4QA: gains {settings['gains']} for L1..L{len(results.gains)}, cut-off {cutoff}, "
                 "Q with beta 1")
        click.echo(ir4qa_table(results.runs, title), nl=False)


def ir4qa_table(runs, title: str) -> str:
    """One table per language pair: each run's mean AP, Q and nDCG."""
    rows = {r.run_id: [f"{r.means[m]:.4f}" for m in MEASURES] for r in runs}
    return grouped_table(runs, ["RUN", *MEASURES], rows, title)


def _score_files(qrels_path, paths, gains, cutoff) -> IR4QAResults:
    if not qrels_path:
        raise click.UsageError("give the relevance judgments: --qrels QRELS.tsv (or --store to score the "
                               "campaign store)")
    if not paths:
        raise click.UsageError("give at least one run: --run RUN.xml (a file or a folder of run files)")
    qrels = load_or_exit(read_qrels, qrels_path)
    gain_list = parse_gains(gains) if gains else default_gains(qrels)
    runs = [expect(load_or_exit(read_file, p, "ir4qa"), IR4QARun, p) for p in paths]
    return IR4QAResults(evaluate_ir4qa(qrels, runs, gain_list, cutoff), gain_list, cutoff)
