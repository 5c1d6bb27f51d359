"""`sepia rubric`: the campaign's rubric (dimensions graded on anchored scales, weighted into one
score), its grades in and out as TSV, the assessors' agreement and disputes per dimension, and the
scores per run and answer for `sepia metaeval scores` and `sepia metaeval aeollm` (docs/rubric.md)."""
from __future__ import annotations

import json
from pathlib import Path

import click

from sepia.commands.common import load_or_exit, login_name, sharing_options, store_session, utf8_text


def _rubric_error(where: str, error: ValueError) -> click.ClickException:
    return click.ClickException(f"{where}: {error}")


def _inputs(rubric_path: str | None, grades_path: str | None):
    """(rubric, grades) from the two files, or from the store when neither is given."""
    from sepia.formats.rubric import RubricError, parse_grades, parse_rubric
    from sepia.store import rubric as store_rubric

    if bool(rubric_path) != bool(grades_path):
        raise click.UsageError("--rubric and --grades go together (without both, the store's are used)")
    if rubric_path and grades_path:
        try:
            rubric = parse_rubric(utf8_text(rubric_path))
        except RubricError as error:
            raise _rubric_error(rubric_path, error) from None
        return rubric, load_or_exit(parse_grades, utf8_text(grades_path), rubric, grades_path)
    with store_session() as session:
        try:
            return store_rubric.require(session), store_rubric.grades(session)
        except RubricError as error:
            raise click.ClickException(str(error)) from None


def file_options(command):
    command = click.option("--grades", "grades_path", type=click.Path(exists=True, dir_okay=False),
                           help="A grades TSV instead of the store's grades (with --rubric).")(command)
    return click.option("--rubric", "rubric_path", type=click.Path(exists=True, dir_okay=False),
                        help="A rubric TOML instead of the store's rubric (with --grades).")(command)


@click.group()
def rubric() -> None:
    """Rubric judging: dimensions graded on anchored scales, weighted into one score."""


@rubric.command("set")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--author", default=login_name, show_default="your login name", help="Who set this version.")
def set_(file: str, author: str) -> None:
    """Make the rubric TOML FILE the campaign's rubric (its next version)."""
    from sepia.formats.rubric import RubricError
    from sepia.store import rubric as store_rubric

    text = utf8_text(file)
    try:
        with store_session() as session:
            version = store_rubric.set_rubric(session, text, author)
            names = store_rubric.require(session).names
    except RubricError as error:
        raise _rubric_error(file, error) from None
    click.echo(f"Rubric version {version} set by {author}: {len(names)} dimensions ({', '.join(names)}).")


@rubric.command()
@sharing_options("answers")
def assign(assessors, overlap, seed):
    """Share the CCLQA runs' answers out to the assessors as a pool's items are (topics in turn,
    OVERLAP graded twice); from then on each grades only the answers assigned to them."""
    from sepia.store import rubric as store_rubric

    try:
        with store_session() as session:
            added = store_rubric.assign_answers(session, list(assessors), overlap, seed)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None
    click.echo(f"{added} answers assigned to {len(assessors)} assessors")


@rubric.command()
def show() -> None:
    """Print the campaign's rubric as TOML, headed by its version."""
    from sepia.store import rubric as store_rubric

    with store_session() as session:
        found = store_rubric.current(session)
    if found is None:
        raise click.ClickException("the campaign has no rubric yet: set one with `sepia rubric set FILE`")
    click.echo(f"# version {found.version}, set by {found.author}\n{found.text.rstrip()}")


@rubric.command("export")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), help="Write here, not to stdout.")
def export(output: str | None) -> None:
    """Write every stored grade as a TSV: topic_id run_id assessor dimension grade."""
    from sepia.formats.rubric import grades_tsv
    from sepia.store import rubric as store_rubric

    with store_session() as session:
        text = grades_tsv(store_rubric.grades(session))
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)


@rubric.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
def import_(file: str) -> None:
    """Store the grades of a TSV (checked whole against the rubric and the runs first; an assessor's
    earlier grade of the same answer and dimension is replaced)."""
    from sepia.formats.rubric import RubricError, parse_grades
    from sepia.store import rubric as store_rubric

    text = utf8_text(file)
    try:
        with store_session() as session:
            found = load_or_exit(parse_grades, text, store_rubric.require(session), file)
            stored = store_rubric.import_grades(session, found)
    except RubricError as error:
        raise _rubric_error(file, error) from None
    click.echo(f"{stored} grades imported from {file}.")


@rubric.command()
@file_options
@click.option("--tolerance", type=click.IntRange(0), default=1, show_default=True,
              help="Grades may differ by this much before an answer is a dispute.")
@click.option("--limit", type=click.IntRange(0), default=20, show_default=True, help="Disputes listed (0 = all).")
@click.option("--format", "output", type=click.Choice(["table", "json"]), default="table", show_default=True)
def agreement(rubric_path, grades_path, tolerance, limit, output):
    """Per dimension: exact and within-one agreement, Krippendorff's alpha (interval), Cohen's
    weighted kappa per pair of assessors, and the disputed answers."""
    from sepia.metaeval.render import json_ready
    from sepia.metaeval.rubric_agreement import agreement as rubric_agreement
    from sepia.metaeval.rubric_render import agreement_text

    rubric_, grades = _inputs(rubric_path, grades_path)
    agreed = rubric_agreement(rubric_, grades, tolerance)
    rows, score, pairs, found = agreed.dimensions, agreed.score, agreed.pairs, agreed.disputes
    if output == "json":
        click.echo(json.dumps(json_ready({"dimensions": [r.as_dict() for r in rows], "score": score.__dict__,
                                          "pairs": [p.as_dict() for p in pairs],
                                          "disputes": [d.as_dict() for d in found]}), indent=2, ensure_ascii=False))
    else:
        click.echo(agreement_text(rows, score, pairs, found, tolerance, limit), nl=False)


@rubric.command()
@file_options
@click.option("--format", "output", type=click.Choice(["table", "long", "aeollm", "json"]), default="table",
              show_default=True, help="table: per run; long: per answer, the long TSV of `sepia metaeval scores`; "
                                      "aeollm: per assessor and answer, the human file of `sepia metaeval aeollm`.")
@click.option("--dimension", help="long and aeollm: this dimension's grade instead of the weighted score.")
@click.option("--task", default="cclqa", show_default=True, help="aeollm: the taskId column.")
def scores(rubric_path, grades_path, output, dimension, task):
    """The weighted rubric score (and the mean grade per dimension) per run, or per answer for
    meta-evaluating automatic evaluators against it."""
    from sepia.metaeval.render import json_ready
    from sepia.metaeval.rubric_render import scores_text
    from sepia.scoring.rubric import aeollm_lines, answer_scores, assessor_scores, long_tsv, run_scores

    rubric_, grades = _inputs(rubric_path, grades_path)
    if dimension is not None and rubric_.dimension(dimension) is None:
        raise click.BadParameter(f"no dimension {dimension!r}; the rubric's are {', '.join(rubric_.names)}",
                                 param_hint="--dimension")
    answers, incomplete = answer_scores(rubric_, grades)
    if output == "long":
        click.echo(long_tsv(rubric_, answers, dimension), nl=False)
    elif output == "aeollm":
        click.echo(aeollm_lines(assessor_scores(rubric_, grades, dimension), task), nl=False)
    elif output == "json":
        click.echo(json.dumps(json_ready({"runs": [r.__dict__ for r in run_scores(rubric_, answers)],
                                          "answers": [a.__dict__ for a in answers], "incomplete": incomplete}),
                              indent=2, ensure_ascii=False))
    else:
        click.echo(scores_text(rubric_, run_scores(rubric_, answers), incomplete), nl=False)
