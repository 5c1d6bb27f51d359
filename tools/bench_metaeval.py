"""Benchmark: discriminative power for 32 metrics, 16 systems, 100 inputs, 1,000 permutations.

    .venv/bin/python tools/bench_metaeval.py [--measure LEVEL:COEFFICIENT ...] [--all]

Times `discriminative_power` (Perm-Both, all 496 metric pairs) for each measure asked for; the
default is every measure with a vectorised path (masked sums: system level and Pearson; quadratic
forms in the swap mask: Spearman and Kendall at the input and item levels). `--all` adds global
Spearman and Kendall, which resample whole matrices and take minutes. Synthetic scores: metrics
are the human scores plus noise of increasing size, so that some pairs differ and some do not;
`--ties` rounds them to steps of 0.5 (ties within and across metrics, as F-scores have).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from sepia.metaeval.correlation import MEASURES
from sepia.metaeval.properties import discriminative_power
from sepia.metaeval.significance import RANK_FAST_PATHS

FAST = [m for m in MEASURES if m[0] == "system" or m[1] == "pearson" or m in RANK_FAST_PATHS]


def synthetic(metrics=32, systems=16, inputs=100, seed=0, ties=False):
    rng = np.random.default_rng(seed)
    quality = rng.normal(size=(systems, 1))
    human = quality + rng.normal(size=(systems, inputs))
    noise = np.linspace(0.2, 3.0, metrics)[:, None, None]
    scores = human[None] + noise * rng.normal(size=(metrics, systems, inputs))
    return (np.round(scores * 2) / 2, np.round(human * 2) / 2) if ties else (scores, human)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--measure", action="append", default=[], help="LEVEL:COEFFICIENT, e.g. system:tau_b")
    parser.add_argument("--all", action="store_true", help="every level x coefficient")
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--ties", action="store_true", help="round the scores to steps of 0.5")
    args = parser.parse_args()
    measures = [tuple(m.split(":")) for m in args.measure] or (list(MEASURES) if args.all else FAST)
    metrics, human = synthetic(ties=args.ties)
    print(f"{len(metrics)} metrics, {human.shape[0]} systems, {human.shape[1]} inputs, "
          f"{args.permutations} permutations, {len(metrics) * (len(metrics) - 1) // 2} pairs"
          + (", scores rounded to 0.5" if args.ties else ""))
    for level, coefficient in measures:
        start = time.perf_counter()
        power = discriminative_power(metrics, human, level, coefficient, n_resamples=args.permutations, seed=1)
        elapsed = time.perf_counter() - start
        print(f"{level:7s} {coefficient:9s} mean p = {power.mean_pvalue:.4f}   {elapsed:6.2f} s", flush=True)


if __name__ == "__main__":
    main()
