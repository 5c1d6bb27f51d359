"""Benchmark: `sepia evaluate` on an ACLIA-scale workload: BINARIZED against lxml's parse time, human
judgments against a minimal scorer.

    .venv/bin/python tools/bench_scoring.py [--runs 20] [--topics 100] [--repeat 5] [--human-runs 1000] [--json]

Generates (seeded) a gold standard of T topics with about 10 nuggets of 5-30 characters each and N
CCLQA runs with 30 responses of 20-200 characters per topic, in Chinese/Japanese-like text with some
Latin words and digits; responses borrow pieces of the topic's nuggets so that every degree of match
occurs. All files are written with `sepia.formats.write.to_xml` into a temporary directory.

Measured in one process in CPU seconds (time.process_time), median of `--repeat` rounds (a ratio is
the median of the rounds' ratios; within a round, baseline and measured code run back to back):
  baseline  `lxml.etree.parse` of each run file, nothing else;
  total     what the evaluate command does: `read_file` of the gold standard, then one run file at a
            time `read_file` (safe loading; the parse, the checks of the XSD and of the spec and the
            model objects, from the text in sepia.formats.scan's layout) and its BINARIZED scores.
The aim is total / baseline <= 2. The break-down splits reading into loading (the UTF-8 and DOCTYPE
checks) and the rest, and shows the scoring and the rendering of each run's JSON on their own.

Whole process (issue 23, item 3), CPU seconds of each subprocess (`os.wait4`), median of the rounds,
the two sides interleaved: `sepia evaluate --gold GOLD RUNS... --format json` (BINARIZED, output
to a file) against a Python process that imports lxml and `lxml.etree.parse`s the same run files.
The aim is sepia / lxml <= 3. `--process-runs` sets how many runs these processes take (default 40).
A third process scores only the first run (the start-up and one run); the break-down scales the
in-process stages to the process's runs and calls the rest of its CPU time the start.

Human judgments: `--human-runs` runs (20 topics, 10 answers each, in memory) with two judged nuggets
per answer by one or two assessors (1, 0.5 or 0). SEPIA's human F3 (`Evaluator.rank`, judgments
grouped inside) against `minimal_human_f3`, a straight loop over the judgments and the runs that
computes the same F3 (checked equal to the last digit every round). The aim is SEPIA / minimal <= 1.5.
"""
from __future__ import annotations

import argparse
import gc
import itertools
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lxml import etree

from sepia.formats.model import (Answer, CCLQARun, CCLQATopic, GoldNugget, GoldStandard, GoldTopic, Judgment,
                                 LangText, Metadata)
from sepia.formats.read import read_file
from sepia.formats.write import to_xml
from sepia.formats.xmlsafe import load_xml
from sepia.scoring.evaluate import Evaluator, Settings
from sepia.scoring.report import json_run
from straight_human import straight_decisions, straight_topic_f, straight_topics

ANSWER_TYPES = ("DEFINITION", "BIOGRAPHY", "RELATIONSHIP", "EVENT", "WHY", "PERSON", "ORGANIZATION",
                "LOCATION", "DATE")
LATIN_WORDS = ("WHO", "SARS", "Olympic", "Games", "Nobel", "Prize", "Toyota", "iPod", "NHK", "Intel", "GDP",
               "Beijing", "Tokyo", "UN", "H5N1", "DNA", "CEO", "NASA", "APEC", "Sony")
PUNCTUATION = "，。、；：「」（）！？・"


class TextMaker:
    """Random text with a CJK-like character distribution: Zipf-distributed ideographs, kana runs,
    a few Latin words and numbers, punctuation and the odd space."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        ideographs = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]
        rng.shuffle(ideographs)
        self.ideographs = ideographs
        self.cumulative = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(ideographs))))
        self.kana = [chr(c) for c in range(0x3041, 0x3094)] + [chr(c) for c in range(0x30A1, 0x30F5)]

    def piece(self) -> str:
        roll = self.rng.random()
        if roll < 0.80:
            return "".join(self.rng.choices(self.ideographs, cum_weights=self.cumulative, k=self.rng.randint(1, 4)))
        if roll < 0.88:
            return "".join(self.rng.choices(self.kana, k=self.rng.randint(1, 3)))
        if roll < 0.93:
            return f" {self.rng.choice(LATIN_WORDS)} "
        if roll < 0.96:
            return str(self.rng.randint(1, 2010))
        return self.rng.choice(PUNCTUATION)

    def text(self, low: int, high: int, borrow: list[str] = ()) -> str:
        """Text of low..high characters; pieces of `borrow` (nugget texts) are mixed in."""
        target = self.rng.randint(low, high)
        parts, length = [], 0
        while length < target:
            if borrow and self.rng.random() < 0.25:
                source = self.rng.choice(borrow)
                start = self.rng.randrange(len(source))
                part = source[start:start + self.rng.randint(2, 12)]
            else:
                part = self.piece()
            parts.append(part)
            length += len(part)
        return "".join(parts)[:target].strip() or "无"


def make_gold(maker: TextMaker, topics: int, rng: random.Random) -> GoldStandard:
    gold_topics = []
    for t in range(topics):
        nuggets = []
        for n in range(max(1, round(rng.gauss(10, 2)))):
            voters = 3
            votes = [(f"a{i}", rng.random() < 0.6) for i in range(voters)]
            nuggets.append(GoldNugget(f"N{n + 1:03d}", maker.text(5, 30), None, [f"XIN_CMN_{t:04d}{n:04d}"], votes))
        gold_topics.append(GoldTopic(f"ACLIA2-CS-{t + 1:04d}", ANSWER_TYPES[t % len(ANSWER_TYPES)],
                                     [LangText("CS", maker.text(10, 30)), LangText("EN", "What is it?")], nuggets))
    return GoldStandard("CS", gold_topics)


def make_run(maker: TextMaker, gold: GoldStandard, index: int, rng: random.Random, responses: int = 30) -> CCLQARun:
    run_id = f"BENCH{index // 50:02d}-CS-CS-{index % 50 + 1:02d}-T"
    topics = []
    for topic in gold.topics:
        borrow = [n.text for n in topic.nuggets if rng.random() < 0.5]
        answers = [Answer(rank + 1, maker.text(20, 200, borrow), [f"XIN_CMN_{rank:08d}"]) for rank in range(responses)]
        topics.append(CCLQATopic(topic.topic_id, answers))
    return CCLQARun(Metadata(run_id, "benchmark run"), topics)


def write_workload(directory: Path, runs: int, topics: int, seed: int) -> tuple[Path, list[Path]]:
    rng = random.Random(seed)
    maker = TextMaker(rng)
    gold = make_gold(maker, topics, rng)
    gold_path = directory / "gold.xml"
    gold_path.write_bytes(to_xml(gold))
    run_paths = []
    for i in range(runs):
        run = make_run(maker, gold, i, rng)
        path = directory / f"{run.run_id}.xml"
        path.write_bytes(to_xml(run))
        run_paths.append(path)
    return gold_path, run_paths


def _timed(function) -> tuple[float, object]:
    """CPU seconds of this process: the machine is shared, and waiting for a core is not our cost."""
    gc.collect()  # garbage of the step before is not this step's cost
    start = time.process_time()
    result = function()
    return time.process_time() - start, result


def _parse_all(run_paths: list[Path]) -> None:
    for p in run_paths:
        etree.parse(str(p))  # each tree freed at once, as the evaluate command frees each run


def _evaluate_files(gold_path: Path, run_paths: list[Path]) -> int:
    """What `sepia evaluate --matcher binarized` does (but write): the gold standard, then one run file
    at a time, each let go once scored; how many runs were scored."""
    evaluator = Evaluator(read_file(gold_path, "gold"), Settings())
    return sum(evaluator.evaluate(read_file(p, "cclqa")) is not None for p in run_paths)


def _score_all(gold_path: Path, run_paths: list[Path]) -> tuple[float, float]:
    """CPU seconds of the BINARIZED scoring alone of each run (read beforehand, one at a time), and
    of rendering its scores as the JSON output does."""
    evaluator = Evaluator(read_file(gold_path, "gold"), Settings())
    scoring = output = 0.0
    for p in run_paths:
        run = read_file(p, "cclqa")
        spent, result = _timed(lambda run=run: evaluator.evaluate(run))
        scoring += spent
        output += _timed(lambda result=result: json_run(result))[0]
    return scoring, output


def measure(gold_path: Path, run_paths: list[Path]) -> dict[str, float]:
    """One round; every figure in seconds."""
    parse, _ = _timed(lambda: _parse_all(run_paths))
    total, scored = _timed(lambda: _evaluate_files(gold_path, run_paths))
    assert scored == len(run_paths)
    safe, _ = _timed(lambda: [load_xml(p) and None for p in run_paths])
    read_gold, _ = _timed(lambda: read_file(gold_path, "gold"))
    read_runs, _ = _timed(lambda: [read_file(p, "cclqa") and None for p in run_paths])
    scoring, output = _score_all(gold_path, run_paths)
    return {"parse": parse, "total": total, "ratio": total / parse, "read_gold": read_gold, "read_runs": read_runs,
            "safe_parse": safe, "scan": read_runs - safe, "scoring": scoring, "output": output}


# ---------------------------------------------------------------- whole processes

LXML_PARSE = "import sys\nfrom lxml import etree\nfor path in sys.argv[1:]:\n    etree.parse(path)\n"
PROCESS_AIM = 3.0


def _process_cpu(command: list[str], output: Path) -> float:
    """CPU seconds (user + system) of one subprocess writing its standard output to `output`."""
    with open(output, "wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(process.pid, 0)
    error = process.stderr.read().decode()
    process.stderr.close()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise SystemExit(f"failed: {' '.join(command[:4])} ...: {error[-2000:]}")
    return usage.ru_utime + usage.ru_stime


def measure_processes(gold_path: Path, run_paths: list[Path], rounds: int) -> dict[str, float]:
    """`sepia evaluate` (BINARIZED) and an lxml parse of the same runs, each a whole process,
    interleaved; medians of the CPU seconds and of the rounds' ratios."""
    sepia = [sys.executable, "-c", "from sepia.cli import main; main()", "evaluate", "--gold", str(gold_path),
             *map(str, run_paths), "--format", "json"]
    lxml = [sys.executable, "-c", LXML_PARSE, *map(str, run_paths)]
    one = sepia[:sepia.index(str(run_paths[0])) + 1] + ["--format", "json"]  # start-up, and one run
    out = gold_path.with_name("evaluate.out")
    found = []
    for r in range(rounds):
        sides = [("sepia", sepia), ("lxml", lxml), ("one", one)]
        found.append({name: _process_cpu(command, out) for name, command in (sides if r % 2 else sides[::-1])})
        found[-1]["ratio"] = found[-1]["sepia"] / found[-1]["lxml"]
    return _medians(found)


# ---------------------------------------------------------------- human judgments

def make_human_workload(runs: int, seed: int, topics: int = 20, responses: int = 10):
    """A gold standard, `runs` runs of `responses` answers per topic, and their judgments."""
    rng = random.Random(seed)
    maker = TextMaker(rng)
    gold = make_gold(maker, topics, rng)
    run_list, judgments = [], []
    for i in range(runs):
        run = make_run(maker, gold, i, rng, responses)
        run_list.append(run)
        for topic, gold_topic in zip(run.topics, gold.topics):
            for answer in topic.answers:
                for nugget in rng.sample(gold_topic.nuggets, 2):
                    for assessor in ("a1", "a2")[:rng.randint(1, 2)]:
                        judgments.append(Judgment(topic.topic_id, run.run_id, answer.rank, nugget.nugget_id,
                                                  rng.choice((1.0, 0.5, 0.0)), assessor))
    return gold, run_list, judgments


def minimal_human_f3(gold: GoldStandard, runs: list[CCLQARun], judgments: list[Judgment], beta: float = 3.0,
                     partial: float = 0.5) -> dict[str, list[float]]:
    """Human F3 per run and topic by a straight loop: the upper median of each judged (run, topic,
    rank, nugget), a nugget's best over the run's answers, then recall, precision and F."""
    decided = straight_decisions((j.run_id, j.topic_id, j.answer_rank, j.nugget_id, j.match) for j in judgments)
    topics = straight_topics(gold)
    scores = {}
    for run in runs:
        answered = {t.topic_id: [(a.rank, a.text) for a in t.answers] for t in run.topics}
        scores[run.run_id] = [straight_topic_f(topic, weights, c, answered.get(topic.topic_id),
                                               decided.get((run.run_id, topic.topic_id), ()), beta, partial)
                              for topic, weights, c in topics]
    return scores


def measure_human(gold: GoldStandard, runs: list[CCLQARun], judgments: list[Judgment]) -> dict[str, float]:
    minimal, expected = _timed(lambda: minimal_human_f3(gold, runs, judgments))
    sepia, results = _timed(lambda: Evaluator(gold, Settings("human"), judgments).rank(runs))
    assert {r.run_id: [t.f for t in r.topics] for r in results} == expected, "not the same F3"
    return {"minimal": minimal, "sepia": sepia, "ratio": sepia / minimal}


def _breakdown(w: dict[str, float], s: dict[str, float], scale: float) -> None:
    """Where the whole process's time goes, in seconds and in lxml parses of the same runs: each stage
    as measured in one process, scaled from its runs to the process's, and the rest of the process
    (imports, the gold standard, tables, the document around the runs' JSON)."""
    stages = {"load (UTF-8, DOCTYPE)": s["safe_parse"], "parse, check, extract": s["scan"],
              "match (BINARIZED)": s["scoring"], "output (each run's JSON)": s["output"]}
    stages = {name: seconds * scale for name, seconds in stages.items()}
    start = max(w["sepia"] - sum(stages.values()), 0.0)
    print(f"  {'where the time goes':32}{'CPU s':>8}{'x lxml':>8}")
    for name, seconds in {"the rest: imports, gold, ...": start, **stages}.items():
        print(f"    {name:30}{seconds:8.3f}{seconds / w['lxml']:8.2f}")


def _medians(rounds: list[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.median(r[key] for r in rounds) for key in rounds[0]}  # the ratio: per round


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="number of run files (N)")
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5, help="rounds; medians are reported")
    parser.add_argument("--human-runs", type=int, default=1000, help="runs scored with human judgments (0: none)")
    parser.add_argument("--seed", type=int, default=20100615)
    parser.add_argument("--process-runs", type=int, default=40, help="runs the whole-process comparison takes "
                                                                        "(0: none)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sepia-bench-") as tmp:
        gold_path, run_paths = write_workload(Path(tmp), max(args.runs, args.process_runs), args.topics, args.seed)
        process_paths, run_paths = run_paths[:args.process_runs], run_paths[:args.runs]
        megabytes = sum(p.stat().st_size for p in run_paths) / 1e6
        s = _medians([measure(gold_path, run_paths) for _ in range(args.repeat)])
        if process_paths:
            process_megabytes = sum(p.stat().st_size for p in process_paths) / 1e6
            w = measure_processes(gold_path, process_paths, args.repeat)
    report = {"runs": args.runs, "topics": args.topics, "responses_per_topic": 30, "run_megabytes": round(megabytes, 2),
              "repeat": args.repeat, "seconds": {k: round(v, 4) for k, v in s.items() if k != "ratio"},
              "runs_per_second": round(args.runs / s["total"], 2), "ratio": round(s["ratio"], 2), "aim": 2.0}
    if process_paths:
        report["process"] = {"runs": args.process_runs, "run_megabytes": round(process_megabytes, 2),
                             "lxml_cpu": round(w["lxml"], 3), "sepia_cpu": round(w["sepia"], 3),
                             "sepia_first_run_cpu": round(w["one"], 3),
                             "ratio": round(w["ratio"], 2), "aim": PROCESS_AIM}
    if args.human_runs:
        workload = make_human_workload(args.human_runs, args.seed)
        h = _medians([measure_human(*workload) for _ in range(args.repeat)])
        report["human"] = {"runs": args.human_runs, "judgments": len(workload[2]), "minimal_seconds": round(h["minimal"], 4),
                           "sepia_seconds": round(h["sepia"], 4), "ratio": round(h["ratio"], 2), "aim": 1.5}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"{args.runs} runs x {args.topics} topics x 30 responses ({megabytes:.1f} MB of run XML), "
          f"CPU seconds, median of {args.repeat} rounds")
    print(f"  lxml parse of the runs      {s['parse']:8.3f} s")
    print(f"  total evaluation            {s['total']:8.3f} s   {report['runs_per_second']:.1f} runs/s"
          f"   ratio {s['ratio']:.2f}   aim <= 2")
    print(f"    read gold standard        {s['read_gold']:8.3f} s")
    print(f"    read runs                 {s['read_runs']:8.3f} s")
    print(f"      load (UTF-8, DOCTYPE)   {s['safe_parse']:8.3f} s")
    print(f"      parse, check, extract   {s['scan']:8.3f} s   ({s['scan'] / s['parse']:.2f} x the lxml parse)")
    print(f"    scoring (BINARIZED)       {s['scoring']:8.3f} s")
    print(f"  output (each run's JSON)    {s['output']:8.3f} s")
    if process_paths:
        print(f"whole processes, {args.process_runs} runs ({process_megabytes:.1f} MB), CPU seconds, median of "
              f"{args.repeat} interleaved rounds; load average {os.getloadavg()[0]:.2f}")
        print(f"  python: lxml parse of the runs  {w['lxml']:8.3f} s")
        print(f"  sepia evaluate (BINARIZED)      {w['sepia']:8.3f} s   ratio {w['ratio']:.2f}   aim <= {PROCESS_AIM:g}")
        print(f"  sepia evaluate, the first run   {w['one']:8.3f} s")
        _breakdown(w, s, args.process_runs / args.runs)
    if args.human_runs:
        hr = report["human"]
        print(f"human judgments: {hr['runs']} runs x 20 topics x 10 responses, {hr['judgments']:,} judgments")
        print(f"  minimal scorer              {h['minimal']:8.3f} s")
        print(f"  SEPIA (human F3)            {h['sepia']:8.3f} s   ratio {h['ratio']:.2f}   aim <= 1.5")


if __name__ == "__main__":
    main()
