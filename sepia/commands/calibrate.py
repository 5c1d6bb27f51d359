"""`sepia evaluate --calibrate JUDGMENTS.tsv`: automatic scores corrected by the human judgments of a
random sample of topics (PPI++), as a table, TSV or JSON."""
from __future__ import annotations

import json

import click

from sepia.scoring.evaluate import Settings
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
        return calibrate_store(settings, plan_pool, level, output)
    return calibrate_files(gold_path, run_paths, calibrate_path, settings, auto_specs, level, output)


def calibrate_files(gold_path, run_paths, calibrate_path, settings: Settings, auto_specs, level: float,
                    output: str) -> str:
    """Everything is read and checked before anything is estimated (`sepia.api.calibrate`); a problem
    is one line and exit 1."""
    from sepia import api
    from sepia.commands.common import api_or_exit

    if not gold_path or not run_paths:
        raise click.UsageError("--calibrate needs the gold standard (--gold) and the runs (--run)")
    if settings.matcher == "human":
        raise click.UsageError("--calibrate corrects an automatic matcher: choose --matcher binarized, softmatch, "
                               "exact, a plug-in or --auto-judgments")
    with api_or_exit():
        estimates = api.calibrate(gold=gold_path, runs=list(run_paths), judgments=calibrate_path, level=level,
                                  auto_judgments=tuple(auto_specs or ()), config=settings)
    return render(estimates.report, output)


def calibrate_store(settings: Settings, pool_name: str, level: float, output: str) -> str:
    """The same from the campaign store and pool POOL_NAME's judging plan (`sepia.api.plan_estimates`)."""
    from sepia import api
    from sepia.commands.common import warn

    if settings.matcher == "human":
        raise click.UsageError("--plan corrects an automatic matcher: choose --matcher binarized, softmatch, "
                               "exact or a plug-in")
    try:
        estimates = api.plan_estimates(pool=pool_name, level=level, config=settings)
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    for message in estimates.warnings:
        warn(message)
    return render(estimates.report, output)


def render(report: dict, output: str) -> str:
    if output == "json":
        return json.dumps(stamped(report), ensure_ascii=False, indent=1) + "\n"
    if output == "tsv":
        return calibrate_tsv(report)
    return calibrate_text(report)


def calibrate_tsv(report: dict) -> str:
    from sepia.metaeval.render import fmt

    from sepia.metaeval.item_estimates import shrunk_columns_of

    shrunk = shrunk_columns_of(report)      # an item plan's with the learned matcher: appended
    lines = ["\t".join(["language_pair", "run_id", "other_run_id", "automatic", "estimate", "low", "high", "lambda",
                        "judged", "topics", "decided", *shrunk])]
    for group in report["language_pairs"]:
        for r in group["runs"]:
            lines.append("\t".join([group["language_pair"], r["run_id"], "", *(fmt(r[k], 4) for k in
                                   ("automatic", "estimate", "low", "high", "lambda")), str(r["judged"]),
                                    str(r["topics"]), "", *(fmt(r.get(k), 4) for k in shrunk)]))
        for p in group["pairs"]:
            lines.append("\t".join([group["language_pair"], p["a"], p["b"], *(fmt(p[k], 4) for k in
                                   ("automatic", "estimate", "low", "high", "lambda")), str(p["judged"]),
                                    str(p["topics"]), str(p["decided"]).lower(), *(fmt(p.get(k), 4) for k in shrunk)]))
    return "\n".join(lines) + "\n"


def calibrate_text(report: dict) -> str:
    from sepia.metaeval.item_estimates import SHRUNK, shrunk_columns_of
    from sepia.metaeval.render import align, fmt
    from sepia.services.plan_estimates import no_interval

    level = f"{100 * report['level']:g}%"
    sample = ("a sample of every topic's nuggets (item-level plan: PPI on each response's sums, jackknife over the "
              "nuggets; an active plan's second wave weighted by 1/pi and combined with the first" if report.get("unit") == "items"
              else "a sample of topics (PPI++, power-tuned lambda")
    lines = [f"Human F3 estimated from the {report['matcher'].upper()} matcher's scores of every topic and the "
             f"human judgments of {sample}, finite-population correction, {level} intervals)",
             "Intervals are clipped to the values a mean can take ([0, 1]; [-1, 1] for differences), which keeps "
             "their coverage; the estimates are not, so that they stay unbiased."]
    if shrunk_columns_of(report):
        lines.append(f"SHRUNK: empirical Bayes toward the model's held-out estimates; {level} coverage averaged over runs")
    for group in report["language_pairs"]:
        state = ("every topic judged: the estimate is the human F3" if group["complete"]
                 else f"{group['judged_nuggets']} of the {group['nuggets']} nuggets judged on every topic" if "judged_nuggets" in group
                 else (f"{group['judged_items']} of the {group['items_total']} response and nugget pairs judged, each response "
                       "its own nuggets" + (f", {group['waves']} waves" if group["waves"] > 1 else "")) if "judged_items" in group
                 else f"{group['judged']} of {group['topics']} topics judged")
        lines += ["", f"{group['language_pair']} ({state})"]
        if (why := no_interval(group)) is not None:
            lines.append(why)
            continue
        if group.get("projected_width") is not None and group["planned"] > group["judged"]:
            lines.append(f"mean interval width {group['mean_width']:.3f} now, {group['projected_width']:.3f} projected "
                         f"once the {group['planned']} planned topics are judged"
                         + (f" ({group['judgments_left']} more judgments)" if "judgments_left" in group else ""))
        shrunk = SHRUNK if "shrunk" in (group["runs"] or [{}])[0] else ()
        rows = [["RUN", "AUTOMATIC", "ESTIMATE", "LOW", "HIGH", "LAMBDA", *("SHRUNK", "LOW", "HIGH")[:len(shrunk)]]]
        rows += [[r["run_id"], *(fmt(r[k], 4) for k in ("automatic", "estimate", "low", "high")), fmt(r["lambda"], 2),
                  *(fmt(r[k], 4) for k in shrunk)] for r in group["runs"]]
        lines += align(rows, indent="")
        if skipped := group.get("shrinkage", {}).get("skipped"):
            lines.append(f"Not shrunk: {skipped}.")
        if group["pairs"]:
            lines += ["", "Differences A - B (decided: the interval excludes 0)"]
            rows = [["A - B", "AUTOMATIC", "ESTIMATE", "LOW", "HIGH", "DECIDED"]]
            rows += [[f"{p['a']} - {p['b']}", *(fmt(p[k], 4) for k in ("automatic", "estimate", "low", "high")),
                      "yes" if p["decided"] else "no"] for p in group["pairs"]]
            lines += align(rows, indent="")
            if shrunk:     # a table of its own: two run IDs leave no room for more columns in 100
                lines += ["", "Differences A - B shrunk across the pairs"]
                rows = [["A - B", "SHRUNK", "LOW", "HIGH"]]
                rows += [[f"{p['a']} - {p['b']}", *(fmt(p[k], 4) for k in shrunk)] for p in group["pairs"]]
                lines += align(rows, indent="")
    return "\n".join(lines) + "\n"
