"""Human F3 against BINARIZED F3 on the TREC RAG 2024 nugget assignments (docs/measurements.md).

Converts the file with `sepia convert nuggetizer` into a temporary directory, reads the outputs back
as `sepia evaluate` would, scores the 45 runs with the human judgments and with the BINARIZED
matcher (theta 0.5; once with the default tokens, once stemmed without stop words, and once more so
with the English analysis SEPIA used before, to show what the stemmer swap changed), and prints the
Markdown that docs/measurements.md shows, so the page can be regenerated:

    .venv/bin/python tools/trec_rag24_report.py [--check] [../shared/data/trec-rag24/rag24_nugget_assignment.20241108.jl]

With --check it also says whether docs/measurements.md shows exactly this output (exit 1 if not): the
full check, about 12 s of CPU, which the test suite leaves to this tool (it runs the report on a
slice of the topics).
"""
from __future__ import annotations

import sys
import tempfile
from functools import cached_property
from pathlib import Path

from scipy.stats import kendalltau, rankdata

from sepia.convert.nuggetizer import convert_nuggetizer, write_conversion
from sepia.formats.judgments import read_judgments
from sepia.formats.read import read_file
from sepia.scoring.allowance import mean_nugget_lengths
from sepia.scoring.evaluate import evaluate_runs
from sepia.text.tokenize import Tokenizer

DEFAULT_PATH = (Path(__file__).resolve().parents[2] / "shared" / "data" / "trec-rag24"
                / "rag24_nugget_assignment.20241108.jl")


class WhooshStopWords(Tokenizer):
    """`--stopwords` with Whoosh's 34 stop words, as SEPIA had it before sepia.text.english. This and
    the next are kept here only to show what the swap changed, one part at a time."""

    @cached_property
    def _stop(self) -> frozenset[str]:
        from whoosh.analysis import STOP_WORDS

        return frozenset(STOP_WORDS)


class PorterTwo(WhooshStopWords):
    """`--stem --stopwords` as before: Whoosh's porter2 (an older Snowball English), Whoosh's stop words."""

    @cached_property
    def _stemmer(self):
        from whoosh.lang.porter2 import stem

        return lambda word: stem(word) if word.isascii() else word


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


def score_rows(order: list[str], original: dict[str, str], columns: list[dict[str, float]], extra=None) -> list[str]:
    """One Markdown row per run: each column's score and rank; `extra(run)` adds a last cell."""
    column_ranks = [ranks(c, order) for c in columns]
    rows = []
    for i, run in enumerate(order):
        cells = [f"{c[run]:.4f} | {r[i]}" for c, r in zip(columns, column_ranks)] + ([extra(run)] if extra else [])
        rows.append(f"| {original[run]} | {' | '.join(cells)} |")
    return rows


def tau(a: dict[str, float], b: dict[str, float], order: list[str]) -> str:
    result = kendalltau([a[r] for r in order], [b[r] for r in order], variant="b")
    return f"{result.statistic:.3f} (p = {result.pvalue:.1e})"


def matched_changes(before, after) -> tuple[int, int, float, float]:
    """(cells, cells that changed, nuggets gained, nuggets lost) over the (run, topic) cells of two
    BINARIZED evaluations: the change of each cell's matched nugget count, net within the cell."""
    changed, gained, lost, cells = 0, 0.0, 0.0, 0
    old = {(r.run_id, t.topic_id): t.matched for r in before for t in r.topics}
    for r in after:
        for t in r.topics:
            cells += 1
            delta = t.matched - old[(r.run_id, t.topic_id)]
            changed += delta != 0
            gained += max(delta, 0)
            lost += max(-delta, 0)
    return cells, changed, gained, lost


def softmatch_changes(before, after) -> int:
    """(run, topic) cells whose softmatch sum differs between two softmatch evaluations."""
    old = {(r.run_id, t.topic_id): t.matched for r in before for t in r.topics}
    return sum(abs(t.matched - old[(r.run_id, t.topic_id)]) > 1e-9 for r in after for t in r.topics)


def swap_section(human, official, before, stemmer_only, after, order, original, soft_cells) -> list[str]:
    """What replacing porter2 and Whoosh's stop words by sepia.text.english did to `--stem --stopwords`,
    the stemmer and the stop words one at a time."""
    old, mid, new = scores(before), scores(stemmer_only), scores(after)
    old_rank, mid_rank, new_rank = ranks(old, order), ranks(mid, order), ranks(new, order)

    def changes(a, b, a_scores, b_scores, a_rank, b_rank) -> str:
        cells, changed, gained, lost = matched_changes(a, b)
        return (f"the matched nugget count changed in {changed} of {cells} run x topic cells ({gained:g} "
                f"nuggets gained, {lost:g} lost), the score of {sum(a_scores[r] != b_scores[r] for r in order)} "
                f"runs and the rank of {sum(x != y for x, y in zip(a_rank, b_rank))}")

    lines = [
        "",
        "#### What the stemmer swap changed",
        "",
        "The stem + stop columns above use SEPIA's English analysis (`sepia/text/english.py`: Snowball "
        "English 3.1 from PyStemmer and SEPIA's stop word list, Snowball's). Before, `--stem --stopwords` "
        "used Whoosh's porter2 (an older Snowball English) and Whoosh's 34 stop words. The same BINARIZED F3 "
        "before, with only the stemmer swapped, and now:",
        "",
        "| run | before: porter2, Whoosh's stop words | rank | Snowball, Whoosh's stop words | rank "
        "| now: Snowball, SEPIA's stop words | rank | change |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    lines += score_rows(order, original, [old, mid, new], extra=lambda run: f"{new[run] - old[run]:+.4f}")
    lines += [
        "",
        f"- The stemmer alone (porter2 to Snowball): {changes(before, stemmer_only, old, mid, old_rank, mid_rank)}; "
        f"its softmatch sums (before theta) changed in {soft_cells} cells",
        f"- The stop words alone (Whoosh's to SEPIA's): {changes(stemmer_only, after, mid, new, mid_rank, new_rank)}",
        f"- Kendall's tau-b, human vs BINARIZED stem + stop: before {tau(human, old, order)}; stemmer swapped "
        f"{tau(human, mid, order)}; now {tau(human, new, order)}",
        f"- Kendall's tau-b, official strict vital vs BINARIZED stem + stop: before {tau(official, old, order)}; "
        f"stemmer swapped {tau(official, mid, order)}; now {tau(official, new, order)}",
        f"- Kendall's tau-b, BINARIZED stem + stop before vs now: {tau(old, new, order)}",
    ]
    return lines


def report(path: Path) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        conversion, gold, runs, judgments = converted(path, Path(tmp), partial=0.5)
    human_results = evaluate_runs(gold, runs, matcher="human", judgments=judgments)
    human = scores(human_results)
    strict = scores(evaluate_runs(gold, runs, matcher="human", judgments=judgments, partial=0))
    lenient = scores(evaluate_runs(gold, runs, matcher="human", judgments=judgments, partial=1))
    binarized = scores(evaluate_runs(gold, runs, matcher="binarized"))
    stemmed_results = evaluate_runs(gold, runs, matcher="binarized", tokenizer=Tokenizer(stem=True, stopwords=True))
    stemmed = scores(stemmed_results)
    porter2_results, snowball_whoosh_stop = (evaluate_runs(gold, runs, matcher="binarized", tokenizer=kind(stem=True,
                                                                                                       stopwords=True))
                                             for kind in (PorterTwo, WhooshStopWords))
    nugget = {r.run_id: r.nuggetizer for r in human_results}
    official = {run: nugget[run]["answered_topics"]["strict_vital"] for run in human}
    over_all = {run: nugget[run]["all_topics"]["strict_vital"] for run in human}

    order = sorted(human, key=lambda r: (-human[r], r))
    original = {sepia_id: run_id for run_id, sepia_id in conversion.run_ids.items()}
    allowance = mean_nugget_lengths(gold)[("EN", "OTHER")]
    lines = [
        f"{len(gold.topics)} topics, {len(runs)} runs; C = {allowance:.2f} characters (mean length of the "
        f"{sum(len(t.nuggets) for t in gold.topics)} nuggets); pyramid weights; human judgments as converted "
        "(partial_support is 0.5 and counts half a match).",
        "",
        "| run | human F3 | rank | BINARIZED F3 | rank | BINARIZED F3, stem + stop | rank |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    lines += score_rows(order, original, [human, binarized, stemmed])
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
    soft_before, soft_after = (evaluate_runs(gold, runs, matcher="softmatch", tokenizer=kind(stem=True, stopwords=True))
                               for kind in (PorterTwo, WhooshStopWords))
    lines += swap_section(human, official, porter2_results, snowball_whoosh_stop, stemmed_results, order, original,
                          softmatch_changes(soft_before, soft_after))
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    args = [a for a in argv[1:] if a != "--check"]
    path = Path(args[0]) if args else DEFAULT_PATH
    output = report(path)
    sys.stdout.write(output)
    if check:
        docs = Path(__file__).resolve().parents[1] / "docs" / "measurements.md"
        shown = output.strip() in docs.read_text(encoding="utf-8")
        print(f"{docs}: {'shows exactly this output' if shown else 'does NOT show this output'}")
        return 0 if shown else 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
