"""`sepia evaluate-ir4qa`: AP, Q-measure and nDCG of IR4QA runs against graded qrels."""
from __future__ import annotations

import json

import click

from sepia.commands.common import load_or_exit, warn
from sepia.commands.evaluate import expand_run_paths
from sepia.formats.model import IR4QARun
from sepia.formats.read import expect, read_file
from sepia.ir4qa.evaluate import MEASURES, evaluate_ir4qa
from sepia.ir4qa.measures import default_gains, parse_gains
from sepia.ir4qa.qrels import read_qrels
from sepia.scoring.report import grouped_table


@click.command("evaluate-ir4qa")
@click.option("--qrels", "qrels_path", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Graded relevance TSV: topic_id docid level.")
@click.option("--run", "run_paths", multiple=True, type=click.Path(exists=True),
              help="IR4QA run XML, or a folder of them; repeat for several runs.")
@click.argument("more_runs", nargs=-1, type=click.Path(exists=True))
@click.option("--gains", default=None, metavar="G1:G2:...",
              help="Gain of L1, L2, ... (default 1:2:...:k, the level itself).")
@click.option("--cutoff", type=click.IntRange(1), default=1000, show_default=True)
@click.option("--format", "output", type=click.Choice(["table", "tsv", "json"]), default="table", show_default=True)
def evaluate_ir4qa_command(qrels_path, run_paths, more_runs, gains, cutoff, output):
    """Score IR4QA runs with AP, Q-measure (beta 1) and nDCG as NTCIREVAL defines them."""
    paths = expand_run_paths(run_paths + more_runs)
    if not paths:
        raise click.UsageError("give at least one run: --run RUN.xml (a file or a folder of run files)")
    qrels = load_or_exit(read_qrels, qrels_path)
    try:
        gain_list = parse_gains(gains) if gains else default_gains(qrels)
        runs = [expect(load_or_exit(read_file, p, "ir4qa"), IR4QARun, p) for p in paths]
        results = evaluate_ir4qa(qrels, runs, gain_list, cutoff)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--gains") from None
    for message in dict.fromkeys(w for r in results for w in r.warnings):
        warn(message)
    settings = {"gains": ":".join(f"{g:g}" for g in gain_list), "cutoff": cutoff, "beta": 1}
    if output == "json":
        click.echo(json.dumps({"runs": [r.as_dict() for r in results], "settings": settings}, indent=2))
    elif output == "tsv":
        click.echo("run_id\ttopic_id\tAP\tQ\tnDCG\tR")
        for r in results:
            for topic_id, s in r.topics.items():
                click.echo(f"{r.run_id}\t{topic_id}\t{s.ap:.6f}\t{s.q:.6f}\t{s.ndcg:.6f}\t{s.relevant}")
            click.echo(f"{r.run_id}\tALL\t" + "\t".join(f"{r.means[m]:.6f}" for m in MEASURES) + "\t")
    else:
        title = f"IR4QA: gains {settings['gains']} for L1..L{len(gain_list)}, cut-off {cutoff}, Q with beta 1"
        rows = {r.run_id: [f"{r.means[m]:.4f}" for m in MEASURES] for r in results}
        click.echo(grouped_table(results, ["RUN", *MEASURES], rows, title), nl=False)
