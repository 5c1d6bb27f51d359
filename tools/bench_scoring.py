"""Benchmark: `sepia evaluate --matcher binarized` on an ACLIA-scale workload, against lxml's parse time.

    .venv/bin/python tools/bench_scoring.py [--runs 20] [--topics 100] [--repeat 5] [--json]

Generates (seeded) a gold standard of T topics with about 10 nuggets of 5-30 characters each and N
CCLQA runs with 30 responses of 20-200 characters per topic, in Chinese/Japanese-like text with some
Latin words and digits; responses borrow pieces of the topic's nuggets so that every degree of match
occurs. All files are written with `sepia.formats.write.to_xml` into a temporary directory.

Measured in one process in CPU seconds (time.process_time), median of `--repeat` rounds (the ratio is
the median of the rounds' ratios):
  baseline  `lxml.etree.parse` of each run file, nothing else;
  total     what the evaluate command does: `read_file` of the gold standard and of every run (safe
            loading, XSD validation, semantic checks, model objects) and `evaluate_runs` (BINARIZED).
The aim is total / baseline <= 2. The break-down splits reading into safe parsing, XSD validation
and building the model (with the semantic checks), and shows the scoring on its own.
"""
from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import tempfile
import time
from pathlib import Path

from lxml import etree

from sepia.formats.model import (Answer, CCLQARun, CCLQATopic, GoldNugget, GoldStandard, GoldTopic, LangText,
                                 Metadata)
from sepia.formats.read import read_file
from sepia.formats.write import to_xml
from sepia.formats.xmlsafe import load_xml
from sepia.resources import schema_path
from sepia.scoring.evaluate import evaluate_runs

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


def make_run(maker: TextMaker, gold: GoldStandard, index: int, rng: random.Random) -> CCLQARun:
    run_id = f"BENCH{index // 50:02d}-CS-CS-{index % 50 + 1:02d}-T"
    topics = []
    for topic in gold.topics:
        borrow = [n.text for n in topic.nuggets if rng.random() < 0.5]
        answers = [Answer(rank + 1, maker.text(20, 200, borrow), [f"XIN_CMN_{rank:08d}"]) for rank in range(30)]
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
    start = time.process_time()
    result = function()
    return time.process_time() - start, result


def measure(gold_path: Path, run_paths: list[Path]) -> dict[str, float]:
    """One round; every figure in seconds."""
    # Each tree is freed as soon as it is done with, as the evaluate command does.
    parse, _ = _timed(lambda: [etree.parse(str(p)) and None for p in run_paths])
    safe, _ = _timed(lambda: [load_xml(p) and None for p in run_paths])
    schema = etree.XMLSchema(etree.parse(str(schema_path("cclqa"))))
    loaded = [load_xml(p) for p in run_paths]
    xsd, _ = _timed(lambda: [schema.validate(x.root.getroottree()) for x in loaded])
    del loaded
    read_gold, gold = _timed(lambda: read_file(gold_path, "gold"))
    read_runs, runs = _timed(lambda: [read_file(p, "cclqa") for p in run_paths])
    scoring, results = _timed(lambda: evaluate_runs(gold, runs, matcher="binarized"))
    assert len(results) == len(run_paths)
    total = read_gold + read_runs + scoring
    return {"parse": parse, "total": total, "ratio": total / parse, "read_gold": read_gold, "read_runs": read_runs,
            "safe_parse": safe, "xsd": xsd, "model": read_runs - safe - xsd, "scoring": scoring}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="number of run files (N)")
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=5, help="rounds; medians are reported")
    parser.add_argument("--seed", type=int, default=20100615)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sepia-bench-") as tmp:
        gold_path, run_paths = write_workload(Path(tmp), args.runs, args.topics, args.seed)
        megabytes = sum(p.stat().st_size for p in run_paths) / 1e6
        rounds = [measure(gold_path, run_paths) for _ in range(args.repeat)]
    median = {key: statistics.median(r[key] for r in rounds) for key in rounds[0]}  # the ratio: per round
    ratio = median.pop("ratio")
    report = {"runs": args.runs, "topics": args.topics, "responses_per_topic": 30, "run_megabytes": round(megabytes, 2),
              "repeat": args.repeat, "seconds": {k: round(v, 4) for k, v in median.items()},
              "runs_per_second": round(args.runs / median["total"], 2),
              "ratio": round(ratio, 2)}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    s = median
    print(f"{args.runs} runs x {args.topics} topics x 30 responses ({megabytes:.1f} MB of run XML), "
          f"CPU seconds, median of {args.repeat} rounds")
    print(f"  lxml parse of the runs      {s['parse']:8.3f} s")
    print(f"  total evaluation            {s['total']:8.3f} s   {report['runs_per_second']:.1f} runs/s"
          f"   ratio {report['ratio']:.2f} (aim <= 2)")
    print(f"    read gold standard        {s['read_gold']:8.3f} s")
    print(f"    read runs                 {s['read_runs']:8.3f} s")
    print(f"      safe parse              {s['safe_parse']:8.3f} s")
    print(f"      XSD validation          {s['xsd']:8.3f} s")
    print(f"      model + checks          {s['model']:8.3f} s")
    print(f"    scoring (BINARIZED)       {s['scoring']:8.3f} s")


if __name__ == "__main__":
    main()
