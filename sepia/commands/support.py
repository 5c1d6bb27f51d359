"""`sepia evaluate-support`: TREC RAG's citation support measures of CCLQA runs whose responses cite
documents (answer sentences and their segments), from a support judgments TSV."""
from __future__ import annotations

import json

import click

from sepia.commands.common import expand_run_paths, load_or_exit
from sepia.formats.judgments import SUPPORT_HEADER, read_judgments
from sepia.formats.model import CCLQARun
from sepia.formats.read import expect, read_file


@click.command("evaluate-support")
@click.option("--run", "run_paths", multiple=True, required=True, type=click.Path(exists=True),
              help="CCLQA run file, or a folder of them (repeatable).")
@click.option("--support", "support_path", required=True, type=click.Path(exists=True, dir_okay=False),
              help="TSV: topic_id run_id answer_rank docid support assessor (support 1 full, 0.5 partial, 0 none).")
@click.option("--format", "output", type=click.Choice(["table", "json"]), default="table", show_default=True)
def evaluate_support(run_paths, support_path, output):
    """Weighted support precision and recall per run (means over its answered topics), and the
    assessors' agreement on the citations two or more of them judged."""
    from sepia.metaeval.support_agreement import support_agreement
    from sepia.scoring.support import support_scores

    runs = [expect(load_or_exit(read_file, p, "cclqa"), CCLQARun, p) for p in expand_run_paths(run_paths)]
    judgments = load_or_exit(read_judgments, support_path, SUPPORT_HEADER)
    results = sorted(support_scores(runs, judgments), key=lambda r: (-r.precision, r.run_id))
    agreement = support_agreement(judgments)
    if output == "json":
        click.echo(json.dumps({"runs": [{"run_id": r.run_id, "precision": r.precision, "recall": r.recall,
                                         "topics": [vars(t) for t in r.topics]} for r in results],
                               "agreement": vars(agreement)}, indent=1))
        return
    width = max([len("RUN")] + [len(r.run_id) for r in results])
    click.echo(f"{'RUN':<{width}}  PRECISION  RECALL  TOPICS  SENTENCES  CITATIONS  UNJUDGED")
    for r in results:
        click.echo(f"{r.run_id:<{width}}  {r.precision:9.4f}  {r.recall:6.4f}  {len(r.topics):6d}  "
                   f"{sum(t.sentences for t in r.topics):9d}  {sum(t.citations for t in r.topics):9d}  "
                   f"{sum(t.unjudged for t in r.topics):8d}")
    click.echo(f"agreement on {agreement.pairs} citations judged twice or more: exact {agreement.exact:.3f}, "
               f"Fleiss' kappa {agreement.fleiss_kappa:.3f}, Krippendorff's alpha (ordinal) "
               f"{agreement.krippendorff_alpha:.3f}")
