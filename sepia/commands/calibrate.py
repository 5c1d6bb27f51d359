"""`sepia evaluate --calibrate JUDGMENTS.tsv`: automatic scores corrected by the human judgments of a
random sample of topics (PPI++), as a table, TSV or JSON."""
from __future__ import annotations

import json
from dataclasses import replace
from typing import Iterable

import click

from sepia.commands.common import load_auto_matchers, load_or_exit, made_or_exit
from sepia.formats.judgments import read_judgments
from sepia.formats.model import CCLQARun, GoldStandard
from sepia.formats.read import expect, read_file
from sepia.scoring.evaluate import Evaluator, Settings
from sepia.versions import stamped


def _remember(ctx, param, value):
    ctx.meta[f"sepia.{param.name}"] = value
    return value


def calibrate_options(command):
    """`sepia evaluate`'s --calibrate, --plan and --level. Their values wait in the click context
    (`calibration_asked`, `calibrated`) rather than in the command's parameters."""
    options = [
        click.option("--calibrate", "calibrate_path", type=click.Path(exists=True, dir_okay=False), expose_value=False,
                     callback=_remember,
                     help="Human judgments of a random sample of topics (every run judged on them): report the PPI++ "
                          "estimate of each run's human F and of every difference of two runs, with intervals."),
        click.option("--plan", "plan_pool", metavar="POOL", expose_value=False, callback=_remember,
                     help="With --store: the same estimates from the judgments of pool POOL's judging plan."),
        click.option("--level", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.95,
                     show_default=True, expose_value=False, callback=_remember,
                     help="With --calibrate or --plan: the confidence level of the intervals."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def calibration_asked() -> bool:
    meta = click.get_current_context().meta
    return bool(meta.get("sepia.calibrate_path") or meta.get("sepia.plan_pool"))


def calibrated(settings: Settings, gold_path, run_paths, judgments_path, measures, from_store: bool, auto_specs,
               output: str) -> str:
    """The estimates `sepia evaluate --calibrate FILE` or `--store --plan POOL` prints."""
    meta = click.get_current_context().meta
    calibrate_path, plan_pool = (meta.get(f"sepia.{k}") for k in ("calibrate_path", "plan_pool"))
    level: float = meta["sepia.level"]  # always there: --level has a default, so its callback runs
    if judgments_path or measures:
        raise click.UsageError("--calibrate takes the human judgments itself; leave out --judgments and --measures")
    if calibrate_path and from_store:
        raise click.UsageError("--store scores what the store holds; leave out --calibrate (use --plan POOL)")
    if plan_pool and not from_store:
        raise click.UsageError("--plan estimates from the campaign store: add --store (or give --calibrate FILE)")
    if plan_pool:
        from sepia.store.db import Store

        return calibrate_store(Store(), settings, plan_pool, level, output)
    return calibrate_files(gold_path, run_paths, calibrate_path, settings, auto_specs, level, output)


def calibrate_files(gold_path, run_paths, calibrate_path, settings: Settings, auto_specs, level: float,
                    output: str) -> str:
    """Everything is read and checked before anything is estimated; a problem is one line and exit 1."""
    from sepia.metaeval.calibrate import calibrate, run_topic_scores  # scipy: not for every `sepia evaluate`
    from sepia.metaeval.render import json_ready
    from sepia.matchers.learned import cross_fitted, fits_on_plan

    if not gold_path or not run_paths:
        raise click.UsageError("--calibrate needs the gold standard (--gold) and the runs (--run)")
    if settings.matcher == "human":
        raise click.UsageError("--calibrate corrects an automatic matcher: choose --matcher binarized, softmatch, "
                               "exact, a plug-in or --auto-judgments")
    gold = expect(load_or_exit(read_file, gold_path, "gold"), GoldStandard, gold_path)
    judgments = load_or_exit(read_judgments, calibrate_path)
    if not judgments:
        raise click.ClickException(f"{calibrate_path}: no judgments: nothing to calibrate with")
    topics = {t.topic_id for t in gold.topics if t.nuggets}
    outside = sorted({j.topic_id for j in judgments} - topics)
    if outside:
        raise click.ClickException(f"{calibrate_path}: judgments of topics the gold standard lacks or leaves out: "
                                   f"{', '.join(outside[:5])}{' ...' if len(outside) > 5 else ''}")
    judged = {j.topic_id for j in judgments}
    judged_pairs = {(j.run_id, j.topic_id) for j in judgments}
    runs: Iterable[CCLQARun] | None = None
    if auto_specs:
        matchers = load_auto_matchers(auto_specs, gold, settings.partial)
        if len(matchers) > 1:
            raise click.UsageError("--calibrate corrects one matcher: give one --auto-judgments file")
        name, matcher = next(iter(matchers.items()))
        automatic = Evaluator(gold, replace(settings, matcher=name), None, matcher)
    elif fits_on_plan(settings):  # trained on the sample's judgments only, cross-fitted over its topics
        runs = [load_or_exit(read_file, path, "cclqa") for path in run_paths]
        automatic = Evaluator(gold, settings, None, made_or_exit(cross_fitted, gold, runs, judgments, "topic"))
    else:  # a learned matcher with a model: fixed before the sample
        automatic = made_or_exit(Evaluator, gold, settings)
    human = Evaluator(gold, replace(settings, matcher="human", matcher_options={}), judgments)
    scores, seen = [], set()
    if runs is None:
        runs = (load_or_exit(read_file, path, "cclqa") for path in run_paths)
    if automatic.learns:  # the learned matcher's model sees every run before it scores one
        runs = list(runs)
        made_or_exit(automatic.learn, runs)
    for run in runs:
        if run.run_id in seen:
            raise click.UsageError(f"the same run ID is given more than once: {run.run_id}")
        seen.add(run.run_id)
        unjudged = sorted(t.topic_id for t in run.topics if t.answers and t.topic_id in judged
                          and (run.run_id, t.topic_id) not in judged_pairs)
        if unjudged:
            raise click.ClickException(f"{calibrate_path}: run {run.run_id} is not judged on the sampled topic "
                                       f"{unjudged[0]}: a judged topic needs the judgments of every run")
        scores.append(run_topic_scores(automatic, human, run, judged))
    report = json_ready(calibrate(scores, level))
    if not report["language_pairs"]:
        raise click.ClickException(f"{calibrate_path}: no judged topic belongs to the runs' language pairs")
    report["matcher"] = automatic.settings.matcher
    return render(report, output)


def calibrate_store(store, settings: Settings, pool_name: str, level: float, output: str) -> str:
    """The same from the campaign store and pool POOL_NAME's judging plan (`estimate_plan`)."""
    from sepia.commands.common import warn
    from sepia.services.plan_estimates import estimate_plan
    from sepia.services.scores import NothingToScore
    from sepia.store.errors import ImportRefused

    if settings.matcher == "human":
        raise click.UsageError("--plan corrects an automatic matcher: choose --matcher binarized, softmatch, "
                               "exact or a plug-in")
    try:
        report, warnings = estimate_plan(store, settings, pool_name, level)
    except (ImportRefused, NothingToScore) as exc:
        raise click.ClickException(str(exc)) from None
    for message in warnings:
        warn(message)
    return render(report, output)


def render(report: dict, output: str) -> str:
    if output == "json":
        return json.dumps(stamped(report), ensure_ascii=False, indent=1) + "\n"
    if output == "tsv":
        return calibrate_tsv(report)
    return calibrate_text(report)


def calibrate_tsv(report: dict) -> str:
    from sepia.metaeval.render import fmt

    lines = ["language_pair\trun_id\tother_run_id\tautomatic\testimate\tlow\thigh\tlambda\tjudged\ttopics\tdecided"]
    for group in report["language_pairs"]:
        for r in group["runs"]:
            lines.append("\t".join([group["language_pair"], r["run_id"], "", *(fmt(r[k], 4) for k in
                                   ("automatic", "estimate", "low", "high", "lambda")), str(r["judged"]),
                                    str(r["topics"]), ""]))
        for p in group["pairs"]:
            lines.append("\t".join([group["language_pair"], p["a"], p["b"], *(fmt(p[k], 4) for k in
                                   ("automatic", "estimate", "low", "high", "lambda")), str(p["judged"]),
                                    str(p["topics"]), str(p["decided"]).lower()]))
    return "\n".join(lines) + "\n"


def calibrate_text(report: dict) -> str:
    from sepia.metaeval.render import align, fmt
    from sepia.services.plan_estimates import no_interval

    level = f"{100 * report['level']:g}%"
    sample = ("a sample of every topic's nuggets (item-level plan: PPI on each topic's sums, jackknife over the "
              "nuggets" if report.get("unit") == "items" else "a sample of topics (PPI++, power-tuned lambda")
    lines = [f"Human F3 estimated from the {report['matcher'].upper()} matcher's scores of every topic and the "
             f"human judgments of {sample}, finite-population correction, {level} intervals)",
             "Intervals are clipped to the values a mean can take ([0, 1]; [-1, 1] for differences), which keeps "
             "their coverage; the estimates are not, so that they stay unbiased."]
    for group in report["language_pairs"]:
        state = ("every topic judged: the estimate is the human F3" if group["complete"]
                 else f"{group['judged_nuggets']} of the {group['nuggets']} nuggets judged on every topic" if "judged_nuggets" in group
                 else f"{group['judged']} of {group['topics']} topics judged")
        lines += ["", f"{group['language_pair']} ({state})"]
        if (why := no_interval(group)) is not None:
            lines.append(why)
            continue
        if group.get("projected_width") is not None and group["planned"] > group["judged"]:
            lines.append(f"mean interval width {group['mean_width']:.3f} now, {group['projected_width']:.3f} projected "
                         f"once the {group['planned']} planned topics are judged"
                         + (f" ({group['judgments_left']} more judgments)" if "judgments_left" in group else ""))
        rows = [["RUN", "AUTOMATIC", "ESTIMATE", "LOW", "HIGH", "LAMBDA"]]
        rows += [[r["run_id"], *(fmt(r[k], 4) for k in ("automatic", "estimate", "low", "high")), fmt(r["lambda"], 2)]
                 for r in group["runs"]]
        lines += align(rows, indent="")
        if group["pairs"]:
            lines += ["", "Differences A - B (decided: the interval excludes 0)"]
            rows = [["A - B", "AUTOMATIC", "ESTIMATE", "LOW", "HIGH", "DECIDED"]]
            rows += [[f"{p['a']} - {p['b']}", *(fmt(p[k], 4) for k in ("automatic", "estimate", "low", "high")),
                      "yes" if p["decided"] else "no"] for p in group["pairs"]]
            lines += align(rows, indent="")
    return "\n".join(lines) + "\n"
