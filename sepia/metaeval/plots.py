"""Figures for the meta-evaluation report, written as PNG and SVG with matplotlib's Agg backend
(no display needed)."""
from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib.ticker import MaxNLocator  # noqa: E402

from sepia.metaeval.correlation import COEFFICIENTS, LEVELS  # noqa: E402

FORMATS = ("png", "svg")


def save_figure(fig, directory: Path, stem: str) -> list[Path]:
    """Write `fig` as DIRECTORY/STEM.png and .svg (the folder created), close it, and return the paths."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for ext in FORMATS:
        path = directory / f"{stem}.{ext}"
        fig.savefig(path, dpi=120, bbox_inches="tight")
        paths.append(path)
    plt.close(fig)
    return paths


def scatter_runs(report: dict, directory: Path) -> list[Path]:
    """One panel per automatic matcher: each run's automatic score against its human score."""
    names = report["matchers"]
    fig, axes = plt.subplots(1, len(names), figsize=(4 * len(names), 4), squeeze=False)
    for ax, name in zip(axes[0], names):
        rows = [r for r in report["scores"] if r["human"] is not None and r[name] is not None]
        xs, ys = [r["human"] for r in rows], [r[name] for r in rows]
        ax.scatter(xs, ys, s=18)
        top = max(xs + ys + [0.01]) * 1.05
        ax.plot([0, top], [0, top], color="grey", linewidth=0.8, linestyle="--")
        tau = report["ranking"][name]["tau"]
        ax.set_title(f"{name} (run tau = {tau:.3f})" if tau is not None else name)
        ax.set_xlabel("human F")
        ax.set_ylabel(f"{name} F")
    fig.suptitle("Automatic against human score, one point per run")
    return save_figure(fig, Path(directory), "scatter_runs")


def pvalue_curves(report: dict, directory: Path) -> list[Path]:
    """The sorted permutation-test p-values over all matcher pairs, one curve per measure."""
    curves = report.get("pvalue_curves") or {}
    if not curves:
        return []
    fig, ax = plt.subplots(figsize=(7, 4.5))
    # colour = coefficient, line style = level, so that sixteen curves stay distinguishable
    colours = dict(zip(COEFFICIENTS, ("tab:blue", "tab:orange", "tab:green", "tab:red")))
    styles = dict(zip(LEVELS, ("-", "--", "-.", ":")))
    for label, values in curves.items():
        level, coefficient = label.split("/")
        values = [v for v in values if v is not None]
        if values:
            ax.plot(range(1, len(values) + 1), values, marker="o", markersize=3, linewidth=1.2, label=label,
                    color=colours[coefficient], linestyle=styles[level])
    locator = ax.xaxis.get_major_locator()
    if isinstance(locator, MaxNLocator):  # the default AutoLocator is one
        locator.set_params(integer=True)
    ax.axhline(0.05, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xlabel("metric pairs, sorted by p-value")
    ax.set_ylabel("p-value (permutation test, Perm-Both)")
    ax.set_title("Discriminative power of each correlation measure")
    ax.legend(fontsize=6, ncol=2)
    return save_figure(fig, Path(directory), "pvalue_curves")
