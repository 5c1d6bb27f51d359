"""`sepia metaeval compare`: two runs over the same topics, checked by hand."""
import json

import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.formats.model import Answer, CCLQARun, CCLQATopic, GoldNugget, GoldStandard, GoldTopic, Judgment, Metadata
from sepia.formats.judgments import judgments_to_tsv
from sepia.formats.write import to_xml
from sepia.metaeval.runpair import compare_runs

NUGGETS = ["嫦娥一号卫星", "月球探测工程", "长征三号火箭", "西昌发射中心"]   # equal lengths: precision 1
TOPICS = [f"T-CS-000{i}" for i in range(1, 5)]


def _files(tmp_path):
    """Run A gives every topic's nugget word for word (F = 1 on all four topics); run B gives
    unrelated text on the first three topics (F = 0) and the nugget on the fourth (F = 1)."""
    gold = GoldStandard("CS", [GoldTopic(t, "DEFINITION", nuggets=[GoldNugget("N1", n, votes=[("a", True)])])
                               for t, n in zip(TOPICS, NUGGETS)])
    other = "今天天气很好"

    def run(run_id, texts):
        return CCLQARun(Metadata(run_id), [CCLQATopic(t, [Answer(1, x)]) for t, x in zip(TOPICS, texts)])

    paths = {name: tmp_path / f"{name}.xml" for name in ("gold", "A", "B")}
    paths["gold"].write_bytes(to_xml(gold))
    paths["A"].write_bytes(to_xml(run("TEAMA-CS-CS-01-T", NUGGETS)))
    paths["B"].write_bytes(to_xml(run("TEAMB-CS-CS-01-T", [other] * 3 + NUGGETS[3:])))
    return paths


def test_compare_command_by_hand(tmp_path):
    paths = _files(tmp_path)
    args = ["metaeval", "compare", "--gold", str(paths["gold"]), "--run", str(paths["A"]), "--run", str(paths["B"]),
            "--samples", "20000", "--seed", "3"]
    result = CliRunner().invoke(main, args + ["--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["a"] == [1.0, 1.0, 1.0, 1.0] and report["b"] == [0.0, 0.0, 0.0, 1.0]
    # differences [1, 1, 1, 0]: mean 0.75
    assert report["difference"] == pytest.approx(0.75)
    # sign flips: |mean| = 0.75 only when the three non-zero differences share a sign, 2 of 8 patterns
    assert report["randomization_p"] == pytest.approx(0.25, abs=0.01)
    # bootstrap means are k/4; P(mean <= 0.25) = 4 (1/4)^3 (3/4) + (1/4)^4 = 0.051 > 0.025 >
    # P(mean = 0) = 0.004, and P(mean = 1) = (3/4)^4 = 0.32: the 95% interval is [0.25, 1]
    assert (report["low"], report["high"]) == (pytest.approx(0.25), pytest.approx(1.0))
    # shifted bootstrap: |mean - 0.75| >= 0.75 only for mean 0, probability (1/4)^4
    assert report["bootstrap_p"] == pytest.approx(0.25 ** 4, abs=0.002)
    assert result.stdout == CliRunner().invoke(main, args + ["--format", "json"]).stdout    # seeded
    table = CliRunner().invoke(main, args)
    assert "mean difference A - B: 0.7500" in table.output
    assert "95% interval [0.2500, 1.0000]" in table.output


def test_compare_command_with_human_judgments(tmp_path):
    """The assessors reject run A's answer on topic 1 and accept run B's on topic 2:
    A = [0, 1, 1, 1], B = [0, 1, 0, 1], differences [0, 0, 1, 0]."""
    paths = _files(tmp_path)
    judged = [Judgment(t, "TEAMA-CS-CS-01-T", 1, "N1", t != TOPICS[0], "a") for t in TOPICS]
    judged += [Judgment(t, "TEAMB-CS-CS-01-T", 1, "N1", t in (TOPICS[1], TOPICS[3]), "a") for t in TOPICS]
    (tmp_path / "j.tsv").write_text(judgments_to_tsv(judged), encoding="utf-8")
    result = CliRunner().invoke(main, ["metaeval", "compare", "--gold", str(paths["gold"]), "--run", str(paths["A"]),
                                       "--run", str(paths["B"]), "--matcher", "human", "--judgments",
                                       str(tmp_path / "j.tsv"), "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["a"], report["b"]) == ([0.0, 1.0, 1.0, 1.0], [0.0, 1.0, 0.0, 1.0])
    assert report["difference"] == pytest.approx(0.25)
    assert report["randomization_p"] == pytest.approx(1.0)   # one non-zero difference: every flip is as extreme


def test_compare_rejects_bad_use(tmp_path):
    paths = _files(tmp_path)
    runner = CliRunner()
    one = runner.invoke(main, ["metaeval", "compare", "--gold", str(paths["gold"]), "--run", str(paths["A"])])
    assert one.exit_code == 2 and "exactly two runs" in one.output
    same = runner.invoke(main, ["metaeval", "compare", "--gold", str(paths["gold"]), "--run", str(paths["A"]),
                                "--run", str(paths["A"])])
    assert same.exit_code == 2 and "both files hold run" in same.output
    human = runner.invoke(main, ["metaeval", "compare", "--gold", str(paths["gold"]), "--run", str(paths["A"]),
                                 "--run", str(paths["B"]), "--matcher", "human"])
    assert human.exit_code == 2 and "--judgments" in human.output


def test_compare_runs_leaves_out_topics_of_one_run():
    result = compare_runs("A", {"t1": 0.5, "t2": 0.25, "t3": 1.0}, "B", {"t2": 0.0, "t1": 0.5, "t4": 0.1},
                          n_resamples=100, seed=0)
    assert result.topics == ["t1", "t2"] and result.left_out == ["t3", "t4"]
    assert result.difference == pytest.approx(0.125) and result.mean_b == pytest.approx(0.25)
    with pytest.raises(ValueError, match="share no scored topic"):
        compare_runs("A", {"t1": 1.0}, "B", {"t2": 1.0})
