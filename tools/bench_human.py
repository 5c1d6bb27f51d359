"""Benchmark: `sepia evaluate --matcher human` end to end, whole processes, against a straight-line
scorer written here (lxml and a split per judgment line, the same F3).

    .venv/bin/python tools/bench_human.py [--runs 40] [--topics 100] [--rounds 3] [--json]

Workload (seeded, bench_scoring's generator): a gold standard of T topics with about 10 nuggets each,
N CCLQA runs of 30 responses per topic (N x T x 30 responses in XML files) and a judgments TSV with
three judgment lines per response on average (two nuggets, one or two assessors each; 1, 0.5 or 0).

Each round runs, as subprocesses one after the other: the straight-line scorer (`--straight`: the gold
standard by `read_file`, the same small file for both; each run file by `lxml.etree.parse`; the
judgments by `str.split`; upper medians, best value per nugget, pyramid weights, F3) and `sepia
evaluate --matcher human --format json`. Both print every run's F3 per topic, checked equal to the
last digit every round. Figures: CPU seconds (user + system) and peak RSS of each process, median of
the rounds (a ratio is the median of the rounds' ratios). The aims: SEPIA / straight-line <= 1.5 in
CPU and in peak memory. `--scale` also runs SEPIA on 1/4, 1/2 and all of the runs, each with only
their judgments, to show how its memory grows with the number of runs: by the judgments' compact form.
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
AIM = 1.5


# ---------------------------------------------------------------- the straight-line scorer

def straight_line_f3(gold_path: str, run_paths: list[str], judgments_path: str) -> dict[str, list[float]]:
    from lxml import etree
    from straight_human import straight_decisions, straight_topic_f, straight_topics

    from sepia.formats.read import read_file

    def rows(lines):
        next(lines)
        for line in lines:
            topic_id, run_id, rank, nugget_id, match, _ = line.rstrip("\n").split("\t")
            yield run_id, topic_id, int(rank), nugget_id, float(match)

    topics = straight_topics(read_file(gold_path, "gold"))
    with open(judgments_path, encoding="utf-8") as lines:
        decided = straight_decisions(rows(lines))
    scores = {}
    for path in run_paths:
        root = etree.parse(path).getroot()
        run_id = root.findtext("METADATA/RUNID")
        answered = {t.get("ID"): [(int(a.get("RANK")), a.findtext("TEXT") or "") for a in t.iter("ANSWER")]
                    for t in root.iter("TOPIC")}
        scores[run_id] = [straight_topic_f(topic, weights, c, answered.get(topic.topic_id),
                                           decided.get((run_id, topic.topic_id), ()))
                          for topic, weights, c in topics]
    return scores


# ---------------------------------------------------------------- the workload

def write_workload(directory: Path, runs: int, topics: int, seed: int) -> tuple[Path, list[Path], Path]:
    from bench_scoring import write_workload as write_runs

    from sepia.formats.read import read_file

    gold_path, run_paths = write_runs(directory, runs, topics, seed)
    gold = read_file(gold_path, "gold")
    nuggets = {t.topic_id: [n.nugget_id for n in t.nuggets] for t in gold.topics}
    rng = random.Random(seed + 1)
    judgments_path = directory / "judgments.tsv"
    with open(judgments_path, "w", encoding="utf-8") as out:
        out.write("topic_id\trun_id\tanswer_rank\tnugget_id\tmatch\tassessor\n")
        for path in run_paths:
            run_id = path.stem
            for topic_id, nugget_ids in nuggets.items():
                for rank in range(1, 31):
                    for nugget_id in rng.sample(nugget_ids, min(2, len(nugget_ids))):
                        for assessor in ("a1", "a2")[:rng.randint(1, 2)]:
                            match = rng.choice(("1", "0.5", "0"))
                            out.write(f"{topic_id}\t{run_id}\t{rank}\t{nugget_id}\t{match}\t{assessor}\n")
    return gold_path, run_paths, judgments_path


# ---------------------------------------------------------------- measuring

def run_measured(argv: list[str]) -> tuple[float, float, str]:
    """CPU seconds, peak RSS in MB and standard output of one child process."""
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, cwd=ROOT)
    output = child.stdout.read().decode()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise SystemExit(f"{argv[:4]} exited with {child.returncode}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, output


def sepia_f3(output: str) -> dict[str, list[float]]:
    return {r["run_id"]: [t["f"] for t in r["topics"]] for r in json.loads(output)["runs"]}


def one_round(gold: Path, runs: list[Path], judgments: Path) -> dict[str, float]:
    files = [str(gold), str(judgments)] + [str(p) for p in runs]
    straight_cpu, straight_rss, straight_out = run_measured([sys.executable, __file__, "--straight", *files])
    sepia_cpu, sepia_rss, sepia_out = run_measured(
        [sys.executable, "-c", "import sys; from sepia.cli import main; sys.exit(main())", "evaluate",
         "--gold", str(gold), "--matcher", "human", "--judgments", str(judgments), "--format", "json",
         *map(str, runs)])
    expected = {run_id: f for run_id, f in json.loads(straight_out).items()}
    assert sepia_f3(sepia_out) == expected, "SEPIA and the straight-line scorer disagree"
    return {"straight_cpu": straight_cpu, "straight_rss": straight_rss, "sepia_cpu": sepia_cpu,
            "sepia_rss": sepia_rss, "cpu_ratio": sepia_cpu / straight_cpu, "rss_ratio": sepia_rss / straight_rss}


def sepia_memory(gold: Path, runs: list[Path], judgments: Path) -> float:
    """SEPIA's peak memory on these runs and their judgments alone (the lines naming them)."""
    names = {p.stem for p in runs}
    subset = judgments.with_name(f"judgments-{len(runs)}.tsv")
    with open(judgments, encoding="utf-8") as lines, open(subset, "w", encoding="utf-8") as out:
        out.write(next(lines))
        out.writelines(line for line in lines if line.split("\t", 2)[1] in names)
    return run_measured([sys.executable, "-c", "import sys; from sepia.cli import main; sys.exit(main())",
                         "evaluate", "--gold", str(gold), "--matcher", "human", "--judgments", str(subset),
                         "--format", "json", *map(str, runs)])[1]


def main() -> None:
    if sys.argv[1:2] == ["--straight"]:
        gold, judgments, *runs = sys.argv[2:]
        print(json.dumps(straight_line_f3(gold, runs, judgments)))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=20100615)
    parser.add_argument("--scale", action="store_true", help="also SEPIA's peak memory on 1/4, 1/2 and all runs")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sepia-bench-human-") as tmp:
        gold, runs, judgments = write_workload(Path(tmp), args.runs, args.topics, args.seed)
        lines = sum(1 for _ in open(judgments, encoding="utf-8")) - 1
        rounds = [one_round(gold, runs, judgments) for _ in range(args.rounds)]
        scale = ({n: sepia_memory(gold, runs[:n], judgments) for n in (args.runs // 4, args.runs // 2, args.runs)}
                 if args.scale else {})
    m = {key: statistics.median(r[key] for r in rounds) for key in rounds[0]}
    if args.json:
        print(json.dumps({"runs": args.runs, "topics": args.topics, "judgment_lines": lines, "rounds": args.rounds,
                          "aim": AIM, **{k: round(v, 3) for k, v in m.items()},
                          "sepia_rss_by_runs": {str(k): round(v, 1) for k, v in scale.items()}}))
        return
    print(f"{args.runs} runs x {args.topics} topics x 30 responses, {lines:,} judgment lines; "
          f"whole processes, median of {args.rounds} rounds; F3 checked equal every round")
    print(f"  {'':34} {'CPU s':>8} {'peak MB':>9}")
    print(f"  {'straight-line scorer (reference)':34} {m['straight_cpu']:8.2f} {m['straight_rss']:9.1f}")
    print(f"  {'sepia evaluate --matcher human':34} {m['sepia_cpu']:8.2f} {m['sepia_rss']:9.1f}")
    for what, key in (("CPU", "cpu_ratio"), ("memory", "rss_ratio")):
        verdict = "met" if m[key] <= AIM else "NOT MET"
        print(f"  ratio, {what:<27} {m[key]:8.2f}   aim <= {AIM}  {verdict}")
    for n, rss in scale.items():
        print(f"  {f'sepia, {n} runs and their judgments':34} {'':8} {rss:9.1f}")


if __name__ == "__main__":
    main()
