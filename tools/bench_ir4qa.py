"""Benchmark: `sepia evaluate-ir4qa` on TREC-format files against trec_eval's code, wall time and memory.

    .venv/bin/python tools/bench_ir4qa.py [--runs 100] [--topics 100] [--docs 1000] [--repeat 3]
                                          [--trec-eval PATH] [--json]

Generates (seeded) in a temporary directory TREC qrels of T topics (300 judged documents a topic,
levels 0-3, about a third of them relevant) and N TREC runs (`qid Q0 docid rank score tag`) of D
documents a topic: judged and unjudged documents mixed, scores with four decimals (so some tie).

Every side runs as a subprocess of this process, one after the other, interleaved (the order
alternates from round to round), timed by wall clock and CPU (user + system); peak memory is each
subprocess's maximum resident set size (`os.wait4`'s rusage):
  sepia      `sepia evaluate-ir4qa --qrels Q RUN... --measures AP,P@10,nDCG,RR,Bpref --format trec`
             (every topic's values, as trec_eval -q prints them);
  reference  trec_eval's own C code through pytrec_eval (`pytrec_eval.parse_qrel`, then for each run
             `parse_run` and `RelevanceEvaluator.evaluate` with map, P.10, ndcg, recip_rank, bpref,
             printing every topic's values);
  trec_eval  with `--trec-eval PATH`, that binary as well: one `trec_eval -q -m ...` per run file, as
             trec_eval takes one run at a time (its figures summed over the runs, memory the largest).
The aims: sepia's CPU time at most 1.3 times pytrec_eval's (the wall time's, 1.5, is printed too),
its peak memory under 500 MB. Every round also checks that every side printed the same values (to
trec_eval's four decimals).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SEPIA_MEASURES = "AP,P@10,nDCG,RR,Bpref"
TREC_MEASURES = {"AP": "map", "P@10": "P_10", "nDCG": "ndcg", "RR": "recip_rank", "Bpref": "bpref"}
TREC_EVAL_FLAGS = ["-m", "map", "-m", "P.10", "-m", "ndcg", "-m", "recip_rank", "-m", "bpref"]
JUDGED_PER_TOPIC = 300
TIME_AIM, CPU_AIM, MEMORY_AIM_MB = 1.5, 1.3, 500

# trec_eval's code, reading the files with pytrec_eval's own readers; prints `measure qid value`.
PYTREC_EVAL = """
import sys, pytrec_eval
with open(sys.argv[1]) as f:
    qrels = pytrec_eval.parse_qrel(f)
evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P.10", "ndcg", "recip_rank", "bpref"})
out = sys.stdout
for path in sys.argv[2:]:
    out.write(f"runid\\tall\\t{path}\\n")
    with open(path) as f:
        results = evaluator.evaluate(pytrec_eval.parse_run(f))
    for qid, values in results.items():
        for measure, value in values.items():
            out.write(f"{measure}\\t{qid}\\t{value:.4f}\\n")
"""


def write_workload(directory: Path, runs: int, topics: int, docs: int, seed: int) -> tuple[Path, list[Path]]:
    rng = random.Random(seed)
    qids = [str(1001 + t) for t in range(topics)]
    collection = [f"XIN_CMN_2002{rng.randrange(10**8):08d}" for _ in range(max(4 * docs, 5000))]
    judged = {q: rng.sample(collection, min(JUDGED_PER_TOPIC, len(collection))) for q in qids}
    qrels = directory / "qrels.txt"
    with open(qrels, "w") as out:
        for q in qids:
            out.writelines(f"{q} 0 {d} {rng.choice((0, 0, 0, 0, 1, 1, 2, 3))}\n" for d in judged[q])
    paths = []
    for r in range(runs):
        path = directory / f"run{r + 1:03d}.txt"
        with open(path, "w") as out:
            for q in qids:
                # better runs put more judged documents near the top
                pool = rng.sample(judged[q], JUDGED_PER_TOPIC // 3) + rng.sample(collection, docs)
                retrieved = list(dict.fromkeys(pool))[:docs]
                rng.shuffle(retrieved)
                scores = sorted((round(rng.random() * 20, 4) for _ in retrieved), reverse=True)
                out.writelines(f"{q} Q0 {d} {i + 1} {s:.4f} run{r + 1:03d}\n"
                               for i, (d, s) in enumerate(zip(retrieved, scores)))
        paths.append(path)
    return qrels, paths


def timed(command: list[str], output: Path) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak RSS in MB) of one subprocess writing to `output`."""
    with open(output, "w") as out:
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(command[:3])} ...: {process.stderr.read().decode()[-2000:]}")
    process.stderr.close()
    process.returncode = 0
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def run_sepia(qrels: Path, runs: list[Path], output: Path):
    return timed([sys.executable, "-c", "from sepia.cli import main; main()", "evaluate-ir4qa", "--qrels",
                  str(qrels), *map(str, runs), "--measures", SEPIA_MEASURES, "--format", "trec"], output)


def run_reference(qrels: Path, runs: list[Path], output: Path, trec_eval: str | None):
    if not trec_eval:
        return timed([sys.executable, "-c", PYTREC_EVAL, str(qrels), *map(str, runs)], output)
    total = [0.0, 0.0, 0.0]
    for i, run in enumerate(runs):
        wall, cpu, rss = timed([trec_eval, "-q", *TREC_EVAL_FLAGS, str(qrels), str(run)], output.with_suffix(f".{i}"))
        total = [total[0] + wall, total[1] + cpu, max(total[2], rss)]
    with open(output, "w") as out:  # one `runid` line before each run's lines, as the other sides print
        for i, run in enumerate(runs):
            part = output.with_suffix(f".{i}")
            out.write(f"runid\tall\t{run}\n")
            out.writelines(line for line in part.read_text().splitlines(keepends=True) if not line.startswith("runid"))
            part.unlink()
    return tuple(total)


def values(path: Path, names: dict[str, str] | None = None) -> dict[tuple[int, str, str], str]:
    """(run number, trec_eval's measure name, topic) -> the value printed; runs start at a `runid` line."""
    found = {}
    run = 0
    for line in path.read_text().splitlines():
        measure, qid, value = (f.strip() for f in line.split("\t"))
        if measure == "runid":
            run += 1
            continue
        if qid != "all":
            found[run, (names or {}).get(measure, measure), qid] = value
    return found


def check_same(sepia_out: Path, reference_out: Path) -> int:
    ours = values(sepia_out, TREC_MEASURES)
    theirs = values(reference_out)
    differing = [k for k, v in theirs.items() if ours.get(k) != v]
    if differing:
        raise SystemExit(f"sepia and the reference differ on {len(differing)} values, e.g. {differing[:3]}")
    return len(theirs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--docs", type=int, default=1000, help="documents per topic in each run")
    parser.add_argument("--repeat", type=int, default=3, help="rounds, each timing every side; medians reported")
    parser.add_argument("--seed", type=int, default=20080101)
    parser.add_argument("--trec-eval", metavar="PATH", help="a trec_eval binary to measure as well, beside "
                                                           "pytrec_eval")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    names = {"reference": "pytrec_eval (trec_eval's C code)", "sepia": "sepia evaluate-ir4qa"}
    if args.trec_eval:
        names["trec_eval"] = f"trec_eval binary ({args.trec_eval})"
    with tempfile.TemporaryDirectory(prefix="sepia-bench-ir4qa-") as tmp:
        directory = Path(tmp)
        qrels, runs = write_workload(directory, args.runs, args.topics, args.docs, args.seed)
        megabytes = sum(p.stat().st_size for p in runs) / 1e6
        sides = {"sepia": lambda: run_sepia(qrels, runs, directory / "sepia.out"),
                 "reference": lambda: run_reference(qrels, runs, directory / "reference.out", None),
                 "trec_eval": lambda: run_reference(qrels, runs, directory / "trec_eval.out", args.trec_eval)}
        order = [name for name in sides if name in names]
        rounds = []
        for r in range(args.repeat):
            measured = {name: sides[name]() for name in (order if r % 2 == 0 else order[::-1])}
            compared = min(check_same(directory / "sepia.out", directory / f"{name}.out")
                           for name in order if name != "sepia")
            rounds.append(measured)
    load = os.getloadavg()

    def median(side: str, index: int) -> float:
        return statistics.median(r[side][index] for r in rounds)

    def ratios(side: str) -> tuple[float, float]:
        """sepia's wall and CPU time over the side's, medians of the rounds' ratios."""
        return tuple(statistics.median(r["sepia"][i] / r[side][i] for r in rounds) for i in (0, 1))

    report = {"runs": args.runs, "topics": args.topics, "docs": args.docs, "run_megabytes": round(megabytes, 1),
              "repeat": args.repeat, "values_compared": compared, "load_average": load,
              **{side: {"name": names[side], "wall": round(median(side, 0), 3), "cpu": round(median(side, 1), 3),
                        "peak_rss_mb": round(max(r[side][2] for r in rounds), 1)} for side in order}}
    ratio, cpu_ratio = ratios("reference")
    report |= {"wall_ratio": round(ratio, 2), "cpu_ratio": round(cpu_ratio, 2), "cpu_aim": CPU_AIM}
    if args.trec_eval:
        report["trec_eval_wall_ratio"], report["trec_eval_cpu_ratio"] = (round(x, 2) for x in ratios("trec_eval"))
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{args.runs} runs x {args.topics} topics x {args.docs} documents ({megabytes:.0f} MB of TREC runs), "
          f"median of {args.repeat} interleaved rounds, each side a subprocess; load average "
          f"{' '.join(f'{x:.2f}' for x in load)} on {os.cpu_count()} cores")
    print(f"  {'':40}{'wall s':>9}{'CPU s':>9}{'peak RSS':>11}")
    for side in ("reference", "trec_eval", "sepia"):
        if side in report:
            figures = report[side]
            print(f"  {figures['name']:40}{figures['wall']:9.2f}{figures['cpu']:9.2f}{figures['peak_rss_mb']:8.0f} MB")
    print(f"  CPU ratio to pytrec_eval {cpu_ratio:.2f}  (aim <= {CPU_AIM}: {'met' if cpu_ratio <= CPU_AIM else 'NOT MET'})"
          f"   wall-time ratio {ratio:.2f}  (aim <= {TIME_AIM})")
    if args.trec_eval:
        print(f"  CPU ratio to the trec_eval binary {report['trec_eval_cpu_ratio']:.2f}"
              f"   wall-time ratio {report['trec_eval_wall_ratio']:.2f}")
    memory = report["sepia"]["peak_rss_mb"]
    print(f"  peak memory {memory:.0f} MB  (aim < {MEMORY_AIM_MB} MB)")
    print(f"  {compared} per-topic values compared: the same to four decimals")


if __name__ == "__main__":
    main()
