"""`sepia metaeval tukey`: the randomised Tukey HSD test over all pairs of the runs of each language
pair (F-scores per topic), as a table and, with --plot, a chart of the p-values."""
from __future__ import annotations

from collections import defaultdict

from sepia.metaeval.tukey import TukeyHSD, randomised_tukey_hsd


def tukey_by_language_pair(run_scores, trials: int, seed: int | None) -> dict[str, TukeyHSD]:
    """One test per language pair with two runs or more, over the topics every run of it is scored on."""
    groups = defaultdict(list)
    for score in run_scores:
        groups[score.language_pair].append(score)
    results = {}
    for pair, scores in groups.items():
        if len(scores) < 2:
            continue
        per_run = {s.run_id: {t.topic_id: t.f for t in s.topics} for s in scores}
        topics = sorted(set.intersection(*(set(v) for v in per_run.values())))
        results[pair] = randomised_tukey_hsd({r: [v[t] for t in topics] for r, v in per_run.items()}, trials, seed)
    return results


def tukey_text(results: dict[str, TukeyHSD], alpha: float = 0.05) -> str:
    lines = []
    for pair, result in results.items():
        lines += ["", f"{pair}: randomised Tukey HSD over {result.topics} topics, {result.trials} trials"
                      f" (seed {result.seed}); p = (k + 1) / (trials + 1)",
                  f"  {'A':<20}{'B':<20}{'A - B':>8}{'p':>9}"]
        lines += [f"  {p.a:<20}{p.b:<20}{p.difference:>8.4f}{p.pvalue:>9.4f}{'  *' if p.pvalue < alpha else ''}"
                  for p in result.pairs]
    lines.append(f"\n* significant at alpha = {alpha:g}, the family-wise error rate of each language pair")
    return "\n".join(lines).lstrip("\n") + "\n"


def plot_tukey(results: dict[str, TukeyHSD], path: str) -> None:
    """One panel per language pair: the p-value of every pair of runs, runs in order of mean score."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, axes = plt.subplots(1, max(len(results), 1), figsize=(4.5 * max(len(results), 1), 4), squeeze=False)
    for ax, (pair, result) in zip(axes[0], results.items()):
        index = {r: i for i, r in enumerate(result.runs)}
        grid = np.full((len(result.runs),) * 2, np.nan)
        for p in result.pairs:
            grid[index[p.a], index[p.b]] = grid[index[p.b], index[p.a]] = p.pvalue
        image = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis_r")
        ax.set_xticks(range(len(result.runs)), result.runs, rotation=90, fontsize=7)
        ax.set_yticks(range(len(result.runs)), result.runs, fontsize=7)
        ax.set_title(f"{pair}: Tukey HSD p-values")
        fig.colorbar(image, ax=ax, shrink=0.8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
