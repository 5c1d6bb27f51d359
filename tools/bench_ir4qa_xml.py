"""Benchmark: `sepia evaluate-ir4qa` on SEPIA IR4QA XML runs against trec_eval's code on the same runs
as TREC files (issue 23, item 2), wall time, CPU time and memory.

    .venv/bin/python tools/bench_ir4qa_xml.py [--runs 100] [--topics 100] [--docs 1000] [--repeat 3] [--json]

The workload is tools/bench_ir4qa.py's (seeded TREC qrels and runs). Each TREC run is written again
as SEPIA XML (about 7 MB a run of 100 topics), each topic's documents in the order trec_eval ranks
them (score, then DOCID) with ranks 1..n, so that both sides score the same rankings; the XML and a
copy of the qrels name topic Q `ACLIA2-CS-Q`, as SEPIA topic IDs go, and the runs are `B001-CS-CS-01-T`...
Both sides run as subprocesses, interleaved (the order alternates from round to round):
  reference  trec_eval's C code through pytrec_eval on the TREC files (bench_ir4qa.py's);
  sepia      `sepia evaluate-ir4qa --qrels Q RUN.xml... --measures AP,P@10,nDCG,RR,Bpref --format trec`.
The aim: sepia's CPU time (user + system, whole process) at most 1.5 times the reference's, as issue 23
measures; the wall-time ratio is printed beside it (on a shared machine it is mostly waiting for a core).
Every round checks that both printed the same values (to trec_eval's four decimals).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ir4qa import check_same, run_reference, run_sepia, write_workload  # noqa: E402

CPU_AIM = 1.5
PREFIX = "ACLIA2-CS-"


def as_sepia(directory: Path, qrels: Path, runs: list[Path]) -> tuple[Path, list[Path]]:
    """The qrels with SEPIA topic IDs, and each TREC run as a SEPIA IR4QA XML file. Run in a process of
    its own (`--write-xml`): a child's peak RSS starts at its parent's, which this would raise."""
    from sepia.formats.model import IR4QARun, IR4QATopic, Metadata, RetrievedDoc
    from sepia.formats.write import to_xml
    from sepia.ir4qa.trec import read_trec_runs

    sepia_qrels = directory / "qrels-sepia.txt"
    sepia_qrels.write_text("".join(PREFIX + line for line in qrels.read_text().splitlines(keepends=True)))
    paths = []
    for i, path in enumerate(runs, 1):
        ((_tag, rankings),) = read_trec_runs(path)
        run_id = f"B{i:03d}-CS-CS-01-T"
        topics = [IR4QATopic(PREFIX + qid, [RetrievedDoc(r, d) for r, d in enumerate(docids, 1)])
                  for qid, docids in rankings.items()]
        paths.append(directory / f"run{i:03d}.xml")
        paths[-1].write_bytes(to_xml(IR4QARun(Metadata(run_id, "benchmark run"), topics)))
    return sepia_qrels, paths


def without_prefix(path: Path) -> Path:
    """sepia's output with the TREC topic IDs back, for the comparison."""
    plain = path.with_suffix(".plain")
    plain.write_text(path.read_text().replace("\t" + PREFIX, "\t"))
    return plain


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--docs", type=int, default=1000, help="documents per topic in each run")
    parser.add_argument("--repeat", type=int, default=3, help="rounds, each timing both sides; medians reported")
    parser.add_argument("--seed", type=int, default=20080101)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--write-xml", nargs="+", metavar="PATH", help=argparse.SUPPRESS)  # DIRECTORY QRELS RUN...
    args = parser.parse_args()
    if args.write_xml:
        directory, qrels, *runs = map(Path, args.write_xml)
        as_sepia(directory, qrels, runs)
        return
    with tempfile.TemporaryDirectory(prefix="sepia-bench-ir4qa-xml-") as tmp:
        directory = Path(tmp)
        qrels, runs = write_workload(directory, args.runs, args.topics, args.docs, args.seed)
        subprocess.run([sys.executable, __file__, "--write-xml", tmp, str(qrels), *map(str, runs)], check=True)
        sepia_qrels, xml_runs = directory / "qrels-sepia.txt", [directory / f"run{i:03d}.xml"
                                                                  for i in range(1, len(runs) + 1)]
        megabytes = sum(p.stat().st_size for p in xml_runs) / 1e6
        rounds = []
        for r in range(args.repeat):
            sides = [("sepia", lambda: run_sepia(sepia_qrels, xml_runs, directory / "sepia.out")),
                     ("reference", lambda: run_reference(qrels, runs, directory / "reference.out", None))]
            rounds.append({name: side() for name, side in (sides if r % 2 == 0 else sides[::-1])})
            compared = check_same(without_prefix(directory / "sepia.out"), directory / "reference.out")
    load = os.getloadavg()

    def median(side: str, index: int) -> float:
        return statistics.median(r[side][index] for r in rounds)

    ratio = statistics.median(r["sepia"][0] / r["reference"][0] for r in rounds)
    cpu_ratio = statistics.median(r["sepia"][1] / r["reference"][1] for r in rounds)
    report = {"runs": args.runs, "topics": args.topics, "docs": args.docs, "xml_megabytes": round(megabytes, 1),
              "repeat": args.repeat, "values_compared": compared, "load_average": load,
              **{side: {"wall": round(median(side, 0), 3), "cpu": round(median(side, 1), 3),
                        "peak_rss_mb": round(max(r[side][2] for r in rounds), 1)} for side in ("reference", "sepia")},
              "wall_ratio": round(ratio, 2), "cpu_ratio": round(cpu_ratio, 2), "cpu_aim": CPU_AIM}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    s, ref = report["sepia"], report["reference"]
    print(f"{args.runs} runs x {args.topics} topics x {args.docs} documents ({megabytes:.0f} MB of SEPIA XML), "
          f"median of {args.repeat} interleaved rounds, each side a subprocess; load average "
          f"{' '.join(f'{x:.2f}' for x in load)} on {os.cpu_count()} cores")
    print(f"  {'':36}{'wall s':>9}{'CPU s':>9}{'peak RSS':>11}")
    print(f"  {'reference: pytrec_eval, TREC files':36}{ref['wall']:9.2f}{ref['cpu']:9.2f}{ref['peak_rss_mb']:8.0f} MB")
    print(f"  {'sepia evaluate-ir4qa, XML runs':36}{s['wall']:9.2f}{s['cpu']:9.2f}{s['peak_rss_mb']:8.0f} MB")
    print(f"  CPU ratio {cpu_ratio:.2f}  (aim <= {CPU_AIM}: {'met' if cpu_ratio <= CPU_AIM else 'NOT MET'})"
          f"   wall-time ratio {ratio:.2f}")
    print(f"  {compared} per-topic values compared: the same to four decimals")


if __name__ == "__main__":
    main()
