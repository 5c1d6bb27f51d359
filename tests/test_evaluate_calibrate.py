"""`sepia evaluate --calibrate`: PPI++ estimates of the runs' human F3 and of their differences from
the judgments of some topics, against the human and automatic scores `sepia evaluate` gives."""
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.metaeval.calibrate import RunTopicScores, calibrate
from sepia.metaeval.ppi import ppi_mean, ppi_means

CS = Path(__file__).resolve().parents[1] / "corpora" / "cs"
JUDGED = ["SEPIA-CS-0002", "SEPIA-CS-0004", "SEPIA-CS-0005"]


def _invoke(*args):
    return CliRunner().invoke(main, ["evaluate", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs"), *args])


def _per_topic(*args) -> dict:
    result = _invoke("--format", "json", *args)
    assert result.exit_code == 0, result.output
    return {r["run_id"]: {t["topic_id"]: t["f"] for t in r["topics"]} for r in json.loads(result.stdout)["runs"]}


def _sample(tmp_path, topics) -> Path:
    lines = (CS / "judgments.tsv").read_text(encoding="utf-8").splitlines()
    path = tmp_path / "sample.tsv"
    path.write_text("\n".join([lines[0]] + [x for x in lines[1:] if x.split("\t")[0] in topics]) + "\n",
                    encoding="utf-8")
    return path


def test_estimates_from_half_the_topics(tmp_path):
    result = _invoke("--calibrate", str(_sample(tmp_path, JUDGED)), "--level", "0.9", "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    human = _per_topic("--matcher", "human", "--judgments", str(CS / "judgments.tsv"))
    automatic = _per_topic()
    cs = next(g for g in report["language_pairs"] if g["language_pair"] == "CS-CS")
    assert (cs["topics"], cs["judged"], cs["complete"]) == (6, 3, False)
    topics = sorted(automatic["TEAMA-CS-CS-01-T"])
    runs = [row["run_id"] for row in cs["runs"]]
    shared = ppi_means([[human[r][t] for t in JUDGED] for r in runs], [[automatic[r][t] for t in JUDGED] for r in runs],
                       [[automatic[r][t] for t in topics] for r in runs], level=0.9)   # one lambda for the runs
    assert len({e.lam for e in shared}) == 1
    for row, expected in zip(cs["runs"], shared):
        run = row["run_id"]
        assert row["estimate"] == pytest.approx(expected.estimate)
        assert (row["raw_low"], row["raw_high"]) == pytest.approx((expected.low, expected.high))
        assert (row["low"], row["high"]) == pytest.approx((max(expected.low, 0), min(expected.high, 1)))
        assert row["automatic"] == pytest.approx(np.mean(list(automatic[run].values())))
    assert len(cs["pairs"]) == 3
    pairs = [(p["a"], p["b"]) for p in cs["pairs"]]
    differences = ppi_means([[human[a][t] - human[b][t] for t in JUDGED] for a, b in pairs],
                            [[automatic[a][t] - automatic[b][t] for t in JUDGED] for a, b in pairs],
                            [[automatic[a][t] - automatic[b][t] for t in topics] for a, b in pairs], level=0.9)
    for pair, expected in zip(cs["pairs"], differences):
        assert pair["estimate"] == pytest.approx(expected.estimate)
        assert pair["decided"] == (expected.low > 0 or expected.high < 0)


def test_every_topic_judged_gives_the_human_f3():
    result = _invoke("--calibrate", str(CS / "judgments.tsv"), "--format", "tsv")
    assert result.exit_code == 0, result.output
    human = _invoke("--matcher", "human", "--judgments", str(CS / "judgments.tsv"), "--format", "json")
    means = {r["run_id"]: r["score"] for r in json.loads(human.stdout)["runs"]}
    rows = [line.split("\t") for line in result.stdout.splitlines()[1:] if line.split("\t")[2] == ""]
    assert {r[1] for r in rows} == set(means)
    for r in rows:
        assert float(r[4]) == pytest.approx(means[r[1]], abs=5e-5) and r[5] == r[6] == r[4]


def test_calibrate_ranks_runs_and_pairs_in_estimate_order():
    runs = [RunTopicScores(r, "CS-CS", {"t1": a, "t2": b, "t3": c}, {"t1": h1, "t2": h2})
            for r, a, b, c, h1, h2 in [("B", 0.2, 0.4, 0.6, 0.3, 0.5), ("A", 0.5, 0.5, 0.9, 0.9, 0.8)]]
    report = calibrate(runs)
    group = report["language_pairs"][0]
    assert [r["run_id"] for r in group["runs"]] == ["A", "B"]
    assert (group["pairs"][0]["a"], group["pairs"][0]["b"]) == ("A", "B")
    # one lambda for both runs: B's f and Y both rise by .2 (products .02, squares .02), A's f is
    # constant (0 and 0): lambda 1; A: mean f .63333 + mean(Y - f) .35, B: .4 + .1
    assert [r["lambda"] for r in group["runs"]] == pytest.approx([1.0, 1.0])
    assert [r["estimate"] for r in group["runs"]] == pytest.approx([0.633333 + 0.35, 0.4 + 0.1])


def test_one_line_errors(tmp_path):
    header = (CS / "judgments.tsv").read_text(encoding="utf-8").splitlines()[0]
    empty = tmp_path / "empty.tsv"
    empty.write_text(header + "\n", encoding="utf-8")
    stranger = tmp_path / "stranger.tsv"
    stranger.write_text(header + "\nSEPIA-CS-0099\tTEAMA-CS-CS-01-T\t1\tN001\t1\ta\n", encoding="utf-8")
    partial = _sample(tmp_path, JUDGED)
    lines = partial.read_text(encoding="utf-8").splitlines()
    unjudged = tmp_path / "unjudged.tsv"
    unjudged.write_text("\n".join(x for x in lines if not ("TEAMB" in x and "SEPIA-CS-0004" in x)) + "\n",
                        encoding="utf-8")
    for path, words in [(empty, "no judgments"), (stranger, "SEPIA-CS-0099"),
                        (unjudged, "TEAMB-CS-CS-01-T is not judged on the sampled topic SEPIA-CS-0004")]:
        result = _invoke("--calibrate", str(path))
        assert result.exit_code == 1 and words in result.output and len(result.output.splitlines()) == 1, result.output
    human = _invoke("--calibrate", str(partial), "--matcher", "human")
    assert human.exit_code == 2 and "automatic matcher" in human.output
    stored = CliRunner().invoke(main, ["evaluate", "--store", "--calibrate", str(partial)])
    assert stored.exit_code == 2 and "--calibrate" in stored.output


def test_intervals_are_clipped_to_what_a_mean_can_take_and_estimates_are_not():
    # Human F3 0 on three of four judged topics and 0.2 on one; the automatic scores barely vary:
    # the interval of the mean reaches below 0 and is shown from 0; the difference's reaches below -1.
    auto = {f"t{i}": 0.05 * (i % 2) for i in range(8)}
    low = RunTopicScores("LOW", "CS-CS", auto, {"t0": 0.0, "t1": 0.0, "t2": 0.0, "t3": 0.2})
    high = RunTopicScores("HIGH", "CS-CS", {t: 1.0 for t in auto}, {"t0": 1.0, "t1": 1.0, "t2": 1.0, "t3": 1.0})
    group = calibrate([low, high])["language_pairs"][0]
    row = next(r for r in group["runs"] if r["run_id"] == "LOW")
    judged = ["t0", "t1", "t2", "t3"]
    expected = ppi_mean([0.0, 0.0, 0.0, 0.2], [auto[t] for t in judged], list(auto.values()))
    assert expected.low < 0 < expected.high < 1                 # the case the clipping is for
    assert (row["raw_low"], row["raw_high"]) == pytest.approx((expected.low, expected.high))
    assert (row["low"], row["high"]) == (0.0, pytest.approx(expected.high))
    assert row["estimate"] == pytest.approx(expected.estimate)  # never clipped
    (pair,) = group["pairs"]
    difference = ppi_mean([-1.0, -1.0, -1.0, -0.8], [auto[t] - 1 for t in judged], [a - 1 for a in auto.values()])
    assert pair["a"] == "HIGH" and pair["raw_low"] == pytest.approx(-difference.high)
    assert pair["high"] == 1.0 < pair["raw_high"] == pytest.approx(-difference.low) and pair["decided"]


def test_the_api_gives_what_the_command_prints(tmp_path):
    from sepia import api

    sample = _sample(tmp_path, JUDGED)
    printed = _invoke("--calibrate", str(sample), "--level", "0.9", "--format", "json")
    estimates = api.calibrate(gold=CS / "gold.xml", runs=CS / "runs", judgments=sample, level=0.9)
    assert estimates.to_json() == printed.stdout
    records = estimates.to_records()
    assert {r["run_id"] for r in records if r["other_run_id"] is None} >= {"TEAMA-CS-CS-01-T"}
    assert all(r["judged"] == 3 for r in records if r["language_pair"] == "CS-CS")
    with pytest.raises(api.CallError, match="automatic matcher"):
        api.calibrate(gold=CS / "gold.xml", runs=CS / "runs", judgments=sample, matcher="human")
    one_run = tmp_path / "one-run.tsv"
    lines = sample.read_text(encoding="utf-8").splitlines()
    one_run.write_text("\n".join([lines[0], *(x for x in lines[1:] if x.split("\t")[1] == "TEAMA-CS-CS-01-T")]) + "\n",
                       encoding="utf-8")
    with pytest.raises(ValueError, match="is not judged on the sampled topic"):
        api.calibrate(gold=CS / "gold.xml", runs=CS / "runs", judgments=one_run)
