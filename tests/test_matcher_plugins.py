"""Matchers as plug-ins (entry points `sepia.matchers`) and automatic assignments given as files
(`--auto-judgments`), scored and meta-evaluated like BINARIZED."""
from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.formats.judgments import judgments_to_tsv
from sepia.formats.model import CCLQARun, GoldStandard, Judgment
from sepia.formats.read import read_file
from sepia import matchers as registry
from sepia.matchers.binarized import BinarizedMatcher
from sepia.scoring.evaluate import evaluate_runs

ROOT = Path(__file__).resolve().parents[1]
CS = ROOT / "corpora" / "cs"

PLUGIN = '''
class FirstCharacter:
    """A toy matcher: a nugget matches when its first character occurs in some answer."""
    name = "firstchar"

    def scores(self, run_id, topic_id, nuggets, answers):
        return [1.0 if any(n.text[:1] in a.text for a in answers) else 0.0 for n in nuggets]


def make(**options):
    return FirstCharacter()
'''


@pytest.fixture
def plugin_path(tmp_path, monkeypatch):
    """A package installed the way pip would: a module and a dist-info with its entry point."""
    site = tmp_path / "site"
    (site / "sepia_toy_plugin-0.1.dist-info").mkdir(parents=True)
    (site / "sepia_toy_plugin.py").write_text(PLUGIN, encoding="utf-8")
    (site / "sepia_toy_plugin-0.1.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: sepia-toy-plugin\nVersion: 0.1\n", encoding="utf-8")
    (site / "sepia_toy_plugin-0.1.dist-info" / "entry_points.txt").write_text(
        "[sepia.matchers]\nfirstchar = sepia_toy_plugin:make\nbinarized = sepia_toy_plugin:make\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(site))
    return site


def _by_hand(gold: GoldStandard, runs: list[CCLQARun]) -> dict[str, list[float]]:
    """The toy matcher's per-nugget decisions, computed here without SEPIA's scoring."""
    nuggets = {t.topic_id: t.nuggets for t in gold.topics}
    return {f"{r.run_id} {t.topic_id}": [1.0 if any(n.text[:1] in a.text for a in t.answers) else 0.0
                                          for n in nuggets[t.topic_id]] for r in runs for t in r.topics}


def test_a_plugin_is_found_by_name(plugin_path):
    assert "firstchar" in registry.names()
    assert registry.make("firstchar").name == "firstchar"
    assert isinstance(registry.make("binarized"), BinarizedMatcher)  # a plug-in cannot take a built-in name
    gold = read_file(CS / "gold.xml")
    runs = [read_file(p) for p in sorted((CS / "runs").glob("*.xml"))]
    expected = _by_hand(gold, runs)
    for score in evaluate_runs(gold, runs, matcher="firstchar"):
        for topic in score.topics:
            key = f"{score.run_id} {topic.topic_id}"
            if key in expected:
                assert topic.matched == sum(expected[key])


def test_cli_takes_a_plugin_and_refuses_unknown_names(plugin_path):
    args = ["evaluate", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs"), "--format", "json"]
    result = CliRunner().invoke(main, args + ["--matcher", "firstchar"])
    assert result.exit_code == 0, result.output
    assert {r["matcher"] for r in json.loads(result.stdout)["runs"]} == {"firstchar"}
    bad = CliRunner().invoke(main, args + ["--matcher", "nosuch"])
    assert bad.exit_code == 2 and "'nosuch' is not a matcher" in bad.output and "firstchar" in bad.output


def test_plugin_in_a_fresh_process(plugin_path):
    """The `sepia` command itself finds it, as a third party's installed package would be found."""
    command = Path(sys.executable).parent / "sepia"
    if not command.exists():
        pytest.skip("the sepia command is not installed beside this Python")
    result = subprocess.run([str(command), "evaluate", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs"),
                             "--matcher", "firstchar", "--format", "tsv"],
                            capture_output=True, text=True, env={"PYTHONPATH": str(plugin_path), "PATH": ""})
    assert result.returncode == 0, result.stderr
    assert "\tfirstchar\t" in result.stdout


# ---------------------------------------------------------------- automatic assignments as files

def _binarized_decisions(gold, runs, name: str) -> list[Judgment]:
    """BINARIZED's decision per (answer, nugget), written as an automatic assessor's judgments."""
    matcher = BinarizedMatcher()
    nuggets = {t.topic_id: t.nuggets for t in gold.topics}
    rows = []
    for run in runs:
        for topic in run.topics:
            for answer in topic.answers:
                for nugget, value in zip(nuggets.get(topic.topic_id, []),
                                         matcher.scores(run.run_id, topic.topic_id, nuggets.get(topic.topic_id, []),
                                                        [answer])):
                    rows.append(Judgment(topic.topic_id, run.run_id, answer.rank, nugget.nugget_id, value, name))
    return rows


def test_auto_judgments_file_scores_like_the_matcher_it_records(tmp_path):
    gold = read_file(CS / "gold.xml")
    runs = [read_file(p) for p in sorted((CS / "runs").glob("*.xml"))]
    path = tmp_path / "auto.tsv"
    path.write_text(judgments_to_tsv(_binarized_decisions(gold, runs, "llm-judge")), encoding="utf-8")
    base = ["evaluate", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs"), "--format", "json"]
    auto = json.loads(CliRunner().invoke(main, base + ["--auto-judgments", str(path)]).stdout)["runs"]
    binarized = json.loads(CliRunner().invoke(main, base).stdout)["runs"]
    assert {r["matcher"] for r in auto} == {"llm-judge"}
    assert [(r["run_id"], r["score"]) for r in auto] == [(r["run_id"], pytest.approx(r["score"])) for r in binarized]
    named = json.loads(CliRunner().invoke(main, base + ["--auto-judgments", f"mine={path}"]).stdout)["runs"]
    assert {r["matcher"] for r in named} == {"mine"}


def test_metaeval_sets_an_auto_judgments_file_against_the_humans_as_binarized(tmp_path):
    gold = read_file(CS / "gold.xml")
    runs = [read_file(p) for p in sorted((CS / "runs").glob("*.xml"))]
    path = tmp_path / "auto.tsv"
    path.write_text(judgments_to_tsv(_binarized_decisions(gold, runs, "llm-judge")), encoding="utf-8")
    result = CliRunner().invoke(main, ["metaeval", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs"),
                                       "--judgments", str(CS / "judgments.tsv"), "--matcher", "binarized",
                                       "--auto-judgments", str(path), "--permutations", "50", "--repetitions", "5",
                                       "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["matchers"] == ["binarized", "llm-judge"]
    assert report["correlations"]["llm-judge"] == report["correlations"]["binarized"]
    assert report["ranking"]["llm-judge"] == report["ranking"]["binarized"]


def test_auto_judgments_refuse_a_builtin_name(tmp_path):
    path = tmp_path / "auto.tsv"
    path.write_text(judgments_to_tsv([Judgment("SEPIA-CS-0001", "TEAMA-CS-CS-01-T", 1, "N01", 1, "binarized")]),
                    encoding="utf-8")
    result = CliRunner().invoke(main, ["evaluate", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs"),
                                       "--auto-judgments", str(path)])
    assert result.exit_code == 2 and "built-in matcher" in result.output


RAG24 = ROOT.parent / "shared" / "data" / "trec-rag24" / "rag24_nugget_assignment.20241108.jl"


@pytest.mark.skipif(not RAG24.exists(), reason="TREC RAG 2024 data not in ../shared/data")
def test_nuggetizer_jsonl_as_auto_judgments_matches_nuggets_by_text(tmp_path):
    """The human file given again as an 'AutoNuggetizer' run, nugget lists shuffled the same way per
    qid: matched by text, it scores exactly as the human judgments."""
    rng = random.Random(3)
    records = [json.loads(line) for line in RAG24.read_text(encoding="utf-8").splitlines() if line.strip()]
    orders = {}
    for r in records:
        order = orders.setdefault(r["qid"], rng.sample(range(len(r["nuggets"])), len(r["nuggets"])))
        r["nuggets"] = [r["nuggets"][i] for i in order]
    auto = tmp_path / "autonuggetizer.jsonl"
    auto.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    out = tmp_path / "rag24"
    assert CliRunner().invoke(main, ["convert", "nuggetizer", str(RAG24), "--out", str(out)]).exit_code == 0
    base = ["evaluate", "--gold", str(out / "gold.xml"), "--run", str(out / "runs"), "--format", "json"]
    human = json.loads(CliRunner().invoke(main, base + ["--matcher", "human", "--judgments",
                                                        str(out / "judgments.tsv")]).stdout)["runs"]
    result = CliRunner().invoke(main, base + ["--auto-judgments", str(auto)])
    assert result.exit_code == 0 and "lacks" not in result.output
    automatic = json.loads(result.stdout)["runs"]
    assert {r["matcher"] for r in automatic} == {"autonuggetizer"}
    assert {r["run_id"]: r["score"] for r in automatic} == pytest.approx({r["run_id"]: r["score"] for r in human})
