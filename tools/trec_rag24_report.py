"""Human F3 against BINARIZED F3 on the TREC RAG 2024 nugget assignments (docs/trec-rag24.md).

Converts the file with `sepia convert nuggetizer` into a temporary directory, reads the outputs back
as `sepia evaluate` would, scores the 45 runs with the human judgments and with the BINARIZED
matcher (theta 0.5; once with the default tokens, once stemmed without stop words), and prints the
Markdown that docs/trec-rag24.md shows, so the page can be regenerated:

    .venv/bin/python tools/trec_rag24_report.py [../shared/data/trec-rag24/rag24_nugget_assignment.20241108.jl]
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from scipy.stats import kendalltau, rankdata

from sepia.convert.nuggetizer import convert_nuggetizer, write_conversion
from sepia.formats.judgments import read_judgments
from sepia.formats.read import read_file
from sepia.scoring.allowance import mean_nugget_lengths
from sepia.scoring.evaluate import evaluate_runs
from sepia.scoring.tokenize import Tokenizer

DEFAULT_PATH = (Path(__file__).resolve().parents[2] / "shared" / "data" / "trec-rag24"
                / "rag24_nugget_assignment.20241108.jl")


def converted(path: Path, tmp: Path, partial: float):
    """Gold standard, runs and judgments, read back from the files the converter writes."""
    conversion = convert_nuggetizer(path, partial=partial)
    out = write_conversion(conversion, tmp / f"partial-{partial:g}")
    gold = read_file(out / "gold.xml", "gold")
    runs = [read_file(p, "cclqa") for p in sorted((out / "runs").glob("*.xml"))]
    return conversion, gold, runs, read_judgments(out / "judgments.tsv")


def scores(results) -> dict[str, float]:
    return {r.run_id: r.score for r in results}


def ranks(score: dict[str, float], order: list[str]) -> list[int]:
    """1 = best; tied runs share the best rank of their group."""
    return [int(r) for r in rankdata([-score[run] for run in order], method="min")]


def tau(a: dict[str, float], b: dict[str, float], order: list[str]) -> str:
    result = kendalltau([a[r] for r in order], [b[r] for r in order], variant="b")
    return f"{result.statistic:.3f} (p = {result.pvalue:.1e})"


def report(path: Path) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        conversion, gold, runs, judgments = converted(path, Path(tmp), partial=0.5)
    human_results = evaluate_runs(gold, runs, matcher="human", judgments=judgments)
    human = scores(human_results)
    strict = scores(evaluate_runs(gold, runs, matcher="human", judgments=judgments, partial=0))
    lenient = scores(evaluate_runs(gold, runs, matcher="human", judgments=judgments, partial=1))
    binarized = scores(evaluate_runs(gold, runs, matcher="binarized"))
    stemmed = scores(evaluate_runs(gold, runs, matcher="binarized", tokenizer=Tokenizer(stem=True, stopwords=True)))
    nugget = {r.run_id: r.nuggetizer for r in human_results}
    official = {run: nugget[run]["answered_topics"]["strict_vital"] for run in human}
    over_all = {run: nugget[run]["all_topics"]["strict_vital"] for run in human}

    order = sorted(human, key=lambda r: (-human[r], r))
    original = {sepia_id: run_id for run_id, sepia_id in conversion.run_ids.items()}
    columns = [ranks(s, order) for s in (human, binarized, stemmed)]
    allowance = mean_nugget_lengths(gold)[("EN", "OTHER")]
    lines = [
        f"{len(gold.topics)} topics, {len(runs)} runs; C = {allowance:.2f} characters (mean length of the "
        f"{sum(len(t.nuggets) for t in gold.topics)} nuggets); pyramid weights; human judgments as converted "
        "(partial_support is 0.5 and counts half a match).",
        "",
        "| run | human F3 | rank | BINARIZED F3 | rank | BINARIZED F3, stem + stop | rank |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for i, run in enumerate(order):
        lines.append(f"| {original[run]} | {human[run]:.4f} | {columns[0][i]} | {binarized[run]:.4f} | "
                     f"{columns[1][i]} | {stemmed[run]:.4f} | {columns[2][i]} |")
    lines += [
        "",
        f"- Kendall's tau-b, human vs BINARIZED: {tau(human, binarized, order)}",
        f"- Kendall's tau-b, human vs BINARIZED with stemming and without stop words: "
        f"{tau(human, stemmed, order)}",
        f"- Kendall's tau-b, human (partial 0.5) vs strict human (`--partial 0`): {tau(human, strict, order)}",
        f"- Kendall's tau-b, human (partial 0.5) vs lenient human (`--partial 1`): {tau(human, lenient, order)}",
        "",
        "TREC RAG's four nugget scores (`sepia evaluate --matcher human --measures nuggetizer`), each the "
        "mean over the topics the run answered, as nuggetizer computes it; runs by strict vital, TREC's "
        "official score. The last column is strict vital over all 21 topics (an unanswered topic scores 0).",
        "",
        "| run | strict vital | rank | vital | strict all | all | answered | strict vital, all topics |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    by_official = sorted(human, key=lambda r: (-official[r], r))
    for run, rank in zip(by_official, ranks(official, by_official)):
        means = nugget[run]["answered_topics"]
        lines.append(f"| {original[run]} | {means['strict_vital']:.4f} | {rank} | {means['vital']:.4f} | "
                     f"{means['strict_all']:.4f} | {means['all']:.4f} | {nugget[run]['answered']} | "
                     f"{over_all[run]:.4f} |")
    lines += [
        "",
        f"- Kendall's tau-b against the official strict-vital ranking: human F3 {tau(official, human, order)}; "
        f"BINARIZED F3 {tau(official, binarized, order)}; BINARIZED F3 with stemming and without stop words "
        f"{tau(official, stemmed, order)}; strict vital over all 21 topics {tau(official, over_all, order)}",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    path = Path(argv[1]) if len(argv) > 1 else DEFAULT_PATH
    sys.stdout.write(report(path))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
