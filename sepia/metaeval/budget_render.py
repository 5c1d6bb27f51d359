"""The `sepia metaeval budget` report as text, with the aims printed beside the figures."""
from __future__ import annotations

from sepia.metaeval.render import align, fmt

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


def _item_table(group: dict) -> list[str]:
    header = ["budget", "judgments", "topic-level", "coverage", "aim", "width", "topic-level", "ratio", "r"]
    header += ["diff. coverage", "width", "topic-level", "ratio", "decided", "topic-level"] if group["runs"] >= 2 else []
    table = [header]
    for items, topics in zip(group["item_plans"], group["budgets"]):
        means, plain = items["means"], topics.get("means")
        row = [f"{items['budget']:g}%", f"{items['judgments']:,}", f"{topics['judgments']:,.0f}" if plain else "-",
               fmt(means["coverage"]), coverage_verdict(items["budget"], means["coverage"]), fmt(means["width"]),
               fmt(plain["width"]) if plain else "-", _ratio(means, plain), fmt(items["correlation"], 2)]
        if group["runs"] >= 2:
            d, plain_d = items["differences"], topics.get("differences")
            row += [fmt(d["coverage"]), fmt(d["width"]), fmt(plain_d["width"]) if plain_d else "-", _ratio(d, plain_d),
                    fmt(d["decided"]), fmt(plain_d["decided"]) if plain_d else "-"]
        table.append(row)
    return align(table)


def _ratio(items: dict, topics: dict | None) -> str:
    """The item-level width over the topic-level one from the same budget."""
    return fmt(items["width"] / topics["width"]) if topics and topics["width"] > 0 else "-"


def budget_text(report: dict, matcher: str) -> str:
    s = report["settings"]
    level = f"{100 * s['level']:g}%"
    lines = []
    for group in report["language_pairs"]:
        lines += ["", f"{group['language_pair']}: {group['runs']} runs x {group['topics']} topics, matcher {matcher}, "
                      f"{s['trials']} random topic samples per budget (seed {s['seed']}), {level} intervals",
                  "Run means (PPI++ against the human-only estimate from the same topics; r = the matcher's "
                  "per-topic correlation with human F3, per run):"]
        lines += _table(group["budgets"], "means", group["correlation"], with_tau=True)
        if group["runs"] >= 2:
            lines += ["Differences between two runs (r per pair of runs):"]
            lines += _table(group["budgets"], "differences", group["difference_correlation"], with_tau=False)
        if group.get("item_plans"):
            lines += ["Item-level plans (the budget's share of every topic's nuggets, at least 2, judged for every run) "
                      "against the topic-level plans above (judgments = human judgments a plan costs; ratio = item-level "
                      "width / topic-level width; r = the matcher's correlation with the human match values over a "
                      "run's items):"]
            lines += _item_table(group)
    low, high = COVERAGE_AIM
    lines += ["", f"coverage = share of {level} intervals containing the full human value; width = mean interval "
                  "width; ratio = PPI++ width / human-only width; tau = Kendall's tau-b of the estimated run ranking "
                  "against the full human ranking (mean over samples); decided = share of pairs whose interval excludes 0.",
              f"Aims: coverage {100 * low:g}-{100 * high:g}% at budgets of {AIMED_FROM}% and more (aim column); "
              "ratio <= 1 (power tuning), falling as r grows. '-': fewer than two topics judged, no interval."]
    return "\n".join(lines).lstrip("\n") + "\n"
