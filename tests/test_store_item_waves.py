"""The active wave of a stored item-level plan (`sepia pool plan NAME --add N`): drawn only once the
first wave is judged, as the simulation draws it (the learned model trained on the first wave's
judgments, `item_uncertainty`, the probabilities of `sepia.metaeval.active`: recomputed here), stored
with its wave; judged items holding the new pairs go back to the queues; the estimate is the item
estimator on the same plan from files (`active_estimates`' combination of the two waves); a wave not
completely judged is left out with a warning; a third wave, or a model that cannot be trained, stores
nothing."""
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from sepia.cli import main
from sepia.formats.judgments import read_judgments
from sepia.formats.read import read_file
from sepia.metaeval.active import draw, inclusion_probabilities
from sepia.metaeval.active_estimates import item_uncertainty
from sepia.metaeval.item_estimates import Drawn, estimate_items
from sepia.metaeval.items import item_scores
from sepia.metaeval.learned_plans import FLOOR
from sepia.scoring.evaluate import Settings
from sepia.matchers.learned import cross_fitted
from sepia.store.models import Assignment, PlanNugget, utcnow
from tests.helpers import accounts

CS = Path(__file__).resolve().parents[1] / "corpora" / "cs"


def _status(runner) -> dict:
    return json.loads(runner.invoke(main, ["pool", "plan", "p", "--format", "json"]).stdout)


def _pairs(status) -> dict:
    """(run, topic, label) -> Drawn, from `sepia pool plan --format json`."""
    return {(r, t["topic_id"], label): Drawn(d["wave"], d["probability"]) for s in status["by_stratum"]
            for t in s["topics"] for r, drawn in t["samples"].items() for label, d in drawn.items()}


def _rows(keep) -> list[str]:
    lines = (CS / "judgments.tsv").read_text(encoding="utf-8").splitlines()
    return [lines[0]] + [x for x in lines[1:] if keep(x.split("\t"))]


def _file(tmp_path, name, rows) -> str:
    path = tmp_path / name
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return str(path)


def _cs():
    gold = read_file(str(CS / "gold.xml"), "gold")
    return gold, [read_file(str(p), "cclqa") for p in sorted((CS / "runs").glob("*.xml"))]


def test_the_next_wave_is_drawn_as_active_inference_says_and_estimated(plan_campaign, tmp_path):
    runner = CliRunner()
    assert runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--budget", "40%", "--unit", "items",
                                "--seed", "2"]).exit_code == 0
    before = _status(runner)
    first = _pairs(before)
    assert (before["wave_seed"], before["wave_expected"]) == (None, None)
    with plan_campaign.transaction() as session:
        accounts(session, "a1")
    assert runner.invoke(main, ["pool", "assign", "p", "--assessor", "a1"]).exit_code == 0
    with plan_campaign.transaction() as session:    # as if a1 had judged every item
        for assignment in session.scalars(select(Assignment)):
            assignment.judged_at = utcnow()
    planned0 = _file(tmp_path, "wave0.tsv", _rows(lambda x: (x[1], x[0], x[3]) in first))
    assert runner.invoke(main, ["import", planned0]).exit_code == 0
    added = runner.invoke(main, ["pool", "plan", "p", "--add", "15", "--seed", "4", "--format", "json"])
    assert added.exit_code == 0, added.output
    status = json.loads(added.stdout)
    wave = status["wave"]
    pairs = _pairs(status)
    new = {p: d for p, d in pairs.items() if d.wave == 1}
    assert {p: d for p, d in pairs.items() if d.wave == 0} == first and len(new) == wave["drawn"] > 0
    assert status["waves"] == 2 and (status["wave_seed"], status["wave_expected"]) == (4, 15)
    table = runner.invoke(main, ["pool", "plan", "p"]).stdout
    assert "seed 2, 2 waves (wave 1: seed 4, 15 pairs expected)" in table.splitlines()[0]
    # the draw again: the model on the first wave's judged pairs, each open pair's |influence on F| x sqrt(p (1 - p))
    # at the first wave's values, active's probabilities (floor: FLOOR of the uniform rate), Poisson with seed 4
    gold, runs = _cs()
    judged = read_judgments(planned0)
    model = cross_fitted(gold, runs, judged, "item", 4)
    candidates, weights = [], []
    for run_ids, topics in item_scores(gold, runs, judged, model).values():
        for topic in topics:
            known = np.array([[(r, topic.topic_id, n) in first for n in topic.labels] for r in run_ids])
            u = item_uncertainty(topic, known, 3.0)
            for i, r in enumerate(run_ids):
                if topic.answered[i] and known[i].any():
                    for j, n in enumerate(topic.labels):
                        if not known[i, j]:
                            candidates.append((r, topic.topic_id, n))
                            weights.append(u[i, j])
    floor = FLOOR * 15 / len(candidates)
    pi = inclusion_probabilities(np.array(weights), 15, floor)
    hits = draw(pi, np.random.default_rng(4))
    assert new == {c: Drawn(1, pytest.approx(float(p))) for c, p, hit in zip(candidates, pi, hits) if hit}
    assert (wave["candidates"], wave["floor"]) == (len(candidates), pytest.approx(floor))
    # the items holding new pairs are back in a1's queue, the others stay judged
    touched = {(r, t) for r, t, _ in new}
    with plan_campaign.transaction() as session:
        back = {a.entry_id for a in session.scalars(select(Assignment).where(Assignment.judged_at.is_(None)))}
        holding = {a.entry_id for a in session.scalars(select(Assignment))
                   if any((m.run_topic.run.run_id, m.run_topic.topic_id) in touched for m in a.entry.members)}
    assert back == holding and len(back) == wave["reopened"] > 0
    # an active plan has two waves; wave 1 not judged yet: the estimate is wave 0's, with a warning
    again = runner.invoke(main, ["pool", "plan", "p", "--add", "5"])
    assert again.exit_code == 1 and "has its second wave already" in again.output
    early = runner.invoke(main, ["evaluate", "--store", "--plan", "p", "--format", "json"])
    assert early.exit_code == 0 and "the estimates use waves 0-0" in early.stderr
    assert json.loads(early.stdout)["language_pairs"][0]["waves"] == 1
    # every judgment imported: the wave estimate, as from files with the planned pairs' judgments only
    assert runner.invoke(main, ["import", "--replace", str(CS / "judgments.tsv")]).exit_code == 0
    result = runner.invoke(main, ["evaluate", "--store", "--plan", "p", "--format", "json"])
    assert result.exit_code == 0, result.output
    plan = {}
    for (r, t, n), d in pairs.items():
        plan.setdefault(t, {}).setdefault(r, {})[n] = d
    only = read_judgments(_file(tmp_path, "planned.tsv", _rows(lambda x: (x[1], x[0], x[3]) in pairs)))
    files = estimate_items(gold, runs, only, Settings(), plan, 0.95)
    for group, expected in zip(json.loads(result.stdout)["language_pairs"], files["language_pairs"]):
        assert group["waves"] == 2
        for got, want in zip(group["runs"] + group["pairs"], expected["runs"] + expected["pairs"]):
            assert (got["estimate"], got["raw_low"], got["raw_high"]) == pytest.approx(
                (want["estimate"], want["raw_low"], want["raw_high"]))
    # a rebuilt pool keeps its plan, the active wave's seed and size with it
    assert runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--replace"]).exit_code == 0
    rebuilt = _status(runner)
    assert (rebuilt["wave_seed"], rebuilt["wave_expected"], _pairs(rebuilt)) == (4, 15, pairs)


def test_a_wave_the_model_cannot_learn_for_stores_nothing(plan_campaign, tmp_path):
    runner = CliRunner()
    assert runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--budget", "40%", "--unit", "items"]).exit_code == 0
    first = _pairs(_status(runner))
    refused = runner.invoke(main, ["pool", "plan", "p", "--add", "5"])
    assert refused.exit_code == 1 and "wave 0 of the item-level plan is not completely judged" in refused.output
    # every planned pair judged "no match": one decision only, nothing to learn
    rows = _rows(lambda x: (x[1], x[0], x[3]) in first)
    none = [rows[0]] + ["\t".join(r.split("\t")[:4] + ["0"] + r.split("\t")[5:]) for r in rows[1:]]
    assert runner.invoke(main, ["import", _file(tmp_path, "none.tsv", none)]).exit_code == 0
    result = runner.invoke(main, ["pool", "plan", "p", "--add", "5"])
    assert result.exit_code == 1 and "the learned model cannot be trained on the plan's judgments" in result.output
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    estimate = runner.invoke(main, ["evaluate", "--store", "--plan", "p", "--matcher", "learned"])   # nor estimate
    assert estimate.exit_code == 1 and "one decision only" in estimate.output
    assert len(estimate.output.strip().splitlines()) == 1 and "Traceback" not in estimate.output
    too_many = runner.invoke(main, ["pool", "plan", "p", "--add", "100000"])
    assert too_many.exit_code == 1 and "not yet planned; a wave of 100000 expected pairs needs as many" in too_many.output
    with plan_campaign.transaction() as session:
        assert session.scalar(select(func.count()).select_from(PlanNugget).where(PlanNugget.wave > 0)) == 0
