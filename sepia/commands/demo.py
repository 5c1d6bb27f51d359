"""`sepia demo`: the sample campaign, scored and shown, then the web tool on it."""
from __future__ import annotations

import os
from pathlib import Path

import click

from sepia import config
from sepia.resources import resource_dir


@click.command()
@click.option("--home", type=click.Path(file_okay=False), default=None,
              help="Data directory of the demo (default: SEPIA_HOME/demo; rebuilt on every run).")
@click.option("--serve/--no-serve", default=True, show_default=True,
              help="Serve the web tool on the demo campaign afterwards.")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=5000, show_default=True, type=int)
@click.option("--progress/--no-progress", default=True, help="Show progress bars.")
def demo(home, serve, host, port, progress):
    """Build a campaign from the sample collections, score every run, print ACLIA-style tables."""
    from sepia.commands.ir4qa import ir4qa_table
    from sepia.demo import load_collection, reset_data_dir, sample_collections, score_ir4qa, score_qa, score_store
    from sepia.qa.report import table as qa_table
    from sepia.scoring.report import table
    from sepia.services.accounts import seed_demo_accounts
    from sepia.store.db import Store

    if serve:
        from sepia.web.demo import check_port

        check_port(host, port)
    home = Path(home) if home else config.sepia_home() / "demo"
    home.mkdir(parents=True, exist_ok=True)
    os.environ["SEPIA_HOME"] = str(home)  # the store, the indexes and the web tool all live there
    os.environ.pop("SEPIA_DATABASE_URL", None)
    reset_data_dir(home)
    corpora = resource_dir("corpora")
    click.echo(f"SEPIA demo: building the sample campaign in {home}")
    folders = sample_collections(corpora)
    with Store() as store:
        for folder in folders:
            report = load_collection(store, folder, progress)
            click.echo(f"  {report.lang}: {report.documents} documents, {report.topics} topics, {report.nuggets} "
                       f"nuggets, {report.answer_texts} answer texts, {len(report.runs)} runs, {report.judgments} "
                       f"judgments, {report.relevance_judgments} relevance judgments")
        results = score_store(store)
        for matcher, scores in results.items():
            click.echo("")
            click.echo(table(scores, f"== {_title(matcher)}, pyramid weights, C = mean nugget length =="), nl=False)
        ir_results = score_ir4qa(store)
        if ir_results:
            click.echo("")
            click.echo(ir4qa_table(ir_results.runs, "== IR4QA: AP, Q-measure and nDCG@1000, gain = relevance level =="),
                       nl=False)
        qa_results = score_qa(store)
        if qa_results:
            click.echo("")
            click.echo(qa_table(qa_results, "== Question Analysis: answer-type accuracy against the topics' answer "
                                            "types =="), nl=False)
        accounts = seed_demo_accounts(store) if serve else []
    if serve:  # the web tool opens the store itself
        _serve(accounts, host, port)


def _serve(accounts, host: str, port: int) -> None:
    from sepia.web.demo import THREADS, run_production_server

    click.echo("")
    click.echo(f"The web tool is at http://{host}:{port}/ - log in with one of these demo accounts:")
    for username, password, role in accounts:
        click.echo(f"  {role:16} {username:12} password {password}")
    click.echo(f"Starting the production server (gunicorn, or waitress on Windows; one process of {THREADS} "
               "threads), which loads the search dictionaries before it answers (a few seconds). Press Ctrl+C to stop.")
    run_production_server(host, port)


def _title(matcher: str) -> str:
    """A table's title from the matcher's descriptor: `Human F3 (the assessors' judgments)`."""
    from sepia import matchers

    kind = matchers.kind(matcher)
    return f"{kind.label[:1].upper()}{kind.label[1:]} F3 ({kind.summary})"
