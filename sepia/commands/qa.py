"""`sepia evaluate-qa`: answer-type accuracy and key-term recall of Question Analysis runs."""
from __future__ import annotations

import sys

import click

from sepia.commands.common import check_store_use, exit_if_unscored, expand_run_paths, score_or_exit, store_options, warn
from sepia.convert.validate import validate_any_file
from sepia.formats.model import GoldStandard, QARun, Topic, TopicSet
from sepia.qa.evaluate import SETTINGS, evaluate_qa
from sepia.qa.report import as_json, confusion_tables, table, tsv
from sepia.services.validation import missing_in_configured_store



@click.command("evaluate-qa")
@click.option("--topics", "topics_path", type=click.Path(exists=True, dir_okay=False),
              help="Topic set XML (answer types and optional gold KEY_TERMs), or a gold standard XML "
                   "(answer types only).")
@click.option("--run", "run_paths", multiple=True, type=click.Path(exists=True),
              help="Question Analysis run XML, or a folder of them; repeat for several runs.")
@click.argument("more_runs", nargs=-1, type=click.Path(exists=True))
@store_options
@click.option("--confusion", is_flag=True, help="Table format: also print each run's confusion matrix of answer "
                                                "types (gold by predicted); JSON always has it.")
@click.option("--format", "output", type=click.Choice(["table", "tsv", "json"]), default="table", show_default=True)
def evaluate_qa_command(topics_path, run_paths, more_runs, from_store, run_ids, lang_pairs, save, confusion,
                        output):
    """Score Question Analysis runs: answer-type accuracy (overall, by answer type, confusion matrix)
    and, where the topics have gold KEY_TERMs, key-term recall and precision; one table per
    language pair. Every file is validated first; problems are printed as PATH:LINE:COLUMN."""
    check_store_use(from_store, {"--topics": topics_path, "--run": run_paths + more_runs}, run_ids, lang_pairs)
    if from_store:
        from sepia.services.qa_scores import score_stored_qa
        from sepia.store.db import Store

        with Store() as store:
            results = score_or_exit(score_stored_qa, store, run_ids, lang_pairs, save=save)
    else:
        results = _score_files(topics_path, expand_run_paths(run_paths + more_runs))
    for message in dict.fromkeys(w for r in results for w in r.warnings):
        warn(message)
    if output == "json":
        click.echo(as_json(results, SETTINGS))
    elif output == "tsv":
        click.echo(tsv(results), nl=False)
    else:
        click.echo(table(results, "Question Analysis: answer-type accuracy (by gold answer type), key-term recall "
                                  "and precision"), nl=False)
        if confusion:
            click.echo(confusion_tables(results), nl=False)
    exit_if_unscored([r.run_id for r in results if not r.topics])


def _validated(path: str, format_name: str | None, kinds: tuple[type, ...]):
    """The file's object after every check of `sepia validate`, or None when it is invalid or of
    another kind; its problems (warnings too) go to stderr as PATH:LINE:COLUMN: message."""
    obj, problems = validate_any_file(path, format_name, missing=missing_in_configured_store)
    for problem in problems:
        click.echo(str(problem), err=True)
    if obj is not None and not isinstance(obj, kinds):
        click.echo(f"{path}:1:1: expected {' or '.join(k.__name__ for k in kinds)}, got a {type(obj).__name__}",
                   err=True)
        return None
    return obj


def _topics(obj) -> list[Topic]:
    """A gold standard's topics as topics: their answer types, without key terms."""
    if isinstance(obj, GoldStandard):
        return [Topic(t.topic_id, t.questions, answer_type=t.answer_type) for t in obj.topics]
    return obj.topics


def _score_files(topics_path, run_paths):
    if not topics_path:
        raise click.UsageError("give the topics: --topics TOPICS.xml (or --store to score the campaign store)")
    if not run_paths:
        raise click.UsageError("give at least one run: --run QA.xml (a file or a folder of run files)")
    topics = _validated(topics_path, None, (TopicSet, GoldStandard))
    runs = [_validated(path, "qa", (QARun,)) for path in run_paths]
    if topics is None or None in runs:  # every file's problems are listed before giving up
        sys.exit(1)
    repeated = sorted({r.metadata.run_id for r in runs if sum(o.metadata.run_id == r.metadata.run_id for o in runs) > 1})
    if repeated:
        raise click.UsageError(f"the same run ID is given more than once: {', '.join(repeated)}")
    return evaluate_qa(_topics(topics), runs)
