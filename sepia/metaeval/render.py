"""Plain-text tables for the `metaeval` and `agreement` reports (the JSON form is the data itself)."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from sepia.metaeval.correlation import COEFFICIENTS, LEVELS
from sepia.text.columns import aligned
from sepia.text.plural import counted


def json_ready(value):
    """NaN -> None and numpy numbers -> Python numbers, so that a report is valid JSON."""
    if isinstance(value, dict):
        return {k: json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    if isinstance(value, (float, np.floating)):
        return float(value) if np.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    return value


def fmt(value, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def align(rows: list[list[str]], indent: str = "  ") -> list[str]:
    """A table of the reports, indented under its heading (sepia.text.columns)."""
    return aligned(rows, indent=indent)


def measure_grid(values: dict, digits: int = 3) -> list[str]:
    """levels x coefficients."""
    rows = [["level"] + list(COEFFICIENTS)]
    rows += [[level] + [fmt(values.get(level, {}).get(c), digits) for c in COEFFICIENTS] for level in LEVELS
             if level in values]
    return align(rows)


def metaeval_text(report: dict, disagreement: dict | None = None, listing_limit: int | None = None) -> str:
    s = report["settings"]
    lines = [f"Meta-evaluation: {counted(report['runs'], 'run')} x {counted(report['topics'], 'topic')}; automatic matchers: "
             f"{', '.join(report['matchers'])}; human = assessor judgments",
             f"({s['permutations']} permutations (Perm-Both) and bootstrap resamples, "
             f"{s['repetitions']} half splits, seed {s['seed']})", "", "Run scores (ranked by human score):"]
    names = report["matchers"]
    lines += align([["run", "human"] + names] + [[r["run_id"], fmt(r["human"], 4)] + [fmt(r[n], 4) for n in names]
                                                  for r in report["scores"]])
    for name in names:
        lines += ["", f"Correlation of {name} with human scores (runs = systems, topics = inputs):"]
        lines += measure_grid(report["correlations"][name])
        ci = report["intervals"][name]
        lines.append(f"  system-level {int(s['confidence'] * 100)}% bootstrap intervals (runs and topics resampled): "
                     + "; ".join(f"{c} [{fmt(ci[c]['low'])}, {fmt(ci[c]['high'])}]" for c in COEFFICIENTS))
        rk = report["ranking"][name]
        lines.append(f"  run ranking against the human ranking: Kendall tau {fmt(rk['tau'])}, tau-AP {fmt(rk['tau_ap'])}")
    if "discriminative_power" in report:
        lines += ["", "Discriminative power (mean p-value over matcher pairs; smaller separates metrics better):"]
        lines += measure_grid(report["discriminative_power"])
        lines += ["", "Ranking consistency (mean Kendall tau-b between matcher rankings on random topic halves; "
                      "larger is more stable):"]
        lines += measure_grid(report["ranking_consistency"]) if report["ranking_consistency"] else \
            ["  - (fewer than four topics)"]
        lines += ["", "Permutation-test p-values between matchers (system level):"]
        lines += align([["pair"] + list(COEFFICIENTS)] +
                       [[pair] + [fmt(p.get(f"system/{c}")) for c in COEFFICIENTS]
                        for pair, p in report["pair_pvalues"].items()])
    else:
        lines += ["", "Discriminative power and ranking consistency need at least two automatic matchers."]
    if disagreement is not None:
        lines += ["", *disagreement_text(disagreement, listing_limit)]
    return "\n".join(lines) + "\n"


def disagreement_text(d: dict, limit: int | None = None) -> list[str]:
    c = d["counts"]
    lines = [f"Binarized matcher (theta {d['theta']}) against assessors, {d['judged']} judged (response, nugget) "
             f"pairs: both {c['both']}, neither {c['neither']}, automatic only {c['automatic only']}, "
             f"human only {c['human only']}"]
    if d["unknown"]:
        lines.append(f"  ({d['unknown']} judged pairs name a topic, nugget, run or answer not in the inputs)")
    if not d["rows"]:
        return lines
    lines += align([["topic", "type", "both", "neither", "auto only", "human only"]] +
                   [[g["topic_id"], g["answer_type"], str(g.get("both", 0)), str(g.get("neither", 0)),
                     str(g.get("automatic only", 0)), str(g.get("human only", 0))] for g in d["by_topic"]])
    rows = d["rows"] if limit is None else d["rows"][:limit]
    lines += ["", "Disagreements, by topic and answer type (overlap = softmatch score):"]
    current = None
    for r in rows:
        if (r["topic_id"], r["answer_type"]) != current:
            current = (r["topic_id"], r["answer_type"])
            lines.append(f"  {r['topic_id']} {r['answer_type']}")
        lines.append(f"    [{r['kind']}] overlap {r['overlap']:.3f}  {r['run_id']} #{r['answer_rank']} "
                     f"{r['nugget_id']}: {r['nugget']}")
        lines.append(f"        SR: {r['response']}")
    if limit is not None and len(d["rows"]) > limit:
        lines.append(f"  ... {len(d['rows']) - limit} more (--limit 0 lists all)")
    return lines


def agreement_text(rows: Sequence[dict], assessors: Sequence[dict], splits: Sequence[dict]) -> str:
    lines = ["Assessor agreement (items decided by two or more assessors); yes/no counts a partial support",
             "(0.5) as a yes, 3 cat. keeps support, partial and not apart (judgments only):"]
    lines += align([["kind", "lang", "items", "decisions", "assessors", "observed", "kappa yes/no", "alpha yes/no",
                     "kappa 3 cat.", "alpha 3 cat."]] +
                   [[r["kind"], r["lang"], str(r["items"]), str(r["decisions"]), str(r["assessors"]),
                     fmt(r["observed"]), fmt(r["kappa"]), fmt(r["alpha"]), fmt(r.get("kappa3")), fmt(r.get("alpha3"))]
                    for r in rows])
    lines += ["", "Lone dissent per assessor (items with three or more decisions where they alone disagree):"]
    lines += align([["kind", "assessor", "items", "alone", "share"]] +
                   [[a["kind"], a["assessor"], str(a["decided"]), str(a["lone_dissents"]), fmt(a["share"])]
                    for a in assessors]) if assessors else ["  - (no item has three or more named decisions)"]
    lines += ["", "Most disputed items (split decisions, closest to an even split first):"]
    lines += align([["kind", "yes/total", "minority", "minority side", "item"]] +
                   [[s["kind"], f"{s['yes']}/{s['decisions']}", fmt(s["minority"], 2),
                     ",".join(s["dissenters"]) or "-", s["label"]] for s in splits]) if splits else ["  - (none)"]
    return "\n".join(lines) + "\n"


def aeollm_text(rows: Sequence[dict], overall: dict) -> str:
    """Per task and overall; 'tau/rho over' is how many questions tau and rho average (those whose
    human and predicted scores both vary), 'constant' the questions whose human scores do not."""
    table = [["task", "questions", "answers", "acc", "tau", "rho", "tau/rho over", "constant human"]]
    table += [[r["task"], str(r["questions"]), str(r["answers"]), fmt(r["acc"], 4), fmt(r["tau"], 4), fmt(r["rho"], 4),
               str(r["tau_rho_questions"]), str(r["constant_human"])]
              for r in [*rows, overall]]
    return "\n".join(align(table, indent="")) + "\n"


def aeollm_leaderboard_text(entries: Sequence[dict]) -> str:
    """One row per evaluator, best first: overall figures, then acc per task."""
    tasks = list(dict.fromkeys(t["task"] for e in entries for t in e["tasks"]))
    table = [["rank", "run", "answers", "acc", "tau", "rho", *(f"acc {t}" for t in tasks)]]
    for e in entries:
        o, by_task = e["overall"], {t["task"]: t["acc"] for t in e["tasks"]}
        table.append([str(e["rank"]), e["run"], str(o["answers"]), fmt(o["acc"], 4), fmt(o["tau"], 4),
                      fmt(o["rho"], 4), *(fmt(by_task.get(t), 4) for t in tasks)])
    return "\n".join(align(table, indent="")) + "\n"


def runpair_text(c: dict, measure: str) -> str:
    """`sepia metaeval compare`: per-topic scores, the mean difference and both paired tests."""
    a, b = c["run_a"], c["run_b"]
    rows = [["topic", "A", "B", "A - B"]]
    rows += [[t, fmt(x, 4), fmt(y, 4), fmt(None if x is None or y is None else x - y, 4)]
             for t, x, y in zip(c["topics"], c["a"], c["b"])]
    rows.append(["mean", fmt(c["mean_a"], 4), fmt(c["mean_b"], 4), fmt(c["difference"], 4)])
    level = int(round(c["confidence"] * 100))
    lines = [f"A = {a}, B = {b}: {measure} over {len(c['topics'])} topics scored for both", *align(rows), "",
             f"mean difference A - B: {fmt(c['difference'], 4)}",
             f"paired randomization test ({c['samples']} sign flips, seed {c['seed']}): two-sided p = "
             f"{fmt(c['randomization_p'], 4)}",
             f"paired bootstrap ({c['samples']} resamples of topics): {level}% interval "
             f"[{fmt(c['low'], 4)}, {fmt(c['high'], 4)}], two-sided p = {fmt(c['bootstrap_p'], 4)}"]
    if c["left_out"]:
        lines.append(f"left out (scored for one run only): {', '.join(c['left_out'])}")
    return "\n".join(lines) + "\n"

