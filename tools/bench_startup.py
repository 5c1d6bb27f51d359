"""Benchmark: start-up of the `sepia` command, whole processes, CPU seconds (user + system).

    .venv/bin/python tools/bench_startup.py [--rounds 7] [--json]

Interleaved in each round: `python -c pass` (the reference: the interpreter alone), `sepia --help`
and `sepia validate` of the sample CCLQA run and judgments. Each figure is the median of the rounds;
the aim is under 0.15 s CPU for `sepia --help` and `sepia validate FILE`.
"""
from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
AIM_SECONDS = 0.15
SAMPLE = ROOT / "corpora" / "cs"
RUN = next(iter(sorted((SAMPLE / "runs").glob("*.xml"))))
SEPIA = [sys.executable, "-c", "import sys; from sepia.cli import main; sys.exit(main())"]
CASES = {
    "python -c pass (reference)": [sys.executable, "-c", "pass"],
    "sepia --help": SEPIA + ["--help"],
    f"sepia validate {RUN.name}": SEPIA + ["validate", str(RUN)],
    "sepia validate judgments.tsv": SEPIA + ["validate", str(SAMPLE / "judgments.tsv")],
}


def cpu_of(argv: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, cwd=ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    seconds: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(args.rounds):
        for name, argv in CASES.items():
            seconds[name].append(cpu_of(argv))
    medians = {name: statistics.median(values) for name, values in seconds.items()}
    if args.json:
        print(json.dumps({"rounds": args.rounds, "aim_seconds": AIM_SECONDS, "median_cpu_seconds": medians}))
        return
    print(f"CPU seconds, median of {args.rounds} rounds (aim: under {AIM_SECONDS} s for the sepia commands)")
    for name, value in medians.items():
        verdict = "" if name.startswith("python") else ("  met" if value < AIM_SECONDS else "  NOT MET")
        print(f"  {name:<44} {value:6.3f}{verdict}")


if __name__ == "__main__":
    main()
