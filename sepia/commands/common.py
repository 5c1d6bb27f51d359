"""Helpers the commands share: read inputs or exit with every problem listed."""
from __future__ import annotations

import getpass
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import click

from sepia import vocab
from sepia.api import files_in as expand_run_paths  # noqa: F401 (the commands' name for it)
from sepia.formats.errors import FormatError
from sepia.scoring.weights import SCHEMES


def load_or_exit(reader, *args, **kwargs):
    """Call a reader; on bad input print each problem (PATH:LINE:COLUMN: message) and exit 1."""
    with problems_or_exit():
        return reader(*args, **kwargs)


@contextmanager
def problems_or_exit() -> Iterator[None]:
    """Within it, bad input (a FormatError) prints each problem (PATH:LINE:COLUMN: message) and exits 1."""
    try:
        yield
    except FormatError as exc:
        for problem in exc.problems:
            click.echo(str(problem), err=True)
        sys.exit(1)


@contextmanager
def api_or_exit() -> Iterator[None]:
    """Within it, what `sepia.api` raises is the command's error: a file's problems printed (exit 1),
    an option the matcher does not take that option's usage error, a CallError a usage error (exit
    2), any other ValueError (a model or matcher that cannot be used) one line (exit 1)."""
    from sepia.api import CallError, OptionError

    try:
        with problems_or_exit():
            yield
    except OptionError as exc:
        hint = {"numbers": "--numbers", "matcher_options": "--matcher-option"}[exc.option]
        raise click.BadParameter(str(exc), param_hint=hint) from None
    except CallError as exc:
        raise click.UsageError(str(exc)) from None
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None


def utf8_text(path: str) -> str:
    """A file's text, or the command's one-line error when it is not UTF-8."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise click.ClickException(f"{path}: not UTF-8 text (byte {error.start})") from error


@contextmanager
def store_session() -> Iterator:
    """One transaction on the store (SEPIA_DATABASE_URL), its connections closed after it."""
    from sepia.store.db import Store

    with Store() as store, store.transaction() as session:
        yield session


def login_name() -> str:
    """Who runs the command, for the author of what it saves."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name in a container
        return "cli"


def warn(message: str) -> None:
    click.secho(f"warning: {message}", fg="yellow", err=True)


def f_score_options(command):
    """--beta, --theta and --weights: the settings of F(beta) scoring that every scoring command takes."""
    options = [
        click.option("--beta", type=click.FloatRange(0, min_open=True), default=3.0, show_default=True),
        click.option("--theta", type=float, default=0.5, show_default=True,
                     help="BINARIZED: a nugget matches when its best softmatch is strictly above this."),
        click.option("--weights", type=click.Choice(SCHEMES), default="pyramid", show_default=True),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _allowances(ctx, param, value) -> tuple[dict[str, float], float | None]:
    from sepia.scoring.allowance import parse_overrides

    try:
        return parse_overrides(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--allowance") from None


allowance_option = click.option(
    "--allowance", multiple=True, metavar="N|TYPE=N", callback=_allowances,
    help="Character allowance C per match, everywhere (N) or for one answer type (TYPE=N). "
         "Default: mean gold nugget length per language and type.")


def sharing_options(what: str):
    """--assessor (repeated), --overlap and --seed: how judging work is shared out (sepia.store.sharing)."""
    def decorate(command):
        options = [
            click.option("--assessor", "assessors", multiple=True, required=True,
                         help="An assessor's user name; repeat."),
            click.option("--overlap", type=click.FloatRange(0, 1), default=0.0, show_default=True,
                         help=f"Share of each topic's {what} a second assessor judges too, for agreement."),
            click.option("--seed", type=int, default=0, show_default=True, help="Seed of the assessors' random orders."),
        ]
        for option in reversed(options):
            command = option(command)
        return command
    return decorate


def token_options(command):
    """--stem, --stopwords and --set: how responses and nuggets are tokenised for matching."""
    options = [
        click.option("--stem", is_flag=True, help="Stem English words (Snowball English) before matching."),
        click.option("--stopwords", is_flag=True,
                     help="Drop English stop words (SEPIA's list, Snowball's) before matching."),
        click.option("--set", "as_set", is_flag=True, help="Count tokens as a set instead of a bag."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


partial_option = click.option(
    "--partial", type=click.Choice(["0", "0.5", "1"]), default="0.5", show_default=True, callback=lambda c, p, v: float(v),
    help="Human matcher: what a partial support (judgment 0.5) counts for in F: half a match, none or a whole one.")


class MatcherName(click.ParamType):
    """A matcher of the registry (built-in or a `sepia.matchers` plug-in), checked when used."""
    name = "matcher"

    def __init__(self, automatic_only: bool = False):
        self.automatic_only = automatic_only

    def names(self) -> list[str]:
        from sepia import matchers

        return matchers.names(self.automatic_only)

    def get_metavar(self, param, ctx=None) -> str:
        return "[" + "|".join(self.names()) + "]"

    def convert(self, value, param, ctx):
        names = self.names()
        if value not in names:
            self.fail(f"{value!r} is not a matcher; choose one of {', '.join(names)} (plug-ins register "
                      "themselves as entry points of the group sepia.matchers)", param, ctx)
        return value


def matcher_help(automatic_only: bool = False) -> str:
    """The built-in matchers as their descriptors say, for --matcher's help (plug-ins are not imported
    for it: a learned model's libraries would slow every command's start)."""
    from sepia.matchers import builtin_kinds

    described = "; ".join(f"{k.name}: {k.summary}" for k in builtin_kinds().values()
                          if k.automatic or not automatic_only)
    return f"{described}; or a plug-in's name (entry points sepia.matchers)."


def key_values(ctx, param, values) -> dict[str, str]:
    pairs = {}
    for value in values:
        key, sep, given = value.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{value!r} is not NAME=VALUE", ctx, param)
        pairs[key.strip()] = given
    return pairs


def matcher_option_flags(command):
    """--numbers and --matcher-option: the options of the matchers beyond F(beta)'s."""
    from sepia.matchers.base import NUMBER_RULES

    options = [
        click.option("--numbers", type=click.Choice(NUMBER_RULES), default="lenient", show_default=True,
                     help="binarized and softmatch: with strict, a nugget whose numbers or dates (after NFKC and "
                          "CJK numerals) a response lacks or states differently cannot match that response."),
        click.option("--matcher-option", "matcher_options", multiple=True, metavar="NAME=VALUE",
                     callback=key_values, help="An option of the matcher's own (see docs/matchers.md); repeat."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


auto_judgments_option = click.option(
    "--auto-judgments", "auto_judgment_specs", multiple=True, metavar="[NAME=]FILE",
    help="Nugget assignments of an automatic assessor, scored like a matcher: a judgments TSV (the "
         "assessor column names the matcher) or nuggetizer JSONL from an AutoNuggetizer run (named "
         "after the file); NAME=FILE names it. Repeat for several.")


def load_auto_matchers(specs, gold, partial: float = 0.5) -> dict:
    """The automatic assessors' matchers, or exit with every problem of their files."""
    from sepia.convert.autojudgments import auto_matchers

    try:
        return load_or_exit(auto_matchers, specs, gold, partial)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


def store_options(command):
    """--store and what goes with it: the scoring commands score the store's runs instead of files."""
    options = [
        click.option("--store", "from_store", is_flag=True,
                     help="Score the runs and judgments held in the campaign store (SEPIA_HOME or "
                          "SEPIA_DATABASE_URL) instead of files."),
        click.option("--run-id", "run_ids", multiple=True, metavar="RUN_ID",
                     help="With --store: only this stored run; repeat for several (default: every run)."),
        click.option("--lang-pair", "lang_pairs", multiple=True,
                     type=click.Choice(vocab.LANGUAGE_PAIRS, case_sensitive=False),
                     help="With --store: only the runs of this language pair; repeat for several."),
        click.option("--save/--no-save", default=True, show_default=True,
                     help="With --store: keep the scores in the store, replacing those computed with the "
                          "same settings."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def check_store_use(from_store: bool, file_options: dict, run_ids, lang_pairs) -> None:
    """--store excludes the file options; --run-id and --lang-pair need --store."""
    if from_store:
        given = [name for name, value in file_options.items() if value]
        if given:
            raise click.UsageError(f"--store scores what the store holds; leave out {', '.join(given)}")
    elif run_ids or lang_pairs:
        raise click.UsageError("--run-id and --lang-pair select stored runs: add --store")


def made_or_exit(maker, *args, **kwargs):
    """Call what makes or teaches a matcher; a ValueError (a model or options it cannot use) is one line
    and exit 1."""
    try:
        return maker(*args, **kwargs)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None


def score_or_exit(scorer, *args, **kwargs):
    """Call a store scorer; when the store lacks what it needs, say so and exit 1."""
    from sepia.services.scores import NothingToScore

    try:
        return scorer(*args, **kwargs)
    except NothingToScore as exc:
        raise click.ClickException(str(exc)) from None


def output_folder(path: str | Path) -> Path:
    """The folder a command writes `path` into, created if missing; one line (exit 1) when it cannot be."""
    folder = Path(path).parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise click.ClickException(f"{path}: cannot create its folder {folder}: {exc.strerror or exc}") from None
    return folder


def write_output(path: str | Path, data: bytes | str) -> None:
    """Write a command's output file in one rename (never half a file), creating its folder; one line
    (exit 1) when it cannot be written."""
    output_folder(path)
    target = Path(path)
    staging = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        staging.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(staging, target)
    except OSError as exc:
        staging.unlink(missing_ok=True)
        raise click.ClickException(f"{path}: cannot write: {exc.strerror or exc}") from None


def exit_if_unscored(run_ids: list[str]) -> None:
    """A run without a scored topic (none of its language in the gold standard or qrels) is an error
    (exit status 1), after the output that shows it: `evaluate`, `evaluate-ir4qa` and `evaluate-qa` alike."""
    if run_ids:
        click.echo(f"error: no topic scored for {', '.join(run_ids)} (see the warnings above)", err=True)
        raise SystemExit(1)
