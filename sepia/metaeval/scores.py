"""`sepia metaeval scores`: any metric against a human score, from a score file.

The rows of a score file (`score_files`) become one systems x inputs matrix per metric, overall and
per value of a grouping column. For every metric against the human one the report gives:
- the sixteen correlation measures (four levels x Pearson, Spearman, tau-b, tau-c; `correlation`);
- pairwise accuracy with ties (acc_eq, Deutsch et al. 2023) and its tie-calibrated form acc_eq*
  with the epsilon that maximises it, over the systems' mean scores and over the systems' pairs
  within each input (inputs weigh equally, Deutsch et al.'s grouping by item; `ranking`);
- Williams' test between every two metrics at the system level (Pearson);
- the diagnostics of the correlation-measure study (Gao et al. 2024): number of unique values and
  the share of tied pairs, over all cells and within inputs;
and, with two metrics or more, each measure's discriminative power and ranking consistency.
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from itertools import combinations

import numpy as np

from sepia.metaeval.correlation import correlate, correlation_grid
from sepia.metaeval.properties import measure_properties
from sepia.metaeval.ranking import pairwise_accuracy, tie_calibrated_accuracy
from sepia.metaeval.score_files import ScoreRow, ScoreTable, natural_key
from sepia.metaeval.significance import williams_test

SHOWN_MISSING = 5   # system/input pairs named in a message about missing scores


@dataclass
class ScoreGrid:
    group: str                               # "all", or COLUMN=VALUE
    systems: list[str]
    inputs: list[str]
    human_name: str
    human: np.ndarray                        # systems x inputs, NaN where no system has the input
    metrics: dict[str, np.ndarray]
    warnings: list[str] = field(default_factory=list)


class _RepeatedCell(ValueError):
    """Two rows score the same cell: they differ only in a grouping column."""


def score_grids(table: ScoreTable, human: str, metrics=(), by: str | None = None) -> list[ScoreGrid]:
    """The overall grid and, with `by`, one per value of that column. ValueError says what is wrong.
    Without `by`, rows that differ only in a grouping column (an aspect, say) cannot make one grid:
    the overall grid is then left out when grouping, and is an error otherwise."""
    if by is not None and by not in table.columns:
        raise ValueError(f"no column {by!r} to group by; the file's extra columns: "
                         f"{', '.join(table.columns) or 'none'}")
    names = sorted({r.metric for r in table.rows}, key=natural_key)
    wanted = [human, *[m for m in metrics if m != human]]
    unknown = [m for m in wanted if m not in names]
    if unknown:
        raise ValueError(f"no metric {', '.join(map(repr, unknown))} in the scores; metrics found: {', '.join(names)}")
    chosen = [m for m in (wanted if metrics else names) if m != human]
    if not chosen:
        raise ValueError(f"only the human metric {human!r} is in the scores: nothing to compare with it")
    rows = [r for r in table.rows if r.metric == human or r.metric in chosen]
    grids = []
    try:
        grids.append(_grid("all", rows, human, chosen))
    except _RepeatedCell as exc:
        if by is None:
            raise ValueError(f"{exc}; give --by with the column that tells them apart "
                             f"({', '.join(table.columns)})") from None
    if by is not None:
        column = table.columns.index(by)
        values = sorted({r.extra[column] for r in rows}, key=natural_key)
        for value in values:
            try:
                grids.append(_grid(f"{by}={value}", [r for r in rows if r.extra[column] == value], human, chosen))
            except _RepeatedCell as exc:
                raise ValueError(f"{exc} within {by}={value}") from None
    return grids


def _grid(group: str, rows: list[ScoreRow], human: str, chosen: list[str]) -> ScoreGrid:
    systems = sorted({r.system for r in rows}, key=natural_key)
    inputs = sorted({r.input for r in rows}, key=natural_key)
    row, col = {s: i for i, s in enumerate(systems)}, {t: j for j, t in enumerate(inputs)}
    cells: dict[str, dict[tuple[str, str], ScoreRow]] = defaultdict(dict)
    for r in rows:
        first = cells[r.metric].get((r.system, r.input))
        if first is not None:
            raise _RepeatedCell(f"{first.where[0]}:{first.where[1]} and line {r.where[1]} both score system "
                                f"{r.system}, input {r.input} with {r.metric}")
        cells[r.metric][r.system, r.input] = r
    if human not in cells:
        raise ValueError(f"{group}: the human metric {human!r} has no scores here")
    everywhere = set().union(*(c.keys() for c in cells.values()))
    problems = []
    for metric in [human, *chosen]:
        lacking = sorted(everywhere - cells[metric].keys(), key=lambda k: (natural_key(k[0]), natural_key(k[1])))
        if lacking:
            shown = ", ".join(f"{s}/{t}" for s, t in lacking[:SHOWN_MISSING])
            more = f" and {len(lacking) - SHOWN_MISSING} more" if len(lacking) > SHOWN_MISSING else ""
            problems.append(f"{metric} lacks {len(lacking)} of the {len(everywhere)} system/input pairs "
                            f"other metrics score ({shown}{more})")
    if problems:
        prefix = "" if group == "all" else f"{group}: "
        raise ValueError(prefix + "; ".join(problems))
    matrices = {}
    for metric in [human, *chosen]:
        m = np.full((len(systems), len(inputs)), np.nan)
        for (s, t), r in cells[metric].items():
            m[row[s], col[t]] = r.value
        matrices[metric] = m
    warnings = []
    holes = len(systems) * len(inputs) - len(everywhere)
    if holes:
        warnings.append(f"{group}: {holes} system/input pairs have no score for any metric (left out)")
    if len(systems) < 4:
        warnings.append(f"{group}: {len(systems)} systems: system-level figures are trivial and Williams' test "
                        f"needs four or more")
    return ScoreGrid(group, systems, inputs, human, matrices.pop(human), matrices, warnings)


def tie_diagnostics(X) -> dict:
    """Unique values, and the share of tied pairs over all scored cells and within each input."""
    X = np.asarray(X, float)
    values = X[np.isfinite(X)]
    per_input = [_tie_ratio(column[np.isfinite(column)]) for column in X.T]
    per_input = [r for r in per_input if np.isfinite(r)]
    return {"cells": int(values.size), "unique": int(np.unique(values).size), "tie_ratio": _tie_ratio(values),
            "input_tie_ratio": float(np.mean(per_input)) if per_input else float("nan")}


def _tie_ratio(values) -> float:
    n = len(values)
    if n < 2:
        return float("nan")
    counts = np.unique(values, return_counts=True)[1]
    return float((counts * (counts - 1)).sum() / (n * (n - 1)))


def accuracy_with_ties(X, Z) -> dict:
    """acc_eq at epsilon 0 and tie-calibrated acc_eq* with its epsilon: over the systems' mean scores
    ("system") and over pairs of systems within each input, inputs weighing equally ("input")."""
    keep = np.isfinite(X) & np.isfinite(Z)
    out = {}
    x_means, z_means = _means(X, keep), _means(Z, keep)
    inputs = np.broadcast_to(np.arange(X.shape[1]), X.shape)
    for level, (z, x, groups) in {"system": (z_means, x_means, None),
                                  "input": (Z[keep], X[keep], inputs[keep])}.items():
        best, epsilon = tie_calibrated_accuracy(z, x, groups=groups)
        out[level] = {"acc_eq": pairwise_accuracy(z, x, groups=groups), "acc_eq_calibrated": best,
                      "epsilon": epsilon}
    return out


def _means(X, keep):
    count = keep.sum(-1)
    return np.where(count > 0, np.where(keep, X, 0).sum(-1) / np.maximum(count, 1), np.nan)


def williams_pairs(grid: ScoreGrid) -> list[dict]:
    """Williams' test for every two metrics at the system level (Pearson): the better-correlated
    metric first, t and the one-sided p that it correlates better (mt-metrics-eval's WilliamsTest;
    the two-sided p is twice this)."""
    if len(grid.systems) < 4:
        return []
    out = []
    for a, b in combinations(grid.metrics, 2):
        A, B = grid.metrics[a], grid.metrics[b]
        ra, rb = (correlate(M, grid.human, "system", "pearson") for M in (A, B))
        if not (np.isfinite(ra) and np.isfinite(rb)):
            continue
        if rb > ra:
            a, b, A, B, ra, rb = b, a, B, A, rb, ra
        test = williams_test(A, B, grid.human, "pearson", alternative="greater")
        out.append({"better": a, "worse": b, "r_better": ra, "r_worse": rb,
                    "r_between": correlate(A, B, "system", "pearson"), "t": test.statistic, "p": test.pvalue})
    return sorted(out, key=lambda w: (w["p"], w["better"], w["worse"]))


def scores_report(grid: ScoreGrid, *, n_resamples: int = 1000, repetitions: int = 100, seed: int = 0) -> dict:
    """Everything `sepia metaeval scores` prints for one grid, as plain data (NaN stays NaN)."""
    names = list(grid.metrics)
    report = {
        "group": grid.group, "systems": len(grid.systems), "inputs": len(grid.inputs), "human": grid.human_name,
        "metrics": names,
        "diagnostics": {n: tie_diagnostics(m) for n, m in {grid.human_name: grid.human, **grid.metrics}.items()},
        "correlations": {n: correlation_grid(m, grid.human) for n, m in grid.metrics.items()},
        "accuracy": {n: accuracy_with_ties(m, grid.human) for n, m in grid.metrics.items()},
        "williams": williams_pairs(grid),
        "warnings": grid.warnings,
    }
    if len(names) >= 2:
        report.update(measure_properties(np.stack([grid.metrics[n] for n in names]), names, grid.human,
                                         n_resamples=n_resamples, repetitions=repetitions, seed=seed))
    return report
