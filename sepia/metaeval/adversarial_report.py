"""The adversarial probes' fooled rates as a table, TSV, JSON and a chart."""
from __future__ import annotations

import io
import textwrap
from pathlib import Path
from typing import Sequence

from sepia.metaeval.adversarial import Fooled
from sepia.metaeval.probes import PROBES
from sepia.text.columns import aligned


def _cell(row: Fooled) -> str:
    return "-" if row.rate is None else f"{100 * row.rate:.0f}% ({row.fooled}/{row.topics})"


def fooled_table(rows: Sequence[Fooled]) -> str:
    """Matchers down, probes across: the fooled rate (fooled topics / topics the probe changed)."""
    probes = list(dict.fromkeys(r.probe for r in rows))
    matchers = list(dict.fromkeys(r.matcher for r in rows))
    cells = {(r.matcher, r.probe): _cell(r) for r in rows}
    header = ["MATCHER", *probes]
    body = [[m, *(cells[m, p] for p in probes)] for m in matchers]
    lines = aligned([header, *body])
    legend = [f"  {p}: {PROBES[p].label}" for p in probes]
    return ("Fooled rate: share of the topics a probe changed where the perturbed response scores at least "
            "as high as the faithful one (lower is better)\n\n" + "\n".join(lines) + "\n\n" + "\n".join(legend) + "\n")


TSV_COLUMNS = ("matcher", "probe", "topics", "fooled", "fooled_rate", "kept_recall", "kept_recall_rate")


def fooled_tsv(rows: Sequence[Fooled]) -> str:
    def value(v) -> str:
        return "" if v is None else f"{v:.4f}" if isinstance(v, float) else str(v)

    lines = ["\t".join(TSV_COLUMNS)]
    lines += ["\t".join(value(r.as_dict()[c]) for c in TSV_COLUMNS) for r in rows]
    return "\n".join(lines) + "\n"


def fooled_figure(rows: Sequence[Fooled]):
    """Grouped bars: one group per probe, one bar per matcher, the 10% aim dashed. A Figure of its own,
    not pyplot's: nothing is shared between the web server's threads."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    probes = list(dict.fromkeys(r.probe for r in rows))
    matchers = list(dict.fromkeys(r.matcher for r in rows))
    rates = {(r.matcher, r.probe): r.rate for r in rows}
    topics = {r.probe: r.topics for r in rows}
    width = 0.8 / max(len(matchers), 1)
    figure = Figure(figsize=(1.6 * len(probes) + 2, 4))
    FigureCanvasAgg(figure)
    ax = figure.add_subplot()
    for k, matcher in enumerate(matchers):
        xs = [i + (k - (len(matchers) - 1) / 2) * width for i in range(len(probes))]
        ax.bar(xs, [100 * (rates.get((matcher, p)) or 0) for p in probes], width, label=matcher)
    ax.set_xticks(range(len(probes)), [textwrap.fill(PROBES[p].label, 16) + f"\n({topics[p]} topics)" for p in probes],
                  fontsize=8)
    ax.set_ylabel("fooled rate (%)")
    ax.set_ylim(0, 100)
    ax.axhline(10, color="grey", linewidth=0.8, linestyle="--")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1, 1))
    ax.set_title("Adversarial probes: how often a perturbed response scores as high as the faithful one")
    return figure


def fooled_png(rows: Sequence[Fooled]) -> bytes:
    out = io.BytesIO()
    fooled_figure(rows).savefig(out, format="png", dpi=100, bbox_inches="tight")
    return out.getvalue()


def fooled_chart(rows: Sequence[Fooled], path: Path) -> list[Path]:
    """The chart as PATH.png and PATH.svg."""
    from sepia.metaeval.plots import save_figure

    path = Path(path)
    return save_figure(fooled_figure(rows), path.parent, path.stem)
