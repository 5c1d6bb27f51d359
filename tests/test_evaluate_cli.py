"""`sepia evaluate` end to end: the spec's JSON shape, table, TSV, several runs ranked, bad input."""
import json

import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.formats.judgments import judgments_to_tsv
from sepia.formats.model import Judgment
from sepia.formats.write import to_xml
from tests.helpers import gold, nugget, run, topic


@pytest.fixture
def files(tmp_path):
    g = gold("CS", topic("X-CS-0001", "DEFINITION", nugget("N1", "甲乙丙丁", 2, 2), nugget("N2", "戊己庚辛", 1, 2)),
             topic("X-CS-0002", "PERSON", nugget("N1", "张三", 2, 2)))
    good = run("A-CS-CS-01-T", {"X-CS-0001": ["甲乙丙丁戊己"], "X-CS-0002": ["张三"]})
    poor = run("B-CS-CS-01-T", {"X-CS-0001": ["甲乙"]})
    paths = {"gold": tmp_path / "gold.xml", "good": tmp_path / "A-CS-CS-01-T.xml", "poor": tmp_path / "B-CS-CS-01-T.xml",
             "judgments": tmp_path / "j.tsv"}
    paths["gold"].write_bytes(to_xml(g))
    paths["good"].write_bytes(to_xml(good))
    paths["poor"].write_bytes(to_xml(poor))
    paths["judgments"].write_text(judgments_to_tsv([
        Judgment("X-CS-0001", "A-CS-CS-01-T", 1, "N1", True, "a"),
        Judgment("X-CS-0001", "A-CS-CS-01-T", 1, "N2", True, "a"),
        Judgment("X-CS-0002", "A-CS-CS-01-T", 1, "N1", True, "a"),
        Judgment("X-CS-0001", "B-CS-CS-01-T", 1, "N1", True, "a")]))
    return {k: str(v) for k, v in paths.items()}


def invoke(*args):
    return CliRunner().invoke(main, ["evaluate", *args])


def test_json_output_has_the_spec_shape_and_ranks_runs(files):
    result = invoke("--gold", files["gold"], "--run", files["poor"], "--run", files["good"], "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [r["run_id"] for r in data["runs"]] == ["A-CS-CS-01-T", "B-CS-CS-01-T"]
    best = data["runs"][0]
    assert set(best) == {"run_id", "matcher", "score", "by_type", "topics"}
    assert set(best["topics"][0]) == {"topic_id", "answer_type", "f", "recall", "precision", "matched", "length",
                                      "allowance"}
    assert best["matcher"] == "binarized"
    # Run A, topic 1: 甲乙丙丁 matches (4/4), 戊己庚辛 scores 2/4 = theta, no match; C(CS, DEF) = 4
    t1 = best["topics"][0]
    assert (t1["matched"], t1["length"], t1["allowance"], t1["recall"]) == (1, 6, 4, 2 / 3)
    p = 4 / 6
    assert t1["f"] == pytest.approx(10 * p * (2 / 3) / (9 * p + 2 / 3))
    assert best["topics"][1]["f"] == 1.0
    assert best["score"] == pytest.approx((t1["f"] + 1) / 2)
    assert best["by_type"] == {"DEFINITION": t1["f"], "PERSON": 1.0}
    # run B answers no PERSON topic: 0, still counted
    assert data["runs"][1]["topics"][1]["f"] == 0


def test_human_matcher_uses_the_judgments(files):
    result = invoke("--gold", files["gold"], "--run", files["good"], "--matcher", "human",
                    "--judgments", files["judgments"], "--format", "json")
    topics = json.loads(result.stdout)["runs"][0]["topics"]
    assert topics[0]["matched"] == 2 and topics[0]["recall"] == 1.0


def test_table_and_tsv(files):
    table = invoke("--gold", files["gold"], "--run", files["good"], "--run", files["poor"]).stdout
    assert "CS-CS (2 topics)" in table
    header = next(line for line in table.splitlines() if line.startswith("RUN"))
    assert header.split() == ["RUN", "MATCHER", "ALL", "DEF", "PER"]
    tsv = invoke("--gold", files["gold"], "--run", files["good"], "--format", "tsv").stdout.splitlines()
    assert tsv[0].startswith("run_id\tmatcher\ttopic_id") and tsv[-1].startswith("A-CS-CS-01-T\tbinarized\tALL")


def test_allowance_override(files):
    data = json.loads(invoke("--gold", files["gold"], "--run", files["good"], "--allowance", "DEFINITION=6",
                             "--format", "json").stdout)
    assert data["runs"][0]["topics"][0]["precision"] == 1.0


@pytest.mark.parametrize("args, message", [
    (["--matcher", "human"], "needs --judgments"),
    (["--allowance", "FOO=3"], "unknown answer type"),
    (["--beta", "0"], "0.0 is not in the range x>0"),
])
def test_usage_errors_exit_2(files, args, message):
    result = invoke("--gold", files["gold"], "--run", files["good"], *args)
    assert result.exit_code == 2 and message in result.output


def test_an_invalid_run_is_reported_and_exits_1(files, tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text("<TOPIC_SET><METADATA><RUNID>x</RUNID></METADATA></TOPIC_SET>")
    result = invoke("--gold", files["gold"], "--run", str(bad))
    assert result.exit_code == 1 and f"{bad}:1:" in result.output


def test_runs_as_arguments_or_a_folder(files, tmp_path):
    by_args = json.loads(invoke("--gold", files["gold"], "--run", files["good"], files["poor"],
                                "--format", "json").stdout)
    folder = tmp_path / "runs"
    folder.mkdir()
    for key in ("good", "poor"):
        (folder / f"{key}.xml").write_bytes(open(files[key], "rb").read())
    by_folder = json.loads(invoke("--gold", files["gold"], "--run", str(folder), "--format", "json").stdout)
    assert by_args == by_folder and len(by_args["runs"]) == 2
    assert invoke("--gold", files["gold"]).exit_code == 2
