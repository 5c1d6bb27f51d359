"""`sepia metaeval scores` as a table or as long TSV rows (the JSON form is the report itself)."""
from __future__ import annotations

from sepia.metaeval.correlation import COEFFICIENTS, LEVELS
from sepia.metaeval.render import align, fmt, measure_grid

ACCURACY_LEVELS = ("system", "input")


def scores_text(reports: list[dict], settings: dict) -> str:
    lines = []
    for r in reports:
        lines += [f"[{r['group']}] {len(r['metrics'])} metrics against {r['human']}: {r['systems']} systems x "
                  f"{r['inputs']} inputs", "", "Correlation with the human scores:"]
        lines += align([["metric", "level", *COEFFICIENTS]] +
                       [[name if level == LEVELS[0] else "", level,
                         *(fmt(r["correlations"][name][level][c]) for c in COEFFICIENTS)]
                        for name in r["metrics"] for level in LEVELS])
        lines += ["", "Pairwise accuracy with ties: acc_eq, and acc_eq* at the epsilon that maximises it "
                      "(system: mean scores; input: system pairs within each input):"]
        heads = [f"{level} {h}" for level in ACCURACY_LEVELS for h in ("acc_eq", "acc_eq*", "epsilon")]
        lines += align([["metric", *heads]] +
                       [[name, *(fmt(r["accuracy"][name][level][k], 4 if k == "epsilon" else 3)
                                 for level in ACCURACY_LEVELS for k in ("acc_eq", "acc_eq_calibrated", "epsilon"))]
                        for name in r["metrics"]])
        lines += ["", "Williams' test (system level, Pearson): one-sided p that the first correlates better:"]
        lines += align([["better", "worse", "r better", "r worse", "r between", "t", "p"]] +
                       [[w["better"], w["worse"], fmt(w["r_better"]), fmt(w["r_worse"]), fmt(w["r_between"]),
                         fmt(w["t"]), fmt(w["p"], 4)] for w in r["williams"]]) \
            if r["williams"] else ["  - (needs two metrics and four systems or more)"]
        lines += ["", "Diagnostics (ties: share of tied pairs over all cells, and within inputs on average):"]
        lines += align([["score", "cells", "unique", "tie ratio", "within inputs"]] +
                       [[name, str(d["cells"]), str(d["unique"]), fmt(d["tie_ratio"]), fmt(d["input_tie_ratio"])]
                        for name, d in r["diagnostics"].items()])
        if "discriminative_power" in r:
            lines += ["", f"Discriminative power (mean permutation p-value over metric pairs, "
                          f"{settings['permutations']} Perm-Both permutations; smaller separates metrics better):"]
            lines += measure_grid(r["discriminative_power"])
            lines += ["", f"Ranking consistency (mean Kendall tau-b between metric rankings on "
                          f"{settings['repetitions']} random input halves; larger is more stable):"]
            lines += measure_grid(r["ranking_consistency"]) if r["ranking_consistency"] else \
                ["  - (fewer than four inputs)"]
        else:
            lines += ["", "Discriminative power and ranking consistency need two metrics or more."]
        lines.append("")
    return "\n".join(lines)


def scores_tsv(reports: list[dict]) -> str:
    """group, item (a metric, two metrics, or a level/coefficient), measure, value."""
    rows = [("group", "item", "measure", "value")]
    for r in reports:
        g = r["group"]
        for name in r["metrics"]:
            rows += [(g, name, f"{level}/{c}", r["correlations"][name][level][c]) for level in LEVELS
                     for c in COEFFICIENTS]
            rows += [(g, name, f"{k}/{level}", v) for level in ACCURACY_LEVELS
                     for k, v in r["accuracy"][name][level].items()]
        for name, d in r["diagnostics"].items():
            rows += [(g, name, k, v) for k, v in d.items()]
        for w in r["williams"]:
            rows += [(g, f"{w['better']} > {w['worse']}", f"williams_{k}", w[k]) for k in ("t", "p")]
        for key in ("discriminative_power", "ranking_consistency"):
            rows += [(g, f"{level}/{c}", key, v) for level, by in r.get(key, {}).items() for c, v in by.items()]
    return "".join("\t".join("" if v is None else v if isinstance(v, str) else f"{v:.6g}" for v in row) + "\n"
                   for row in rows)
