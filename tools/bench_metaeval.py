"""Benchmark: discriminative power for 32 metrics, 16 systems, 100 inputs, 1,000 permutations.

    .venv/bin/python tools/bench_metaeval.py [--measure LEVEL:COEFFICIENT ...] [--ties] [--permutations N]
                                             [--metrics 32] [--systems 16] [--inputs 100]

(`--metrics 5 --systems 32 --inputs 1000`: the size of issue 23, `sepia metaeval scores` at scale.)

Times `discriminative_power` (Perm-Both, all 496 metric pairs) for each of the sixteen level x
coefficient measures (or those asked for) and prints each time, wall clock and CPU of this
process, beside the aim of 60 s of CPU per measure (issue 23), with the load average before and
after (on a shared machine the wall time depends on it) and the process's peak memory. Synthetic scores: metrics are the human scores plus
noise of increasing size, so that some pairs differ and some do not; `--ties` rounds them to
steps of 0.5 (ties within and across metrics, as F-scores have).
"""
from __future__ import annotations

import argparse
import os
import resource
import time

import numpy as np

from sepia.metaeval.correlation import MEASURES
from sepia.metaeval.properties import discriminative_power

AIM_SECONDS = 60.0


def synthetic(metrics=32, systems=16, inputs=100, seed=0, ties=False):
    rng = np.random.default_rng(seed)
    quality = rng.normal(size=(systems, 1))
    human = quality + rng.normal(size=(systems, inputs))
    noise = np.linspace(0.2, 3.0, metrics)[:, None, None]
    scores = human[None] + noise * rng.normal(size=(metrics, systems, inputs))
    return (np.round(scores * 2) / 2, np.round(human * 2) / 2) if ties else (scores, human)


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--measure", action="append", default=[], help="LEVEL:COEFFICIENT, e.g. global:tau_b")
    parser.add_argument("--permutations", type=int, default=1000)
    parser.add_argument("--ties", action="store_true", help="round the scores to steps of 0.5")
    parser.add_argument("--metrics", type=int, default=32)
    parser.add_argument("--systems", type=int, default=16)
    parser.add_argument("--inputs", type=int, default=100)
    args = parser.parse_args()
    measures = [tuple(m.split(":")) for m in args.measure] or list(MEASURES)
    metrics, human = synthetic(args.metrics, args.systems, args.inputs, ties=args.ties)
    print(f"{len(metrics)} metrics, {human.shape[0]} systems, {human.shape[1]} inputs, "
          f"{args.permutations} permutations, {len(metrics) * (len(metrics) - 1) // 2} pairs"
          + (", scores rounded to 0.5" if args.ties else "")
          + f"; OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}; {os.cpu_count()} cores")
    print(f"load average (1, 5, 15 min) before: {load()}")
    print(f"{'level':7s} {'coefficient':11s} {'mean p':>7s} {'wall':>8s} {'cpu':>8s}   aim")
    slowest = 0.0
    for level, coefficient in measures:
        wall, cpu = time.perf_counter(), time.process_time()
        power = discriminative_power(metrics, human, level, coefficient, n_resamples=args.permutations, seed=1)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        slowest = max(slowest, cpu)
        verdict = "ok" if cpu < AIM_SECONDS else "OVER"
        print(f"{level:7s} {coefficient:11s} {power.mean_pvalue:7.4f} {wall:7.2f}s {cpu:7.2f}s   "
              f"< {AIM_SECONDS:.0f} s {verdict}", flush=True)
    print(f"load average after: {load()}; peak resident memory of the process "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB (aim 2 GB)")
    print(f"slowest measure {slowest:.2f} s CPU: " + ("every measure under the aim" if slowest < AIM_SECONDS
                                                  else "over the aim"))


if __name__ == "__main__":
    main()
