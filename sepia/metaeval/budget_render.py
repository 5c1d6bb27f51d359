"""The `sepia metaeval budget` report as text, with the aims printed beside the figures."""
from __future__ import annotations

import textwrap

from sepia.metaeval.render import align, fmt
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
