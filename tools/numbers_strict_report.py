"""`--numbers strict` against the aims of issue 26 item 4, on the sample gold standards (corpora/) and
the TREC 2024 RAG nuggets: the fooled rate of the changed-numbers probe (aim: at most 10%) and the
run-level Kendall tau-b against human F3 (aim: not lower than without strict), for binarized and
softmatch, lenient beside strict. Prints the Markdown table docs/measurements.md shows:

    .venv/bin/python tools/numbers_strict_report.py [../shared/data/trec-rag24/rag24_nugget_assignment.20241108.jl]
"""
from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from scipy.stats import kendalltau

from sepia.convert.nuggetizer import convert_nuggetizer, write_conversion
from sepia.formats.judgments import read_judgments
from sepia.formats.read import read_file
from sepia.metaeval.adversarial import fooled_rates, make_evaluators, probe_context
from sepia.scoring.evaluate import Settings, evaluate_runs

ROOT = Path(__file__).resolve().parents[1]
RAG24 = ROOT.parent / "shared" / "data" / "trec-rag24" / "rag24_nugget_assignment.20241108.jl"
MATCHERS = ("binarized", "softmatch")
RULES = ("lenient", "strict")


def read_campaign(folder: Path):
    gold = read_file(folder / "gold.xml", "gold")
    runs = [read_file(p, "cclqa") for p in sorted((folder / "runs").glob("*.xml"))]
    return gold, runs, read_judgments(folder / "judgments.tsv")


def tau_b(human: dict[str, float], automatic: dict[str, float]) -> float:
    order = sorted(human)
    return kendalltau([human[r] for r in order], [automatic[r] for r in order], variant="b").statistic


def rows(name: str, gold, runs, judgments) -> list[str]:
    human = {r.run_id: r.score for r in evaluate_runs(gold, runs, matcher="human", judgments=judgments)}
    ctx = probe_context(gold)
    fooled, _ = fooled_rates(gold, make_evaluators(gold, MATCHERS, RULES, {}, Settings()), ctx, ["numbers"])
    by_label = {r.matcher: r for r in fooled}
    lines = []
    for matcher in MATCHERS:
        for rule in RULES:
            automatic = {r.run_id: r.score for r in evaluate_runs(gold, runs, matcher=matcher, numbers=rule)}
            probe = by_label[matcher + (" --numbers strict" if rule == "strict" else "")]
            lines.append(f"| {name} | {matcher} | {rule} | {probe.fooled}/{probe.topics} = {100 * probe.rate:.0f}% "
                         f"| {tau_b(human, automatic):.3f} |")
    return lines


def theta_table(gold, runs, judgments, thetas=(0.4, 0.5, 0.6)) -> str:
    """BINARIZED's run tau-b against human F3 at a few thresholds, lenient and strict: whether the
    difference at theta 0.5 is the rule's or the threshold's."""
    human = {r.run_id: r.score for r in evaluate_runs(gold, runs, matcher="human", judgments=judgments)}
    lines = ["| BINARIZED theta | lenient tau-b | strict tau-b |", "|---|---|---|"]
    for theta in thetas:
        taus = [tau_b(human, {r.run_id: r.score for r in evaluate_runs(gold, runs, theta=theta, numbers=rule)})
                for rule in RULES]
        lines.append(f"| {theta:g} | {taus[0]:.3f} | {taus[1]:.3f} |")
    return "\n".join(lines)


def main(rag24: Path = RAG24) -> None:
    print("| data | matcher | numbers | changed-numbers probe fooled | run tau-b vs human F3 |")
    print("|---|---|---|---|---|")
    for lang in ("cs", "ct", "ja"):
        for line in rows(f"sample {lang.upper()} ({len(read_campaign(ROOT / 'corpora' / lang)[1])} runs)",
                         *read_campaign(ROOT / "corpora" / lang)):
            print(line)
    if rag24.exists():
        with tempfile.TemporaryDirectory() as tmp:
            out = write_conversion(convert_nuggetizer(rag24, partial=0.5), Path(tmp) / "rag24")
            gold, runs, judgments = read_campaign(out)
            for line in rows(f"TREC RAG 2024 ({len(runs)} runs)", gold, runs, judgments):
                print(line)
            print()
            print(theta_table(gold, runs, judgments))
    else:
        print(f"(TREC RAG 2024 data not found at {rag24})")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else RAG24)
