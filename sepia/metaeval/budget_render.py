"""The `sepia metaeval budget` report as text, with the aims printed beside the figures."""
from __future__ import annotations

import textwrap

from sepia.metaeval.render import align, fmt
from sepia.metaeval.shrinkage import MIN_UNITS
from sepia.text.plural import counted

WIDTH = 100  # the report's lines, tables included, fit this many columns

COVERAGE_AIM = (0.93, 0.97)
AIMED_FROM = 20   # per cent of the topics: the coverage aim holds from this budget on


def coverage_verdict(budget: float, coverage: float) -> str:
    if budget < AIMED_FROM:
        return "-"
    if budget >= 100:
        return "exact"   # every topic (or nugget) judged: the interval has width 0
    low, high = COVERAGE_AIM
    return "met" if low <= coverage <= high else "low" if coverage < low else "high"


def _table(rows: list[dict], key: str, correlation: float, with_tau: bool) -> list[str]:
    header = ["budget", "judged", "coverage", "human only", "aim", "width", "human only", "ratio", "r"]
    header += ["tau", "human only"] if with_tau else ["decided", "human only"]
    table = [header]
    for row in rows:
        cells = [f"{row['budget']:g}%", f"{row['judged']}/{row['topics']}"]
        figures = row.get(key)
        if figures is None:
            table.append(cells + ["-"] * (len(header) - 2))   # fewer than two topics judged: no interval
            continue
        cells += [fmt(figures["coverage"]), fmt(figures["human_only_coverage"]),
                  coverage_verdict(row["budget"], figures["coverage"]), fmt(figures["width"]),
                  fmt(figures["human_only_width"]), fmt(figures["width_ratio"]), fmt(correlation, 2)]
        cells += ([fmt(figures["tau"]), fmt(figures["human_only_tau"])] if with_tau
                  else [fmt(figures["decided"]), fmt(figures["human_only_decided"])])
        table.append(cells)
    return align(table)


def _item_tables(group: dict) -> list[str]:
    """The item-level plans beside the topic-level ones: run means, then (two runs or more) the
    differences between runs, each table within 100 columns."""
    means_rows = [["budget", "judgments", "topic-level", "coverage", "aim", "width", "topic-level", "ratio", "r"]]
    diff_rows = [["budget", "coverage", "width", "topic-level", "ratio", "decided", "topic-level"]]
    for items, topics in zip(group["item_plans"], group["budgets"]):
        means, plain = items["means"], topics.get("means")
        budget = f"{items['budget']:g}%"
        means_rows.append([budget, f"{items['judgments']:,}", f"{topics['judgments']:,.0f}" if plain else "-",
                           fmt(means["coverage"]), coverage_verdict(items["budget"], means["coverage"]),
                           fmt(means["width"]), fmt(plain["width"]) if plain else "-", _ratio(means, plain),
                           fmt(items["correlation"], 2)])
        d, plain_d = items.get("differences"), topics.get("differences")
        if d is not None:
            diff_rows.append([budget, fmt(d["coverage"]), fmt(d["width"]), fmt(plain_d["width"]) if plain_d else "-",
                              _ratio(d, plain_d), fmt(d["decided"]), fmt(plain_d["decided"]) if plain_d else "-"])
    lines = ["Item-level run means:"] + align(means_rows)
    if group["runs"] >= 2:
        lines += ["Item-level differences between two runs:"] + align(diff_rows)
    return lines


def _ratio(items: dict, topics: dict | None) -> str:
    """The item-level width over the topic-level one from the same budget."""
    return fmt(items["width"] / topics["width"]) if topics and topics["width"] > 0 else "-"


def budget_text(report: dict, matcher: str) -> str:
    s = report["settings"]
    level = f"{100 * s['level']:g}%"
    lines = []
    for group in report["language_pairs"]:
        lines += [""] + _wrapped(f"{group['language_pair']}: {counted(group['runs'], 'run')} x {counted(group['topics'], 'topic')}, matcher "
                                 f"{matcher}, {s['trials']} random topic samples per budget (seed {s['seed']}), "
                                 f"{level} intervals")
        lines += _wrapped("Run means (PPI++ against the human-only estimate from the same topics; r = the matcher's "
                          "per-topic correlation with human F3, per run):")
        lines += _table(group["budgets"], "means", group["correlation"], with_tau=True)
        if group["runs"] >= 2:
            lines += ["Differences between two runs (r per pair of runs):"]
            lines += _table(group["budgets"], "differences", group["difference_correlation"], with_tau=False)
        if group.get("item_plans"):
            lines += _wrapped("Item-level plans (the budget's share of every topic's nuggets, at least 2, judged for "
                              "every run) against the topic-level plans above (judgments = human judgments a plan "
                              "costs; ratio = item-level width / topic-level width; r = the matcher's correlation with "
                              "the human match values over a run's items):")
            lines += _item_tables(group)
    low, high = COVERAGE_AIM
    lines += [""] + _wrapped(f"coverage = share of {level} intervals containing the full human value; width = mean "
                             "interval width; ratio = PPI++ width / human-only width; tau = Kendall's tau-b of the "
                             "estimated run ranking against the full human ranking (mean over samples); decided = "
                             "share of pairs whose interval excludes 0.")
    lines += _wrapped(f"Aims: coverage {100 * low:g}-{100 * high:g}% at budgets of {AIMED_FROM}% and more (aim column; "
                      f"'-' below {AIMED_FROM}%, where no aim is set); ratio <= 1 (power tuning), falling as r grows. "
                      "A row of '-' (or a topic-level '-'): fewer than two topics judged, no interval.")
    return "\n".join(lines).lstrip("\n") + "\n"


def _wrapped(text: str) -> list[str]:
    """A paragraph of the report in lines of at most WIDTH columns."""
    return textwrap.wrap(text, WIDTH, break_long_words=False, break_on_hyphens=False)


# The aims for item-level plans with cross-fitted learned predictions, per budget: the least tau of
# the estimated ranking, the widest run-mean interval, the coverage's range.
LEARNED_AIMS = {30: (0.85, 0.10, COVERAGE_AIM), 20: (0.80, None, (COVERAGE_AIM[0], 1.0))}
PLAN_LABELS = {("topics", "binarized"): "topics BINARIZED", ("topics", "learned"): "topics learned",
               ("items", "binarized"): "items BINARIZED", ("items", "learned"): "items learned",
               ("active", "learned"): "active learned", ("shrunk", "learned"): "active shrunk"}


def _later_waves(waves: int) -> str:
    return "one more wave, the model refitted on every judgment after it" if waves == 2 else \
        f"{waves - 1} more waves, the model refitted on every judgment after each"


def learned_budget_text(report: dict) -> str:
    """Every plan kind per budget, at the judgments each costs, in lines of at most 100 columns."""
    s = report["settings"]
    level = f"{100 * s['level']:g}%"
    lines = []
    for group in report["language_pairs"]:
        lines += ["", f"{group['language_pair']}: {group['runs']} runs x {group['topics']} topics, {s['trials']} random "
                      f"plans per budget (seed {s['seed']}), {level} intervals",
                  "topics: every run judged on the budget's share of the topics (PPI++, power-tuned lambda);",
                  "items: each response judged on its own sample of the budget's share of its topic's nuggets",
                  "(power-tuned lambda); learned: the learned matcher trained on the plan's judgments only,",
                  "cross-fitted (5 folds of topics or items); active: half of each response's sample first,",
                  "the model cross-fitted on it, the rest drawn where it is unsure (inverse-probability",
                  f"weighted) in {_later_waves(s.get('waves', 2))}.",
                  "active shrunk: those estimates shrunk toward the model's own estimates of the runs, from",
                  "models that never saw their judgments (empirical Bayes; robust intervals, whose coverage",
                  "is averaged over the runs, not every run's own).",
                  "Run means, then differences of two runs (diff.):"]
        if report.get("feature"):
            lines += [f"The learned model's features include the {report['feature']} matcher's values."]
        table = [["budget", "plan", "judgments", "coverage", "width", "r", "tau", "diff.cov", "width", "r", "decided"]]
        for row in group["plans"]:
            means, diff = row["means"], row.get("differences") or {}
            table.append([f"{row['budget']:g}%", PLAN_LABELS[row["plan"], row["matcher"]], f"{row['judgments']:,.0f}",
                          fmt(means["coverage"]), fmt(means["width"]), fmt(row["correlation"], 2), fmt(means["tau"]),
                          fmt(diff.get("coverage")), fmt(diff.get("width")), fmt(row["difference_correlation"], 2),
                          fmt(diff.get("decided"))])
        lines += align(table)
        lines += _learned_aims(group["plans"])
        seconds = sum(r["seconds"] for r in group["plans"] if r["plan"] == "items" and r["matcher"] == "learned")
        count = len(s["budgets"])
        lines += [f"Learned predictions: {seconds:.0f} s of CPU for {s['trials']} plans of each kind at "
                  f"{count} budget{'s' if count != 1 else ''}."]
        fallbacks = sum(r["fallbacks"] for r in group["plans"] if r["fallbacks"] and r["plan"] != "shrunk")
        if fallbacks:
            lines += [f"{fallbacks} learned plans had too few judgments (or one decision only) to train the "
                      "model: BINARIZED", "stands in for them."]
        unshrunk = sum(r["fallbacks"] or 0 for r in group["plans"] if r["plan"] == "shrunk")
        if unshrunk:
            lines += [f"{unshrunk} active plans were not shrunk (fewer than {MIN_UNITS} runs, or too few judgments to "
                      "hold", "runs out): their estimates as they are."]
    lines += ["", f"coverage = share of {level} intervals containing the full human value; width = mean width; "
                  "r = the", "predictor's correlation with the human values (per topic, per pair of runs; per item "
                  "for items);", "tau = Kendall's tau-b of the estimates against the full human values; decided = "
                  "share of intervals", "excluding 0."]
    return "\n".join(lines).lstrip("\n") + "\n"


def _learned_aims(plans: list[dict]) -> list[str]:
    """Item-level and active learned plans against their aims, where a budget has them."""
    lines = []
    for row in plans:
        aims = LEARNED_AIMS.get(int(row["budget"])) if row["budget"] == int(row["budget"]) else None
        if not aims or row["matcher"] != "learned" or row["plan"] == "topics":
            continue
        tau_aim, width_aim, (low, high) = aims
        means = row["means"]
        parts = [_verdict("tau", means["tau"], tau_aim, at_least=True)]
        if width_aim is not None:
            parts.append(_verdict("width", means["width"], width_aim, at_least=False))
        covered = means["coverage"] is not None and low <= means["coverage"] <= high
        span = f"{100 * low:g}-{100 * high:g}%" if high < 1 else f">= {100 * low:g}%"
        parts.append(f"coverage {fmt(means['coverage'])} (aim {span}: {'met' if covered else 'not met'})")
        lines += [f"Aims at {row['budget']:g}%, {PLAN_LABELS[row['plan'], row['matcher']]}:"] + [
            f"  {part}" for part in parts]
    return lines


def _verdict(name: str, value: float | None, aim: float, at_least: bool) -> str:
    if value is None:
        return f"{name} - (undefined)"
    met = value >= aim if at_least else value <= aim
    sign = ">=" if at_least else "<="
    return f"{name} {value:.3f} (aim {sign} {aim:.2f}: {'met' if met else f'short by {abs(value - aim):.3f}'})"
