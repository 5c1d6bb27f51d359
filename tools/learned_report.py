"""The learned matcher against the human judgments, honestly: every run scored by a model that never
saw its own judgments (leave-one-run-out) or its team's (leave-one-team-out), beside SEPIA's other
matchers, on the TREC 2024 RAG data and on the sample campaign (corpora/cs, ct, ja). Prints the
Markdown that docs/measurements.md shows: one table, a row per matcher and option and each data set's
columns, then each data set's size and the learned probabilities' calibration:

    .venv/bin/python tools/learned_report.py [--check] [../shared/data/trec-rag24/rag24_nugget_assignment.20241108.jl]

With --check it also says whether docs/measurements.md shows exactly this output (exit 1 if not): the
full check, about a minute of CPU, which the test suite leaves to this tool (it checks the sample
campaign's columns only, tests/test_learned_matcher.py).

Run level: Kendall's tau-b (scipy) between the runs' human F3 and each matcher's F3. Pair level:
Cohen's kappa (scikit-learn) between the human decision per (answer, nugget) (a match when judged 1
or 0.5, the upper median of the assessors) and the matcher's (BINARIZED: softmatch above 0.5; the
learned matcher: probability at least 0.5).
"""
from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

import numpy as np
from scipy.stats import kendalltau
from sklearn.metrics import cohen_kappa_score

from sepia.convert.nuggetizer import convert_nuggetizer, write_conversion
from sepia.formats.judgments import read_judgments
from sepia.formats.read import read_file
from sepia.scoring.evaluate import evaluate_runs
from sepia.matchers.learned.crossrun import cross_run_predictions
from sepia.matchers.learned.features import FEATURES
from sepia.matchers.learned.matcher import LearnedMatcher
from sepia.matchers.learned.pairs import build_pairs
from sepia.text.tokenize import Tokenizer

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_PATH = ROOT.parent / "shared" / "data" / "trec-rag24" / "rag24_nugget_assignment.20241108.jl"

# TREC RAG 2024 run IDs do not name their teams; these groups are a guess from the names (shared
# prefixes, identical answers), so that leave-one-team-out hides a run's likely siblings too.
TREC_TEAMS = (
    (r"^(ag_rag|agtask|rag_bm25)", "ag"), (r"^(baseline_frag|baseline_rag24)", "baseline"),
    (r"^(BEST|SECOND)_cot", "cot"), (r"^(FT-llama3|ICL-mistral)$", "ft-icl"), (r"^(Ranked|Enhanced)_Iterative", "iter"),
    (r"^neurag", "neurag"), (r"^UWC", "uwc"), (r"^(baseline|ginger)_top_5$", "top5"),
)


class Row(NamedTuple):
    label: str
    tau_run_out: float
    tau_team_out: float
    kappa: str  # "-" where not reported


class DataSet(NamedTuple):
    name: str  # the columns' prefix
    one_run_per_team: bool  # then leaving a team out is leaving a run out: one tau-b column
    rows: list[Row]
    notes: str  # runs, teams, topics, judged pairs; calibration


def trec_team(original: str) -> str:
    for pattern, team in TREC_TEAMS:
        if re.match(pattern, original):
            return team
    return re.split(r"[-_.]", original)[0].lower()


def tau(human: dict[str, float], other: dict[str, float]) -> float:
    order = sorted(human)
    return kendalltau([human[r] for r in order], [other[r] for r in order], variant="b").statistic


def scores(results) -> dict[str, float]:
    return {r.run_id: r.score for r in results}


def learned_rows(gold, runs, pairs, human, teams) -> tuple[list[Row], list[float]]:
    """Table rows of the learned matcher (expected matches and threshold 0.5, each run without its
    own judgments, then without its team's; and without judgment reuse), and the run-held-out
    probabilities."""
    judged = ~np.isnan(pairs.labels)
    truth = (pairs.labels[judged] >= 0.5).astype(int)
    rows, loro = [], None
    for label, holdout, reuse in (("learned", "run", True), ("learned, evidence only (no judgment reuse)", "run", False)):
        by_run = cross_run_predictions(pairs, holdout, reuse)
        by_team = cross_run_predictions(pairs, teams, reuse)
        loro = by_run if reuse else loro
        kappa = cohen_kappa_score(truth, (by_run[judged] >= 0.5).astype(int))
        for mode, threshold in (("expected matches", None), ("threshold 0.5", 0.5)):
            run_out, team_out = (scores(evaluate_runs(gold, runs, matcher=LearnedMatcher(dict(zip(pairs.keys, p)),
                                                                                         threshold)))
                                 for p in (by_run, by_team))
            rows.append(Row(f"{label}, {mode}", tau(human, run_out), tau(human, team_out), f"{kappa:.3f}"))
    return rows, loro


def binarized_kappa(pairs) -> float:
    judged = ~np.isnan(pairs.labels)
    softmatch = pairs.features[judged, FEATURES.index("softmatch")]
    return cohen_kappa_score((pairs.labels[judged] >= 0.5).astype(int), (softmatch > 0.5).astype(int))


def calibration(pairs, p) -> str:
    """Mean probability and mean human credit in each tenth of the pairs by probability."""
    judged = ~np.isnan(pairs.labels)
    order = np.argsort(p[judged])
    parts = [f"{p[judged][b].mean():.2f}/{pairs.labels[judged][b].mean():.2f}" for b in np.array_split(order, 10)]
    return ", ".join(parts)


def section(name: str, title: str, gold, runs, judgments, teams) -> DataSet:
    human = scores(evaluate_runs(gold, runs, matcher="human", judgments=judgments))
    pairs = build_pairs(gold, runs, judgments)
    stem_stop = Tokenizer(stem=True, stopwords=True)
    fixed = [("BINARIZED (theta 0.5)", evaluate_runs(gold, runs, matcher="binarized"), f"{binarized_kappa(pairs):.3f}"),
             ("BINARIZED, --stem --stopwords", evaluate_runs(gold, runs, matcher="binarized", tokenizer=stem_stop), "-"),
             ("BINARIZED, --numbers strict", evaluate_runs(gold, runs, matcher="binarized", numbers="strict"), "-"),
             ("softmatch", evaluate_runs(gold, runs, matcher="softmatch"), "-"),
             ("softmatch, --numbers strict", evaluate_runs(gold, runs, matcher="softmatch", numbers="strict"), "-"),
             ("exact", evaluate_runs(gold, runs, matcher="exact"), "-")]
    groups = len(set(teams.values())) if isinstance(teams, dict) else len({r.run_id.split("-")[0] for r in runs})
    rows = []
    for label, results, kappa in fixed:
        value = tau(human, scores(results))  # nothing trained: the same with a run or a team held out
        rows.append(Row(label, value, value, kappa))
    learned, loro = learned_rows(gold, runs, pairs, human, teams)
    return DataSet(name, groups == len(runs), rows + learned,
                   f"{title}: {len(runs)} runs ({groups} teams), {len(gold.topics)} topics, "
                   f"{int((~np.isnan(pairs.labels)).sum())} judged (answer, nugget) pairs. Calibration of the "
                   "learned probabilities (leave one run out), mean probability / mean human credit per tenth "
                   f"of the pairs: {calibration(pairs, loro)}.")


def tau_cells(data: DataSet, row: Row) -> list[str]:
    """One cell per tau-b column; where every team has one run, the one column holds both figures
    when they differ (run out / team out)."""
    run_out, team_out = f"{row.tau_run_out:.3f}", f"{row.tau_team_out:.3f}"
    if not data.one_run_per_team:
        return [run_out, team_out]
    return [run_out if run_out == team_out else f"{run_out} / {team_out}"]


def table(sets: list[DataSet]) -> list[str]:
    """One Markdown table: a row per matcher and option, each data set's tau-b and kappa columns."""
    head = ["matcher"]
    for data in sets:
        taus = ["tau-b"] if data.one_run_per_team else ["tau-b, leave one run out", "tau-b, leave one team out"]
        head += [f"{data.name}: {t}" for t in taus] + [f"{data.name}: kappa"]
    lines = ["| " + " | ".join(head) + " |", "|---" + "|---:" * (len(head) - 1) + "|"]
    for i, row in enumerate(sets[0].rows):
        cells = [row.label]
        for data in sets:
            cells += tau_cells(data, data.rows[i]) + [data.rows[i].kappa]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def trec(path: Path) -> DataSet:
    with tempfile.TemporaryDirectory() as tmp:
        conversion = convert_nuggetizer(path, partial=0.5)
        out = write_conversion(conversion, Path(tmp) / "rag24")
        gold = read_file(out / "gold.xml", "gold")
        runs = [read_file(p, "cclqa") for p in sorted((out / "runs").glob("*.xml"))]
        judgments = read_judgments(out / "judgments.tsv")
    teams = {sepia_id: trec_team(original) for original, sepia_id in conversion.run_ids.items()}
    return section("TREC RAG 2024", "TREC RAG 2024 (English)", gold, runs, judgments, teams)


def sample(lang: str) -> DataSet:
    folder = ROOT / "corpora" / lang
    gold = read_file(folder / "gold.xml", "gold")
    runs = [read_file(p, "cclqa") for p in sorted((folder / "runs").glob("*.xml"))]
    return section(lang.upper(), f"Sample campaign, corpora/{lang}", gold, runs,
                   read_judgments(folder / "judgments.tsv"), "team")


SAMPLES = ("cs", "ct", "ja")
DOCS = ROOT / "docs" / "measurements.md"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    args = [a for a in argv[1:] if a != "--check"]
    path = Path(args[0]) if args else DEFAULT_PATH
    missing = [] if path.exists() else [f"(TREC RAG 2024 data not found at {path})", ""]
    sets = ([trec(path)] if path.exists() else []) + [sample(lang) for lang in SAMPLES]
    lines = missing + table(sets) + [""]
    for data in sets:
        lines += [data.notes, ""]
    output = "\n".join(lines).rstrip() + "\n"
    sys.stdout.write(output)
    if check:
        shown = output.strip() in DOCS.read_text(encoding="utf-8")
        print(f"{DOCS.name} {'shows' if shown else 'does NOT show'} this output", file=sys.stderr)
        return 0 if shown else 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
