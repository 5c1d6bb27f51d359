"""Plain-text tables of per-assessor quality, dispute rates and score changes between rounds, from
their JSON-ready dicts (`sepia agreement --by`, `--after`)."""
from __future__ import annotations

from typing import Sequence

from sepia.metaeval.render import align, fmt


def quality_text(rows: Sequence[dict], pairs: Sequence[dict]) -> str:
    lines = ["Per assessor (adjudicated: items an organiser decided; lone dissent: of the items three or more",
             "assessors decided, those where this one alone differs from all the others, who agree):"]
    lines += align([["kind", "assessor", "items", "adjudicated", "agree", "agreement", "3+ decided", "alone",
                     "lone dissent", "median s"]] +
                   [[r["kind"], r["assessor"], str(r["items"]), str(r["adjudicated"]), str(r["agree_adjudicated"]),
                     fmt(r["agreement_adjudicated"]), str(r["shared"]), str(r["lone_dissents"]),
                     fmt(r["lone_dissent_rate"]), fmt(r["median_seconds"], 1)] for r in rows]) if rows \
        else ["  - (no named assessor)"]
    lines += ["", "Cohen's kappa per pair of assessors (weighted: linear steps, for partial matches and "
                  "relevance levels):"]
    lines += align([["kind", "first", "second", "items", "kappa", "weighted", "weights"]] +
                   [[p["kind"], p["first"], p["second"], str(p["units"]), fmt(p["kappa"]), fmt(p["weighted"]),
                     p["weights"]] for p in pairs]) if pairs else ["  - (no two assessors decided the same item)"]
    return "\n".join(lines) + "\n"


def rates_text(by: str, rows: Sequence[dict]) -> str:
    lines = [f"Disputes by {by} (items two or more assessors decided; disputed: they did not all agree):"]
    lines += align([["kind", by, "items", "disputed", "rate"]] +
                   [[r["kind"], r["group"], str(r["units"]), str(r["disputed"]), fmt(r["rate"])] for r in rows]) \
        if rows else ["  - (no item decided by two assessors)"]
    return "\n".join(lines) + "\n"


def changes_text(changes: Sequence[dict]) -> str:
    lines = ["Human F between the two rounds, the change split by assessor and by topic (parts add up to it):"]
    for c in changes:
        lines += ["", f"{c['run_id']}: {fmt(c['before'], 4)} -> {fmt(c['after'], 4)} ({c['change']:+.4f})"]
        for title, parts in (("assessor", c["by_assessor"]), ("topic", c["by_topic"])):
            lines += align([[title, "part"]] + [[k, f"{v:+.4f}"] for k, v in parts.items()]) if parts else []
    return "\n".join(lines) + "\n"
