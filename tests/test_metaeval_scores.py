"""`sepia metaeval scores`: score files of any metric against a human one, checked against scipy,
hand calculation and mt-metrics-eval's formulas."""
import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats

from sepia.cli import main
from sepia.formats.errors import FormatError
from sepia.metaeval.correlation import MEASURES, correlate
from sepia.metaeval.score_files import parse_long_tsv, parse_trec_eval, read_score_files
from sepia.metaeval.scores import accuracy_with_ties, score_grids, scores_report, tie_diagnostics
from sepia.metaeval.significance import williams_t

DATA = Path(__file__).parent / "data"
TREC_FILES = sorted(DATA.glob("metaeval_trec_eval_sys*.txt"))


def _long_tsv(seed=0, systems=6, inputs=9, extra=True):
    """A human score and three metrics of different quality, with an answer_type column."""
    rng = np.random.default_rng(seed)
    header = "system\tinput\tmetric\tvalue" + ("\tanswer_type" if extra else "")
    lines, cube = [header], {}
    for s in range(systems):
        quality = rng.normal()
        for i in range(inputs):
            h = round(quality + rng.normal(), 1)
            values = {"human": h, "good": h + rng.normal(scale=0.5), "noisy": h + rng.normal(scale=2),
                      "coarse": float(round(h + rng.normal(scale=0.5)))}
            for metric, v in values.items():
                cube[metric, s, i] = v
                lines.append(f"sys{s}\tq{i}\t{metric}\t{v!r}" + (f"\t{'DEF' if i % 2 else 'WHY'}" if extra else ""))
    matrices = {m: np.array([[cube[m, s, i] for i in range(inputs)] for s in range(systems)])
                for m in ("human", "good", "noisy", "coarse")}
    return "\n".join(lines) + "\n", matrices


def _report(text, **kwargs):
    grids = score_grids(parse_long_tsv(text, "s.tsv"), "human", **kwargs)
    return grids, [scores_report(g, n_resamples=50, repetitions=10, seed=1) for g in grids]


# --- reading ---------------------------------------------------------------------------------------

def test_long_tsv_is_read_with_its_grouping_columns():
    table = parse_long_tsv("metric\tsystem\tvalue\tinput\taspect\n"
                           "m\tA\t0.5\tq1\tfluency\n# note\n\nh\tA\t1\tq1\tfluency\n")
    assert table.columns == ["aspect"]
    assert [(r.system, r.input, r.metric, r.value, r.extra) for r in table.rows] == [
        ("A", "q1", "m", 0.5, ("fluency",)), ("A", "q1", "h", 1.0, ("fluency",))]


def test_long_tsv_reports_every_bad_line():
    text = ("system\tinput\tmetric\tvalue\n"
            "A\tq1\tm\t0.5\n"
            "A\tq1\tm\t0.7\n"          # repeated cell
            "A\tq2\tm\tgood\n"         # not a number
            "A\tq3\tm\tnan\n"          # not finite
            "A\tq4\tm\n"               # a field missing
            "\tq5\tm\t1\n")            # empty system
    with pytest.raises(FormatError) as exc:
        parse_long_tsv(text, "s.tsv")
    messages = [str(p) for p in exc.value.problems]
    assert [m.split(":")[1] for m in messages] == ["3", "4", "5", "6", "7"]
    assert "already scored on line 2" in messages[0] and "'good' is not a finite number" in messages[1]
    assert messages[1].startswith("s.tsv:4:8:")
    assert "expected 4 tab-separated fields" in messages[3] and "empty system" in messages[4]
    with pytest.raises(FormatError, match="no scores below the header"):
        parse_long_tsv("system\tinput\tmetric\tvalue\n", "s.tsv")


def test_trec_eval_output_system_from_runid_or_file_name(tmp_path):
    table = parse_trec_eval(TREC_FILES[0].read_text(), str(TREC_FILES[0]))
    assert {r.system for r in table.rows} == {"sysA"}
    assert {r.metric for r in table.rows} == {"map", "P_10", "ndcg_cut_10", "recip_rank"}
    assert "all" not in {r.input for r in table.rows} and len(table.rows) == 4 * 6
    plain = tmp_path / "bm25.eval"
    plain.write_text("map\tq1\t0.5\nmap\tall\t0.5\n")
    assert parse_trec_eval(plain.read_text(), str(plain)).rows[0].system == "bm25"
    bad = tmp_path / "bad.eval"
    bad.write_text("map\tq1\t0.5\nmap q2\nmap\tq3\tx\nmap\tq1\t0.2\n")
    with pytest.raises(FormatError) as exc:
        read_score_files([bad])
    assert [str(p).split(":")[1] for p in exc.value.problems] == ["2", "3", "4"]
    assert "trec_eval -q" in str(exc.value.problems[0])
    twin = tmp_path / "twin.eval"
    twin.write_text("runid\tall\tsysA\nmap\tq1\t0.5\n")
    with pytest.raises(FormatError, match="system 'sysA' is also the system of"):
        read_score_files([TREC_FILES[0], twin])
    long = tmp_path / "long.tsv"
    long.write_text("system\tinput\tmetric\tvalue\nA\tq\tm\t1\n")
    with pytest.raises(FormatError, match="not several files with a mix"):
        read_score_files([long, plain])


def test_several_long_tsvs_are_one_table(tmp_path):
    human, metric = tmp_path / "human.tsv", tmp_path / "metric.tsv"
    human.write_text("system\tinput\tmetric\tvalue\taspect\nA\tq1\thuman\t1\tall\nB\tq1\thuman\t0\tall\n")
    metric.write_text("aspect\tmetric\tinput\tsystem\tvalue\nall\tm\tq1\tA\t0.7\nall\tm\tq1\tB\t0.2\n")
    table = read_score_files([human, metric])
    assert table.columns == ["aspect"] and [(r.system, r.metric, r.value, r.extra) for r in table.rows] == [
        ("A", "human", 1.0, ("all",)), ("B", "human", 0.0, ("all",)), ("A", "m", 0.7, ("all",)), ("B", "m", 0.2, ("all",))]
    again, other = tmp_path / "again.tsv", tmp_path / "other.tsv"
    again.write_text("system\tinput\tmetric\tvalue\taspect\nB\tq1\thuman\t0.5\tall\n")
    other.write_text("system\tinput\tmetric\tvalue\nA\tq1\tm\t0.7\n")
    with pytest.raises(FormatError) as exc:
        read_score_files([human, again, other])
    assert [str(p) for p in exc.value.problems] == [
        f"{again}:2:1: system B, input q1, metric human already scored in {human} line 3",
        f"{other}:1:1: grouping columns none differ from {human}'s (aspect)"]


# --- grids: what is missing is named ------------------------------------------------------------

def test_missing_human_metric_and_missing_cells_are_named():
    text = "system\tinput\tmetric\tvalue\n" + "".join(
        f"{s}\t{q}\t{m}\t{v}\n" for s, q, m, v in [("A", "q1", "h", 1), ("A", "q1", "m", 1), ("B", "q1", "h", 2),
                                                   ("B", "q1", "m", 3), ("A", "q2", "h", 0), ("B", "q2", "h", 1),
                                                   ("B", "q2", "m", 1)])
    table = parse_long_tsv(text, "s.tsv")
    with pytest.raises(ValueError, match=r"no metric 'human' in the scores; metrics found: h, m"):
        score_grids(table, "human")
    with pytest.raises(ValueError, match=r"m lacks 1 of the 4 system/input pairs other metrics score \(A/q2\)"):
        score_grids(table, "h")
    with pytest.raises(ValueError, match="nothing to compare"):
        score_grids(parse_long_tsv("system\tinput\tmetric\tvalue\nA\tq\th\t1\n"), "h")


def test_pairs_no_metric_scores_are_left_out_with_a_warning():
    # trec_eval -q lists only the topics a run retrieved for: system B has no q2 for any measure
    text = "system\tinput\tmetric\tvalue\n" + "".join(
        f"{s}\t{q}\t{m}\t{v}\n" for s, q, m, v in [("A", "q1", "h", 1), ("A", "q1", "m", 1), ("B", "q1", "h", 2),
                                                   ("B", "q1", "m", 3), ("A", "q2", "h", 0), ("A", "q2", "m", 1)])
    grid, = score_grids(parse_long_tsv(text), "h")
    assert np.isnan(grid.human[1, 1]) and np.isnan(grid.metrics["m"][1, 1])
    assert any("1 system/input pairs have no score for any metric" in w for w in grid.warnings)


def test_rows_told_apart_by_a_column_need_by():
    text = "system\tinput\tmetric\tvalue\taspect\n" + "".join(
        f"S{s}\tq{q}\t{m}\t{v}\t{a}\n" for s in range(4) for q in range(3) for m, a, v in
        [("h", "fluency", s + q), ("h", "coherence", s * q), ("m", "fluency", s), ("m", "coherence", s)])
    table = parse_long_tsv(text, "a.tsv")
    with pytest.raises(ValueError, match=r"a.tsv:\d+ and line \d+ both score system S0, input q0 with h.*--by"):
        score_grids(table, "h")
    grids = score_grids(table, "h", by="aspect")
    assert [g.group for g in grids] == ["aspect=coherence", "aspect=fluency"]    # no overall grid
    with pytest.raises(ValueError, match="no column 'lang'"):
        score_grids(table, "h", by="lang")


# --- the report against independent computations ------------------------------------------------

def test_correlations_match_scipy():
    text, M = _long_tsv()
    (grid, *_), (report, *_) = _report(text)
    Z, X = M["human"], M["good"]
    c = report["correlations"]["good"]
    assert c["system"]["pearson"] == pytest.approx(stats.pearsonr(X.mean(1), Z.mean(1)).statistic)
    assert c["global"]["tau_b"] == pytest.approx(stats.kendalltau(X.ravel(), Z.ravel()).statistic)
    assert c["global"]["tau_c"] == pytest.approx(stats.kendalltau(X.ravel(), Z.ravel(), variant="c").statistic)
    assert c["input"]["spearman"] == pytest.approx(np.mean([stats.spearmanr(X[:, i], Z[:, i]).statistic
                                                            for i in range(X.shape[1])]))
    assert c["item"]["pearson"] == pytest.approx(np.mean([stats.pearsonr(X[s], Z[s]).statistic
                                                          for s in range(X.shape[0])]))
    assert set(report) >= {"discriminative_power", "ranking_consistency", "pair_pvalues"}
    assert all(0 < p <= 1 for pairs in report["pair_pvalues"].values() for p in pairs.values())


def _mt_metrics_eval_williams(r12, r13, r23, n):
    """WilliamsTest of google-research/mt-metrics-eval (stats.py), transcribed: one-sided p."""
    k = 1 - r12 ** 2 - r13 ** 2 - r23 ** 2 + 2 * r12 * r23 * r13
    rbar = (r12 + r13) / 2
    tnum = (r12 - r13) * np.sqrt((n - 1) * (1 + r23))
    tden = np.sqrt(2 * (n - 1) / (n - 3) * k + rbar ** 2 * (1 - r23) ** 3)
    return tnum / tden, stats.t.sf(np.abs(tnum / tden), n - 3)


def test_williams_against_mt_metrics_eval_and_steigers_example():
    # Steiger (1980)'s example in R psych's r.test documentation: r12 = .4, r13 = .5, r23 = .1, n = 103.
    # K = 1 - .16 - .25 - .01 + .04 = .62; t = -.1 sqrt(102 * 1.1) / sqrt(2 * 102/100 * .62 + .45^2 * .9^3)
    #   = -1.059245 / 1.188452 = -0.8913, two-sided p = 0.375
    assert williams_t(0.4, 0.5, 0.1, 103) == pytest.approx(-0.89128, abs=1e-5)
    assert 2 * stats.t.sf(0.89128, 100) == pytest.approx(0.375, abs=5e-4)
    for r12, r13, r23, n in [(0.9, 0.7, 0.6, 12), (0.55, 0.52, 0.95, 40), (0.3, -0.2, 0.1, 5)]:
        assert williams_t(r12, r13, r23, n) == pytest.approx(_mt_metrics_eval_williams(r12, r13, r23, n)[0])
    text, M = _long_tsv(systems=10)
    grids, (report, *_) = _report(text)
    assert len(report["williams"]) == 3          # every two of the three metrics
    for w in report["williams"]:
        A, B, Z = M[w["better"]].mean(1), M[w["worse"]].mean(1), M["human"].mean(1)
        r12, r13, r23 = stats.pearsonr(Z, A).statistic, stats.pearsonr(Z, B).statistic, stats.pearsonr(A, B).statistic
        assert r12 >= r13
        t, p = _mt_metrics_eval_williams(r12, r13, r23, 10)
        assert (w["t"], w["p"]) == (pytest.approx(t), pytest.approx(p))
        assert (w["r_better"], w["r_worse"], w["r_between"]) == pytest.approx((r12, r13, r23))


def _acc_eq(human, metric, epsilon, groups):
    """Deutsch et al. (2023)'s acc_eq by its definition (mt-metrics-eval's 'acc23'): per group,
    (concordant + pairs tied by both) / all pairs, a metric tie being |difference| <= epsilon;
    the mean over groups with a pair."""
    scores = []
    for g in set(groups):
        members = [i for i in range(len(human)) if groups[i] == g]
        good = total = 0
        for i, j in itertools.combinations(members, 2):
            dh, dm = human[i] - human[j], metric[i] - metric[j]
            tie_m = abs(dm) <= epsilon
            good += (dh == 0 and tie_m) or (dh != 0 and not tie_m and np.sign(dh) == np.sign(dm))
            total += 1
        if total:
            scores.append(good / total)
    return np.mean(scores)


def test_tie_calibrated_accuracy_by_hand_and_by_definition():
    # Systems' means: human [1, 2, 2, 3], metric [0.1, 0.25, 0.3, 0.6]. Five pairs are ordered alike;
    # the human tie (2, 2) has metric gap 0.05: acc_eq = 5/6. Any epsilon in [0.05, 0.15) also makes
    # it a metric tie and no concordant pair has a gap that small: acc_eq* = 1 at epsilon 0.05.
    human = np.array([[1.0], [2.0], [2.0], [3.0]])
    metric = np.array([[0.1], [0.25], [0.3], [0.6]])
    system = accuracy_with_ties(metric, human)["system"]
    assert system["acc_eq"] == pytest.approx(5 / 6)
    assert (system["acc_eq_calibrated"], system["epsilon"]) == (pytest.approx(1.0), pytest.approx(0.05))
    # within inputs, human scores rounded to whole points (many ties) against a fine-grained metric:
    # the best epsilon over all gaps, by brute force; calibration must gain here
    text, M = _long_tsv(seed=3)
    Z, X = np.round(M["human"]), M["good"]
    groups = list(np.broadcast_to(np.arange(Z.shape[1]), Z.shape).ravel())
    gaps = sorted({abs(a - b) for col in X.T for a, b in itertools.combinations(col, 2)} | {0.0})
    best = max(_acc_eq(Z.ravel(), X.ravel(), e, groups) for e in gaps)
    by_input = accuracy_with_ties(X, Z)["input"]
    assert by_input["acc_eq"] == pytest.approx(_acc_eq(Z.ravel(), X.ravel(), 0.0, groups))
    assert by_input["acc_eq_calibrated"] == pytest.approx(best)
    assert _acc_eq(Z.ravel(), X.ravel(), by_input["epsilon"], groups) == pytest.approx(best)
    assert by_input["epsilon"] > 0 and best > by_input["acc_eq"] + 0.05


def test_tie_diagnostics_by_hand():
    # values 1, 1, 1, 2, 3, 3 (two inputs of three): pairs 15, tied 3 + 1 = 4
    # within inputs: [1, 1, 2] -> 1/3, [1, 3, 3] -> 1/3
    d = tie_diagnostics(np.array([[1.0, 1.0], [1.0, 3.0], [2.0, 3.0]]))
    assert d == {"cells": 6, "unique": 3, "tie_ratio": pytest.approx(4 / 15), "input_tie_ratio": pytest.approx(1 / 3)}
    assert np.isnan(tie_diagnostics(np.array([[np.nan, 1.0]]))["tie_ratio"])


def test_groups_hold_their_own_rows():
    text, M = _long_tsv()
    grids, reports = _report(text, by="answer_type")
    assert [g.group for g in grids] == ["all", "answer_type=DEF", "answer_type=WHY"]
    odd = M["good"][:, 1::2], M["human"][:, 1::2]          # DEF holds the odd inputs
    assert reports[1]["correlations"]["good"]["global"]["pearson"] == pytest.approx(
        stats.pearsonr(odd[0].ravel(), odd[1].ravel()).statistic)
    assert reports[1]["inputs"] == 4 and reports[2]["inputs"] == 5


# --- the command -------------------------------------------------------------------------------

def test_command_formats(tmp_path):
    text, _ = _long_tsv()
    path = tmp_path / "scores.tsv"
    path.write_text(text)
    args = ["metaeval", "scores", str(path), "--human", "human", "--by", "answer_type", "--permutations", "40",
            "--repetitions", "5"]
    runner = CliRunner()
    as_json = runner.invoke(main, args + ["--format", "json"])
    assert as_json.exit_code == 0, as_json.output
    report = json.loads(as_json.stdout)
    assert [g["group"] for g in report["groups"]] == ["all", "answer_type=DEF", "answer_type=WHY"]
    assert as_json.stdout == runner.invoke(main, args + ["--format", "json"]).stdout      # seeded
    table = runner.invoke(main, args)
    assert table.exit_code == 0 and "[answer_type=WHY]" in table.output and "Williams' test" in table.output
    tsv = runner.invoke(main, args + ["--format", "tsv"]).stdout.splitlines()
    assert tsv[0] == "group\titem\tmeasure\tvalue"
    row = next(line for line in tsv if line.startswith("all\tgood\tsystem/pearson\t"))
    assert float(row.split("\t")[3]) == pytest.approx(report["groups"][0]["correlations"]["good"]["system"]["pearson"],
                                                      abs=1e-5)
    only = runner.invoke(main, ["metaeval", "scores", str(path), "--human", "human", "--metric", "good",
                                "--format", "json"])
    assert json.loads(only.stdout)["groups"][0]["metrics"] == ["good"]


def test_command_on_trec_eval_files():
    result = CliRunner().invoke(main, ["metaeval", "scores", *map(str, TREC_FILES), "--human", "ndcg_cut_10",
                                       "--permutations", "40", "--format", "json"])
    assert result.exit_code == 0, result.output
    group, = json.loads(result.stdout)["groups"]
    assert (group["systems"], group["inputs"]) == (4, 6)
    assert group["metrics"] == ["P_10", "map", "recip_rank"]


def test_command_refuses_bad_input(tmp_path):
    runner = CliRunner()
    bad = tmp_path / "bad.tsv"
    bad.write_text("system\tinput\tmetric\tvalue\nA\tq1\th\tx\n")
    result = runner.invoke(main, ["metaeval", "scores", str(bad), "--human", "h"])
    assert result.exit_code == 1 and f"{bad}:2:" in result.output
    text, _ = _long_tsv()
    good = tmp_path / "s.tsv"
    good.write_text(text)
    result = runner.invoke(main, ["metaeval", "scores", str(good), "--human", "people"])
    assert result.exit_code == 1 and "no metric 'people'" in result.output and "metrics found: coarse" in result.output
    result = runner.invoke(main, ["metaeval", "scores", str(good), "--human", "human", "--by", "lang"])
    assert result.exit_code == 1 and "no column 'lang'" in result.output
    result = runner.invoke(main, ["metaeval", "scores", *map(str, TREC_FILES), "--human", "map", "--by", "x"])
    assert result.exit_code == 2 and "trec_eval files have none" in result.output


SAMPLE = Path(__file__).resolve().parents[1] / "corpora"


@pytest.mark.skipif(not (SAMPLE / "cs" / "gold.xml").exists(), reason="sample corpus not present")
def test_scores_file_of_the_sample_campaign_agrees_with_metaeval():
    """metaeval_sample_scores.tsv holds `sepia evaluate --format tsv` per topic for the human and
    the three automatic matchers on corpora/{cs,ct,ja} (six decimals): its CS group must give the
    correlations `sepia metaeval` computes from the campaign's files."""
    from sepia.formats.judgments import read_judgments
    from sepia.formats.read import read_file
    from sepia.metaeval.report import score_matrices

    grids = score_grids(read_score_files([DATA / "metaeval_sample_scores.tsv"]), "human", by="lang")
    cs = next(g for g in grids if g.group == "lang=cs")
    gold = read_file(SAMPLE / "cs" / "gold.xml", "gold")
    runs = [read_file(p, "cclqa") for p in sorted((SAMPLE / "cs" / "runs").glob("*.xml"))]
    data = score_matrices(gold, runs, read_judgments(SAMPLE / "cs" / "judgments.tsv"))
    order = [cs.systems.index(r) for r in data.runs]
    columns = [cs.inputs.index(t) for t in data.topics]
    assert np.allclose(cs.human[np.ix_(order, columns)], data.human, atol=5e-7, equal_nan=True)
    report = scores_report(cs, n_resamples=20, repetitions=5, seed=0)
    for name in ("binarized", "softmatch", "exact"):
        for level, c in MEASURES:
            expected = correlate(data.automatic[name], data.human, level, c)
            assert report["correlations"][name][level][c] == pytest.approx(expected, abs=1e-4, nan_ok=True)
