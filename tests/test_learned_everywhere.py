"""The learned matcher through the one matcher interface, everywhere issue 26 asks for it: `sepia
evaluate` from files and `--store` (SQLite and PostgreSQL), `sepia metaeval`, `sepia metaeval
adversarial` and `sepia evaluate --calibrate`. Expected values come from the learned package called
directly on the files (learned.cross_run, learned.from_model), not through the commands."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from scipy.stats import kendalltau

from sepia.cli import main
from sepia.formats.judgments import read_judgments
from sepia.formats.model import GoldStandard
from sepia.formats.read import read_file
from sepia.metaeval.adversarial import run_probes
from sepia.matchers import learned
from sepia.scoring.evaluate import Settings, evaluate_runs
from sepia.matchers.learned.trained import train
from sepia.services.scores import NothingToScore, score_stored_runs

CORPORA = Path(__file__).resolve().parents[1] / "corpora"
LANGS = ("cs", "ct", "ja")


def corpus(*langs):
    golds = [read_file(CORPORA / lang / "gold.xml", "gold") for lang in langs]
    runs = [read_file(p, "cclqa") for lang in langs for p in sorted((CORPORA / lang / "runs").glob("*.xml"))]
    judgments = [j for lang in langs for j in read_judgments(CORPORA / lang / "judgments.tsv")]
    gold = golds[0] if len(golds) == 1 else GoldStandard(None, [t for g in golds for t in g.topics])
    return gold, runs, judgments


@pytest.fixture(scope="module")
def ct_model(tmp_path_factory) -> Path:
    """A model of the CT campaign's judgments: fixed before anything CS is scored with it."""
    path = tmp_path_factory.mktemp("model") / "ct.json"
    train(*corpus("ct")).save(path)
    return path


def by_run(scores) -> dict[str, float]:
    return {s.run_id: s.score for s in scores}


@pytest.mark.slow
def test_store_scores_are_the_files_cross_run_scores(campaign_store):  # noqa: F811
    gold, runs, judgments = corpus(*LANGS)
    expected = by_run(evaluate_runs(gold, runs, matcher=learned.cross_run(gold, runs, judgments)))
    stored = by_run(score_stored_runs(campaign_store, {"matcher": "learned"}, save=False))
    assert set(stored) == set(expected) and len(stored) == len(runs)
    for run_id, score in expected.items():
        assert stored[run_id] == pytest.approx(score, abs=1e-9), run_id
    # one run asked for: the matcher still learns from every stored run's judgments (its own left out)
    one = score_stored_runs(campaign_store, {"matcher": "learned"}, run_ids=["TEAMB-CS-CS-01-T"], save=False)
    assert by_run(one) == pytest.approx({"TEAMB-CS-CS-01-T": expected["TEAMB-CS-CS-01-T"]}, abs=1e-9)


def test_store_with_a_model_and_its_one_line_errors(campaign_store, ct_model, tmp_path):  # noqa: F811
    gold, runs, _ = corpus(*LANGS)
    expected = by_run(evaluate_runs(gold, runs, matcher=learned.from_model(ct_model, gold, runs, threshold=0.5)))
    settings = Settings("learned", matcher_options={"model": str(ct_model), "threshold": "0.5"})
    saved = score_stored_runs(campaign_store, settings)
    assert by_run(saved) == pytest.approx(expected, abs=1e-9)
    shown = CliRunner().invoke(main, ["evaluate", "--store", "--matcher", "learned", "--matcher-option",
                                      f"model={ct_model}", "--matcher-option", "threshold=0.5", "--format", "json"])
    assert shown.exit_code == 0, shown.output
    document = json.loads(shown.stdout)
    assert document["settings"]["options"] == {"model": str(ct_model), "threshold": "0.5"}
    assert {r["run_id"]: r["score"] for r in document["runs"]} == pytest.approx(expected, abs=1e-4)
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "sepia-learned-matcher", "model_version": 0}')
    with pytest.raises(NothingToScore, match="another version"):
        score_stored_runs(campaign_store, Settings("learned", matcher_options={"model": str(broken)}), save=False)
    refused = CliRunner().invoke(main, ["evaluate", "--store", "--matcher", "learned",
                                        "--matcher-option", f"model={broken}"])
    assert refused.exit_code == 1 and refused.output.strip().count("\n") == 0 and "another version" in refused.output


def test_store_without_judgments_or_model_says_what_is_missing(on_store):  # noqa: F811
    files = [str(CORPORA / "cs" / "gold.xml"), *map(str, sorted((CORPORA / "cs" / "runs").glob("*.xml")))]
    assert CliRunner().invoke(main, ["import", *files]).exit_code == 0
    result = CliRunner().invoke(main, ["evaluate", "--store", "--matcher", "learned"])
    assert result.exit_code == 1 and "needs a model" in result.output


@pytest.mark.slow
def test_metaeval_compares_the_learned_matcher_with_the_others():
    gold, runs, judgments = corpus("cs")
    cs = CORPORA / "cs"
    result = CliRunner().invoke(main, ["metaeval", "--gold", str(cs / "gold.xml"), "--run", str(cs / "runs"),
                                       "--judgments", str(cs / "judgments.tsv"), "--matcher", "binarized",
                                       "--matcher", "learned", "--permutations", "20", "--repetitions", "5",
                                       "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["matchers"] == ["binarized", "learned"]
    expected = by_run(evaluate_runs(gold, runs, matcher=learned.cross_run(gold, runs, judgments)))
    human = by_run(evaluate_runs(gold, runs, matcher="human", judgments=judgments))
    rows = {r["run_id"]: r for r in report["scores"]}
    assert {r: rows[r]["learned"] for r in rows} == pytest.approx(expected, abs=1e-9)
    order = sorted(human)
    tau = kendalltau([human[r] for r in order], [expected[r] for r in order]).statistic
    assert report["ranking"]["learned"]["tau"] == pytest.approx(tau)
    by_team = CliRunner().invoke(main, ["metaeval", "--gold", str(cs / "gold.xml"), "--run", str(cs / "runs"),
                                        "--judgments", str(cs / "judgments.tsv"), "--matcher", "learned",
                                        "--matcher", "binarized", "--matcher-option", "holdout=team",
                                        "--matcher-option", "threshold=0.5", "--permutations", "20",
                                        "--repetitions", "5", "--format", "json"])
    assert by_team.exit_code == 0, by_team.output
    teams = by_run(evaluate_runs(gold, runs, matcher=learned.cross_run(gold, runs, judgments, "team", 0.5)))
    binarized = by_run(evaluate_runs(gold, runs))  # binarized takes neither option
    rows = {r["run_id"]: r for r in json.loads(by_team.stdout)["scores"]}
    assert {r: rows[r]["learned"] for r in rows} == pytest.approx(teams, abs=1e-9)
    assert {r: rows[r]["binarized"] for r in rows} == pytest.approx(binarized, abs=1e-12)


def test_adversarial_probes_the_learned_matcher_with_a_model(ct_model):
    gold, _, _ = corpus("ct")
    plain = run_probes(gold, settings=Settings(), probes=["numbers"])
    assert "learned" not in plain.matchers  # no judgments in a probe: without a model it is left out
    settings = Settings(matcher_options={"model": str(ct_model)})
    report = run_probes(gold, ["learned", "binarized"], settings=settings, probes=["numbers", "shuffle"])
    assert report.matchers[0] == "learned"
    # by hand: the faithful and perturbed probe runs scored with the model directly
    from sepia.metaeval.adversarial import FAITHFUL, probe_context, probe_runs

    runs, changed = probe_runs(probe_context(gold), ["numbers", "shuffle"])
    matcher = learned.from_model(ct_model, gold, runs)
    topics = {run.metadata.description.removeprefix("adversarial probe: "): {t.topic_id: t.f for t in s.topics}
              for run, s in zip(runs, (evaluate_runs(gold, [r], matcher=matcher)[0] for r in runs))}
    for row in (r for r in report.rows if r.matcher == "learned"):
        fooled = [t for t in sorted(changed[row.probe]) if topics[row.probe][t] >= topics[FAITHFUL][t] - 1e-12]
        assert (row.topics, sorted(row.fooled_topics)) == (len(changed[row.probe]), fooled)
    cli = CliRunner().invoke(main, ["metaeval", "adversarial", "--gold", str(CORPORA / "ct" / "gold.xml"),
                                    "--matcher", "learned", "--probe", "numbers"])
    assert cli.exit_code == 1 and "needs a model" in cli.output and cli.output.strip().count("\n") == 0


def test_calibrate_corrects_the_learned_matcher_of_a_model(ct_model, tmp_path):
    cs = CORPORA / "cs"
    common = ["evaluate", "--gold", str(cs / "gold.xml"), "--run", str(cs / "runs"), "--matcher", "learned"]
    result = CliRunner().invoke(main, [*common, "--matcher-option", f"model={ct_model}",
                                       "--calibrate", str(cs / "judgments.tsv"), "--format", "json"])
    assert result.exit_code == 0, result.output
    gold, runs, judgments = corpus("cs")
    automatic = by_run(evaluate_runs(gold, runs, matcher=learned.from_model(ct_model, gold, runs)))
    human = by_run(evaluate_runs(gold, runs, matcher="human", judgments=judgments))
    rows = {r["run_id"]: r for g in json.loads(result.stdout)["language_pairs"] for r in g["runs"]}
    for run_id, row in rows.items():
        assert row["automatic"] == pytest.approx(automatic[run_id])
        assert row["estimate"] == pytest.approx(human[run_id])  # every topic judged: the human F3 itself
    # without a model: trained on the sample's judgments, cross-fitted over its topics
    fitted = CliRunner().invoke(main, [*common, "--calibrate", str(cs / "judgments.tsv"), "--format", "json"])
    assert fitted.exit_code == 0, fitted.output
    for row in (r for g in json.loads(fitted.stdout)["language_pairs"] for r in g["runs"]):
        assert row["estimate"] == pytest.approx(human[row["run_id"]])


def test_a_judging_plan_corrects_the_learned_matcher_as_the_files_do(plan_campaign, ct_model, tmp_path):
    from tests.test_store_plans import _judgments

    runner = CliRunner()
    assert runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--budget", "50%", "--seed", "3"]).exit_code == 0
    planned = json.loads(runner.invoke(main, ["pool", "plan", "p", "--format", "json"]).stdout)
    sample = _judgments(tmp_path, [t["topic_id"] for t in planned["by_stratum"][0]["topics"]])
    assert runner.invoke(main, ["import", sample]).exit_code == 0
    learned_model = ["--matcher", "learned", "--matcher-option", f"model={ct_model}", "--format", "json"]
    stored = runner.invoke(main, ["evaluate", "--store", "--plan", "p", *learned_model])
    assert stored.exit_code == 0, stored.output
    cs = CORPORA / "cs"
    files = runner.invoke(main, ["evaluate", "--gold", str(cs / "gold.xml"), "--run", str(cs / "runs"),
                                 "--calibrate", sample, *learned_model])
    from_store, from_file = (json.loads(r.stdout) for r in (stored, files))
    extra = ("planned", "mean_width", "projected_width", "more_for_interval", "judgments_for_interval",
             "judgments_left")
    assert [{k: v for k, v in g.items() if k not in extra} for g in from_store["language_pairs"]] == \
        from_file["language_pairs"]
    assert from_store["matcher"] == "learned"
    # without a model: trained on the plan's judged topics, cross-fitted (tests/test_learned_crossfit.py)
    without = runner.invoke(main, ["evaluate", "--store", "--plan", "p", "--matcher", "learned"])
    assert without.exit_code == 0, without.output


def test_the_budget_simulation_cross_fits_the_learned_matcher():
    cs = CORPORA / "cs"
    result = CliRunner().invoke(main, ["metaeval", "budget", "--gold", str(cs / "gold.xml"), "--runs", str(cs / "runs"),
                                       "--judgments", str(cs / "judgments.tsv"), "--matcher", "learned",
                                       "--trials", "3", "--budgets", "50"])
    assert result.exit_code == 0 and "items learned" in result.output, result.output
