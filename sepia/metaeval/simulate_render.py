"""`sepia metaeval simulate`'s outputs: the table, the TSV and the chart (PATH.png and PATH.svg)."""
from __future__ import annotations

import math
from pathlib import Path

from sepia.metaeval.correlation import COEFFICIENTS, LEVELS
from sepia.metaeval.simulate import CONTINUOUS, SimulationResult, closed_forms


def _columns(result: SimulationResult) -> list[int]:
    return [*result.settings.levels, CONTINUOUS]


def _label(k: int) -> str:
    return "continuous" if k == CONTINUOUS else f"k={k}"


def _change(result: SimulationResult, measure: str) -> float:
    """The relative change at the coarsest scale from the continuous value."""
    coarsest, continuous = result.mean(min(result.settings.levels), measure), result.mean(CONTINUOUS, measure)
    return (coarsest - continuous) / abs(continuous) if continuous else math.nan


def _number(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.3f}"


def simulation_table(result: SimulationResult) -> str:
    s = result.settings
    sides = {"both": "human and metric scores", "human": "human scores only", "metric": "metric scores only"}[s.side]
    forms = closed_forms(s.rho)
    lines = [f"Discretisation simulation: true correlation {s.rho}, {s.systems} systems x {s.inputs} inputs, "
             f"{s.replicates} replicates, seed {s.seed}; {sides} cut into k equally likely levels "
             f"(variance shares: system {s.system_share}, input {s.input_share})",
             f"continuous 0-1 scores (population): Pearson {forms['pearson']:.3f}, Spearman {forms['spearman']:.3f}, "
             f"Kendall {forms['tau_b']:.3f}", ""]
    coarsest = f"change at k={min(s.levels)}"
    header = f"{'MEASURE':<17}" + "".join(f"{_label(k):>11}" for k in _columns(result)) + f"{coarsest:>16}"
    lines.append(header)
    for measure in result.values[CONTINUOUS]:
        change = _change(result, measure)
        lines.append(f"{measure:<17}" + "".join(f"{_number(result.mean(k, measure)):>11}" for k in _columns(result))
                     + f"{'n/a' if math.isnan(change) else f'{change:+.1%}':>16}")
    return "\n".join(lines) + "\n"


def simulation_tsv(result: SimulationResult) -> str:
    rows = ["measure\tlevels\tmean\tsd"]
    for k in _columns(result):
        for measure, (mean, sd) in result.values[k].items():
            rows.append(f"{measure}\t{'continuous' if k == CONTINUOUS else k}\t{_number(mean)}\t{_number(sd)}")
    return "\n".join(rows) + "\n"


def simulation_chart(result: SimulationResult, path: Path) -> list[Path]:
    """One panel per grouping, one line per coefficient: the mean value against the number of levels,
    the continuous scores' population Pearson (and Spearman) dashed, their Kendall dotted."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    columns = _columns(result)
    fig, axes = plt.subplots(1, len(LEVELS), figsize=(4 * len(LEVELS), 3.8), sharey=True)
    for ax, level in zip(axes, LEVELS):
        for coefficient in COEFFICIENTS:
            ax.plot(range(len(columns)), [result.mean(k, f"{level}/{coefficient}") for k in columns], marker="o",
                    label=coefficient)
        forms = closed_forms(result.settings.rho)
        ax.axhline(forms["pearson"], color="grey", linestyle="--", linewidth=0.8)
        ax.axhline(forms["tau_b"], color="grey", linestyle=":", linewidth=0.8)
        ax.set_xticks(range(len(columns)), ["cont." if k == CONTINUOUS else str(k) for k in columns])
        ax.set_title(f"{level} grouping")
        ax.set_xlabel("levels of the scale")
    axes[0].set_ylabel("mean correlation")
    axes[-1].legend(loc="lower right", fontsize=8)
    s = result.settings
    fig.suptitle(f"Correlation measures when 0-1 scores take k values (latent correlation {s.rho}; "
                 f"{s.side} side{'s' if s.side == 'both' else ''} discretised)")
    from sepia.metaeval.plots import save_figure

    path = Path(path)
    return save_figure(fig, path.parent, path.stem)
