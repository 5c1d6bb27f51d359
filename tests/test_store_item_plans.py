"""Item-level judging plans stored with pools: the seeded draw of every topic's nuggets, estimates
through the store equal to the item estimator on the same judgments (and to the human F3 once every
nugget is judged), and bad input refused in one line with nothing stored."""
import json
import random
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select
from test_store_plans import assert_plan_gives_the_human_f3

from sepia.cli import main
from sepia.formats.judgments import read_judgments
from sepia.formats.read import read_file
from sepia.metaeval.item_estimates import estimate_items
from sepia.scoring.evaluate import Settings
from sepia.store.models import JudgingPlan, Nugget, PlanNugget, Pool
from sepia.store.planned import item_plan_labels
from sepia.store.plans import make_plan, plan_status
from sepia.store.pools import build_pool

CS = Path(__file__).resolve().parents[1] / "corpora" / "cs"


def _planned(runner) -> dict[str, set[str]]:
    status = json.loads(runner.invoke(main, ["pool", "plan", "p", "--format", "json"]).stdout)
    return {t["topic_id"]: set(t["nuggets"]) for s in status["by_stratum"] for t in s["topics"]}


def _judgments(tmp_path, keep, name="sample.tsv") -> str:
    lines = (CS / "judgments.tsv").read_text(encoding="utf-8").splitlines()
    path = tmp_path / name
    path.write_text("\n".join([lines[0]] + [x for x in lines[1:] if keep(x.split("\t"))]) + "\n", encoding="utf-8")
    return str(path)


def test_item_plan_is_the_seeded_draw_of_every_topics_nuggets(plan_campaign):
    with plan_campaign.transaction() as session:
        build_pool(session, "p", "cclqa", 30)
        plan = make_plan(session, "p", "40%", seed=7, unit="items")
        labels = defaultdict(list)
        for topic_id, label in session.execute(select(Nugget.topic_id, Nugget.label).order_by(Nugget.label)):
            labels[topic_id].append(label)
        drawn = defaultdict(list)
        for n in plan.nuggets:
            drawn[n.topic_id].append((n.label, n.probability))
        assert plan.unit == "items" and all(t.probability == 1.0 for t in plan.topics)
        status = plan_status(session, "p")
    rng = random.Random(7)
    for topic_id in sorted(labels):   # CS topics in ID order, one stratum
        K = len(labels[topic_id])
        k = min(K, max(2, round(0.4 * K)))
        assert [label for label, _ in drawn[topic_id]] == sorted(rng.sample(labels[topic_id], k))
        assert all(p == pytest.approx(k / K) for _, p in drawn[topic_id])
    assert status["unit"] == "items" and all(t["nuggets"] for t in status["by_stratum"][0]["topics"])


def test_a_judging_screen_reads_its_topics_planned_nuggets_in_one_statement(plan_campaign):
    from sqlalchemy import event

    with plan_campaign.transaction() as session:
        pool = build_pool(session, "p", "cclqa", 30)
        topic_id = min(session.scalars(select(Nugget.topic_id)))
        assert item_plan_labels(session, pool.id, topic_id) is None  # no plan: every nugget is judged
        plan = make_plan(session, "p", "40%", seed=7, unit="items")
        drawn = {n.label for n in plan.nuggets if n.topic_id == topic_id}
        seen: list[str] = []
        listener = lambda *args, **kwargs: seen.append(args[2])  # noqa: E731  (the statement)
        event.listen(plan_campaign.engine, "before_cursor_execute", listener)
        try:
            assert item_plan_labels(session, pool.id, topic_id) == drawn and drawn
            assert item_plan_labels(session, pool.id, "NO-SUCH-TOPIC") == set()  # planned, none of its nuggets
        finally:
            event.remove(plan_campaign.engine, "before_cursor_execute", listener)
        assert len(seen) == 2


def test_estimates_through_the_store(plan_campaign, tmp_path):
    runner = CliRunner()
    built = runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--lang", "CS", "--budget", "40%",
                                 "--unit", "items", "--seed", "2"])
    assert built.exit_code == 0 and "item-level judging plan: " in built.output, built.output
    nothing = runner.invoke(main, ["evaluate", "--store", "--plan", "p"])
    assert nothing.exit_code == 1 and "no nugget of the item-level judging plan is judged yet" in nothing.output
    planned = _planned(runner)
    some = sorted(planned)[:3]
    partial = _judgments(tmp_path, lambda x: x[0] in some and x[3] in planned[x[0]], "partial.tsv")
    assert runner.invoke(main, ["import", partial]).exit_code == 0
    waiting = runner.invoke(main, ["evaluate", "--store", "--plan", "p"])
    assert waiting.exit_code == 1 and "not yet judged for every run on 3 of 6 topics" in waiting.output
    # every judgment of the sample imported: those of unplanned nuggets are left out with a warning
    assert runner.invoke(main, ["import", "--replace", str(CS / "judgments.tsv")]).exit_code == 0
    result = runner.invoke(main, ["evaluate", "--store", "--plan", "p", "--format", "json", "--level", "0.9"])
    assert result.exit_code == 0, result.output
    assert "outside the item-level plan" in result.stderr and "left out" in result.stderr
    stored = json.loads(result.stdout)
    # the same from files, with only the planned nuggets' judgments
    only = read_judgments(_judgments(tmp_path, lambda x: x[3] in planned.get(x[0], ()), "planned.tsv"))
    gold = read_file(str(CS / "gold.xml"), "gold")
    runs = [read_file(str(p), "cclqa") for p in sorted((CS / "runs").glob("*.xml"))]
    files = estimate_items(gold, runs, only, Settings(), planned, 0.9)
    assert [g["language_pair"] for g in stored["language_pairs"]] == [g["language_pair"] for g in files["language_pairs"]]
    for group, expected in zip(stored["language_pairs"], files["language_pairs"]):
        assert [r["run_id"] for r in group["runs"]] == [r["run_id"] for r in expected["runs"]]
        for got, want in zip(group["runs"] + group["pairs"], expected["runs"] + expected["pairs"]):
            assert (got["estimate"], got["raw_low"], got["raw_high"]) == pytest.approx(
                (want["estimate"], want["raw_low"], want["raw_high"]))
        assert group["judged_nuggets"] == sum(len(v) for v in planned.values()) and not group["complete"]
    table = runner.invoke(main, ["evaluate", "--store", "--plan", "p"])
    assert table.exit_code == 0 and f"CS-CS ({group['judged_nuggets']} of the {group['nuggets']} nuggets judged on every topic)" in table.output


def test_every_nugget_planned_gives_the_human_f3(plan_campaign):
    runner = CliRunner()
    assert runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--budget", "100%", "--unit", "items"]).exit_code == 0
    assert runner.invoke(main, ["import", str(CS / "judgments.tsv")]).exit_code == 0
    assert_plan_gives_the_human_f3(runner, "p")


def test_bad_input_stores_nothing(plan_campaign):
    runner = CliRunner()
    for args, words in [(["--budget", "0%"], "above 0% and at most 100%"), (["--budget", "101%"], "at most 100%"),
                        (["--topics", "2"], "--unit items takes --budget"),
                        (["--budget", "30%", "--strata", "type"], "without --topics or --strata")]:
        result = runner.invoke(main, ["pool", "build", "bad", "--kind", "cclqa", "--unit", "items", *args])
        assert result.exit_code == 2 and words in result.output, result.output
        assert len(result.output.strip().splitlines()[-1]) and "Traceback" not in result.output
    with plan_campaign.transaction() as session:
        assert session.scalar(select(func.count()).select_from(Pool)) == 0
        assert session.scalar(select(func.count()).select_from(JudgingPlan)) == 0
        assert session.scalar(select(func.count()).select_from(PlanNugget)) == 0
    assert runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--budget", "30%", "--unit", "items"]).exit_code == 0
    added = runner.invoke(main, ["pool", "plan", "p", "--add", "1"])
    assert added.exit_code == 1 and "plans every topic already" in added.output


def test_rebuilding_the_pool_keeps_the_item_plan(plan_campaign):
    runner = CliRunner()
    assert runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--budget", "30%", "--unit", "items",
                                "--seed", "4"]).exit_code == 0
    before = _planned(runner)
    rebuilt = runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--replace"])
    assert rebuilt.exit_code == 0 and "judging plan kept" in rebuilt.output
    assert _planned(runner) == before


def test_a_topic_whose_nuggets_changed_since_the_draw_is_refused(plan_campaign):
    runner = CliRunner()
    assert runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--budget", "30%", "--unit", "items"]).exit_code == 0
    assert runner.invoke(main, ["import", str(CS / "judgments.tsv")]).exit_code == 0
    assert runner.invoke(main, ["evaluate", "--store", "--plan", "p"]).exit_code == 0
    with plan_campaign.transaction() as session:
        session.add(Nugget(topic_id="SEPIA-CS-0001", label="N999", text="新的", position=99))
    result = runner.invoke(main, ["evaluate", "--store", "--plan", "p"])
    assert result.exit_code == 1 and "topic SEPIA-CS-0001 had" in result.output and "draw a new plan" in result.output
