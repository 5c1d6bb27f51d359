"""The results pages' bar charts: each run's mean over topics with a 95% confidence interval, as an
SVG that also renders when opened on its own.

An interval is drawn only from at least three topics (with two, the t quantile of one degree of
freedom, 12.7, makes it span the whole plot and says nothing), is clipped to [0, 1] where every
measure charted lives, and the chart says which runs have none."""
from __future__ import annotations

import io
import statistics
from dataclasses import dataclass, field
from typing import Sequence

from scipy import stats

MIN_TOPICS = 3
COLOURS = ("#2f5fd0", "#9bb3ea", "#d08a2f", "#5a9e6f")
# Served with the SVG instead of the pages' policy: matplotlib styles every element inline, which
# `style-src 'self'` blocks when the file is opened on its own; nothing in it may run or load.
SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"


def interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float] | None:
    """The t confidence interval of the mean of `values`, clipped to [0, 1]; None from fewer than
    MIN_TOPICS values."""
    if len(values) < MIN_TOPICS:
        return None
    mean = statistics.fmean(values)
    half = float(stats.t.ppf((1 + level) / 2, len(values) - 1) * statistics.stdev(values) / len(values) ** 0.5)
    return max(0.0, mean - half), min(1.0, mean + half)


@dataclass
class Bars:
    """One measure (or matcher) across the runs: each run's mean and the per-topic values it is of."""
    label: str
    means: dict[str, float]
    topics: dict[str, list[float]] = field(default_factory=dict)


def bar_chart_svg(title: str, ylabel: str, series: Sequence[Bars], run_ids: Sequence[str]) -> str:
    """The runs in the order given, one bar per series, each with its interval where it has one."""
    from matplotlib.backends.backend_svg import FigureCanvasSVG
    from matplotlib.figure import Figure

    # A Figure of its own (not pyplot): nothing is shared between the server's threads.
    figure = Figure(figsize=(min(12.0, max(4.5, 0.7 * len(run_ids) + 2)), 3.4))
    FigureCanvasSVG(figure)
    axes = figure.add_subplot()
    width = 0.8 / max(1, len(series))
    without: set[str] = set()
    for i, bars in enumerate(series):
        shown = [r for r in run_ids if r in bars.means]
        means = [bars.means[r] for r in shown]
        spans = [interval(bars.topics.get(r, [])) for r in shown]
        without.update(r for r, span in zip(shown, spans) if span is None)
        errors = [[m - s[0] if s else 0.0 for m, s in zip(means, spans)],
                  [s[1] - m if s else 0.0 for m, s in zip(means, spans)]]
        positions = [run_ids.index(r) + i * width for r in shown]
        axes.bar(positions, means, width, label=bars.label, color=COLOURS[i % len(COLOURS)])
        with_span = [k for k, s in enumerate(spans) if s]
        if with_span:
            axes.errorbar([positions[k] for k in with_span], [means[k] for k in with_span],
                          yerr=[[errors[0][k] for k in with_span], [errors[1][k] for k in with_span]],
                          fmt="none", capsize=3, ecolor="#1d2330")
    axes.set_xticks([x + width * (len(series) - 1) / 2 for x in range(len(run_ids))], run_ids,
                    rotation=30, ha="right", fontsize=8)
    axes.set_ylabel(f"{ylabel} (95% CI)", fontsize=9)
    axes.set_ylim(0, 1.05)
    axes.legend(fontsize=8, frameon=False, loc="upper right")
    axes.set_title(title, fontsize=10)
    if without:
        figure.text(0.01, 0.01, f"No interval for {len(without)} run{'s' if len(without) != 1 else ''} "
                    f"with fewer than {MIN_TOPICS} topics.", fontsize=8, color="#5b6170")
    figure.tight_layout(rect=(0, 0.04 if without else 0, 1, 1))
    out = io.StringIO()
    figure.savefig(out, format="svg")
    return out.getvalue()
