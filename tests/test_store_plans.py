"""Judging plans stored with pools: the draw and its record, topics added later, assignment of the
planned topics only, and estimates from the store equal to those from the same judgments as a file."""
import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from sepia.cli import main
from sepia.store.errors import ImportRefused
from sepia.store.models import Assignment, JudgingPlan, PlanTopic, Pool, PoolEntry, Topic, utcnow
from sepia.store.plans import _allocation, add_topics, make_plan, parse_budget, plan_status
from sepia.store.pools import assign_pool, build_pool
from tests.helpers import accounts

CS = Path(__file__).resolve().parents[1] / "corpora" / "cs"
TOPICS = [f"SEPIA-CS-000{i}" for i in range(1, 7)]


def _judgments(tmp_path, topics, name="sample.tsv") -> str:
    lines = (CS / "judgments.tsv").read_text(encoding="utf-8").splitlines()
    path = tmp_path / name
    path.write_text("\n".join([lines[0]] + [x for x in lines[1:] if x.split("\t")[0] in topics]) + "\n",
                    encoding="utf-8")
    return str(path)


def test_budgets():
    assert parse_budget("30%") == (0.3, None) and parse_budget("100%") == (1.0, None)
    assert parse_budget(" 5 ") == (None, 5)
    for bad in ("0%", "101%", "0", "-2", "ten", "%"):
        with pytest.raises(ValueError, match="judging budget"):
            parse_budget(bad)
    # five topics of a language shared among strata of 6, 3 and 1 topics: 3, 1.5, 0.5 -> 3, 2, 0 (largest remainders)
    assert _allocation({"CS/A": 6, "CS/B": 3, "CS/C": 1}, None, 5) == {"CS/A": 3, "CS/B": 2, "CS/C": 0}
    assert _allocation({"CS": 6, "JA": 4}, 0.3, None) == {"CS": 2, "JA": 1}


def test_plan_is_the_seeded_draw_and_topics_added_later(plan_campaign):
    with plan_campaign.transaction() as session:
        build_pool(session, "p", "cclqa", 30)
        plan = make_plan(session, "p", "50%", seed=3)
        chosen = sorted(t.topic_id for t in plan.topics)
    assert chosen == sorted(random.Random(3).sample(TOPICS, 3))      # the population in topic ID order
    with plan_campaign.transaction() as session:
        added = add_topics(session, "p", 1, seed=4)
        status = plan_status(session, "p")
    left = [t for t in TOPICS if t not in chosen]
    assert added == random.Random(4).sample(left, 1)
    (cs,) = status["by_stratum"]
    assert (cs["population"], cs["planned"]) == (6, 4)
    assert [t["probability"] for t in cs["topics"]] == pytest.approx([4 / 6] * 4)
    assert [t["draw"] for t in cs["topics"]] == [0, 0, 0, 1] and cs["topics"][3]["seed"] == 4


def test_stratified_plan_draws_within_answer_types(plan_campaign):
    with plan_campaign.transaction() as session:
        build_pool(session, "s", "cclqa", 30)
        with pytest.raises(ImportRefused, match="without a planned topic"):
            make_plan(session, "s", "1", strata="type", seed=0)
        plan = make_plan(session, "s", "30%", strata="type", seed=0)
        strata = sorted(t.stratum for t in plan.topics)
        types = {t.id: t.answer_type for t in session.scalars(select(Topic))}
    # the sample's six CS topics have six answer types: a stratum each, one topic drawn from each
    assert strata == sorted(f"CS/{types[t]}" for t in TOPICS)


def test_only_planned_topics_are_assigned(plan_campaign):
    with plan_campaign.transaction() as session:
        build_pool(session, "p", "cclqa", 30)
        planned = {t.topic_id for t in make_plan(session, "p", "2", seed=1).topics}
        accounts(session, "a1")
        assign_pool(session, "p", ["a1"])
        assigned = set(session.scalars(select(PoolEntry.topic_id).join(Assignment)))
    assert assigned == planned


def test_cli_plan_and_estimates_equal_the_file_ones(plan_campaign, tmp_path):
    runner = CliRunner()
    built = runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--budget", "50%", "--seed", "3"])
    assert built.exit_code == 0 and "judging plan: 3 topics (50%, strata none, seed 3)" in built.output
    nothing = runner.invoke(main, ["evaluate", "--store", "--plan", "p"])
    assert nothing.exit_code == 1 and "no topic of the judging plan is judged yet" in nothing.output
    planned = json.loads(runner.invoke(main, ["pool", "plan", "p", "--format", "json"]).stdout)
    topics = [t["topic_id"] for t in planned["by_stratum"][0]["topics"]]
    sample = _judgments(tmp_path, topics)
    assert runner.invoke(main, ["import", sample]).exit_code == 0
    stored = runner.invoke(main, ["evaluate", "--store", "--plan", "p", "--format", "json", "--level", "0.9"])
    assert stored.exit_code == 0, stored.output
    files = runner.invoke(main, ["evaluate", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs"),
                                 "--calibrate", sample, "--format", "json", "--level", "0.9"])
    from_store, from_file = (json.loads(r.stdout) for r in (stored, files))
    extra = ("planned", "mean_width", "projected_width", "more_for_interval", "judgments_for_interval",
             "judgments_left")  # the store's report also projects widths
    groups = [{k: v for k, v in g.items() if k not in extra} for g in from_store["language_pairs"]]
    assert groups == from_file["language_pairs"] and groups[0]["judged"] == 3
    assert from_store["language_pairs"][0]["planned"] == 3 and from_store["matcher"] == from_file["matcher"]
    shown = runner.invoke(main, ["pool", "plan", "p"])
    assert "CS: 3 of 6 topics planned" in shown.output


def test_bad_input_stores_nothing(plan_campaign, tmp_path):
    runner = CliRunner()
    for args, code, words in [
            (["--budget", "0%"], 2, "above 0% and at most 100%"), (["--budget", "150%"], 2, "at most 100%"),
            (["--budget", "30"], 2, "--topics N"), (["--budget", "30%", "--topics", "2"], 2, "not both")]:
        result = runner.invoke(main, ["pool", "build", "bad", "--kind", "cclqa", *args])
        assert result.exit_code == code and words in result.output, result.output
    with plan_campaign.transaction() as session:
        assert session.scalar(select(func.count()).select_from(Pool)) == 0
        assert session.scalar(select(func.count()).select_from(JudgingPlan)) == 0
    no_plan = runner.invoke(main, ["evaluate", "--store", "--plan", "nope"])
    assert no_plan.exit_code == 1 and "no pool named nope" in no_plan.output
    assert runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--topics", "2", "--seed", "5"]).exit_code == 0
    assert runner.invoke(main, ["evaluate", "--plan", "p"]).exit_code == 2        # --plan needs --store


def test_judgments_outside_the_plan_are_reported_and_left_out(plan_campaign, tmp_path):
    # An earlier pool of the same language judged every topic; a later pool's plan draws two of them.
    runner = CliRunner()
    assert runner.invoke(main, ["pool", "build", "earlier", "--kind", "cclqa", "--lang", "CS"]).exit_code == 0
    assert runner.invoke(main, ["import", str(CS / "judgments.tsv")]).exit_code == 0
    assert runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--lang", "CS", "--topics", "2",
                                "--seed", "5"]).exit_code == 0
    with plan_campaign.transaction() as session:
        planned = sorted(session.scalars(select(PlanTopic.topic_id)))
    result = runner.invoke(main, ["evaluate", "--store", "--plan", "p", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert "judgments of 4 topics outside the judging plan" in result.stderr and "left out" in result.stderr
    files = runner.invoke(main, ["evaluate", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs"),
                                 "--calibrate", _judgments(tmp_path, planned), "--format", "json"])
    stored = json.loads(result.stdout)["language_pairs"]
    assert stored and all(g["judged_topics"] == planned for g in stored)
    assert [g["runs"] for g in stored] == [g["runs"] for g in json.loads(files.stdout)["language_pairs"]]


def test_partly_judged_plan_warns_and_projects_the_width(plan_campaign, tmp_path):
    runner = CliRunner()
    assert runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--topics", "5", "--seed", "1"]).exit_code == 0
    planned = json.loads(runner.invoke(main, ["pool", "plan", "p", "--format", "json"]).stdout)
    topics = [t["topic_id"] for t in planned["by_stratum"][0]["topics"]]
    assert runner.invoke(main, ["import", _judgments(tmp_path, topics[:3])]).exit_code == 0
    result = runner.invoke(main, ["evaluate", "--store", "--plan", "p"])
    assert result.exit_code == 0, result.output
    assert "3 of the 5 planned topics are judged for every run" in result.stderr
    assert "CS-CS (3 of 6 topics judged)" in result.stdout and "projected once the 5 planned topics" in result.stdout


def test_stratified_plan_estimates_through_the_store(plan_campaign, tmp_path):
    # Every CS answer type has one topic, so the stratified plan takes them all: the estimate is the human F3.
    runner = CliRunner()
    built = runner.invoke(main, ["pool", "build", "t", "--kind", "cclqa", "--budget", "30%", "--strata", "type"])
    assert built.exit_code == 0 and "judging plan: 6 topics" in built.output
    assert runner.invoke(main, ["import", _judgments(tmp_path, TOPICS[:5])]).exit_code == 0
    waiting = runner.invoke(main, ["evaluate", "--store", "--plan", "t"])
    assert waiting.exit_code == 1 and "no planned topic of CS/DATE is judged yet" in waiting.output
    assert runner.invoke(main, ["import", "--replace", _judgments(tmp_path, TOPICS, "all.tsv")]).exit_code == 0
    assert_plan_gives_the_human_f3(runner, "t")


def assert_plan_gives_the_human_f3(runner, pool: str) -> None:
    """The plan's stored estimates are the sample's human F3 exactly, with width 0."""
    stored = json.loads(runner.invoke(main, ["evaluate", "--store", "--plan", pool, "--format", "json"]).stdout)
    human = runner.invoke(main, ["evaluate", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs"),
                                 "--matcher", "human", "--judgments", str(CS / "judgments.tsv"), "--format", "json"])
    means = {r["run_id"]: r["score"] for r in json.loads(human.stdout)["runs"]}
    rows = [r for g in stored["language_pairs"] for r in g["runs"]]
    assert {r["run_id"] for r in rows} == set(means)
    for r in rows:
        assert r["estimate"] == pytest.approx(means[r["run_id"]]) and r["low"] == pytest.approx(r["high"])


def test_a_plan_without_topics_to_draw_stores_no_pool_either(store, store_url, monkeypatch):
    monkeypatch.setenv("SEPIA_DATABASE_URL", store_url)
    runner = CliRunner()
    runs = [str(p) for p in sorted((CS / "runs").glob("*.xml"))]
    assert runner.invoke(main, ["import", str(CS / "topics.xml"), *runs]).exit_code == 0     # no gold standard
    result = runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--topics", "2"])
    assert result.exit_code == 1 and "no topic with nuggets to plan" in result.output
    with store.transaction() as session:
        assert session.scalar(select(func.count()).select_from(Pool)) == 0


def test_a_rebuilt_pool_keeps_its_plan_and_its_estimates(plan_campaign, tmp_path):
    from sepia.store.plans import kept_plan, restore_plan, save_estimate, saved_estimates

    runner = CliRunner()
    assert runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--budget", "50%", "--seed", "3"]).exit_code == 0
    with plan_campaign.transaction() as session:
        planned = sorted(session.scalars(select(PlanTopic.topic_id)))
    assert runner.invoke(main, ["import", _judgments(tmp_path, planned)]).exit_code == 0
    before = runner.invoke(main, ["evaluate", "--store", "--plan", "p", "--format", "json"])
    with plan_campaign.transaction() as session:
        save_estimate(session, "p", None, ["kept through the rebuild"])
        kept = kept_plan(session, session.scalar(select(Pool.id)))
        build_pool(session, "p", "cclqa", 30, replace=True)      # the database cascade deletes the plan
        assert session.scalar(select(func.count()).select_from(JudgingPlan)) == 0
        assert restore_plan(session, "p", kept) == []
        assert [e["warnings"] for e in saved_estimates(session).values()] == [["kept through the rebuild"]]
    after = runner.invoke(main, ["evaluate", "--store", "--plan", "p", "--format", "json"])
    assert after.exit_code == 0 and json.loads(after.stdout)["language_pairs"] == json.loads(before.stdout)["language_pairs"]
    with plan_campaign.transaction() as session:
        assert kept_plan(session, session.scalar(select(Pool.id))) == kept
        session.get(Topic, TOPICS[0]).retired = True                # the population shrinks: 6 -> 5 topics
        kept = kept_plan(session, session.scalar(select(Pool.id)))
        build_pool(session, "p", "cclqa", 30, replace=True)
        assert restore_plan(session, "p", kept) == ["CS had 6 topics when the plan was drawn and has 5 now"]
    refused = runner.invoke(main, ["evaluate", "--store", "--plan", "p"])
    assert refused.exit_code == 1 and "CS had 6 topics when the plan was drawn and has 5 now; draw a new plan" in refused.output


def test_estimates_are_saved_once_per_plan_and_go_with_it(plan_campaign, tmp_path):
    from sepia.services.plan_estimates import estimate_plan
    from sepia.scoring.evaluate import Settings
    from sepia.store.models import PlanEstimate
    from sepia.store.plans import save_estimate, saved_estimates

    runner = CliRunner()
    assert runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--topics", "3", "--seed", "2"]).exit_code == 0
    with plan_campaign.transaction() as session:
        save_estimate(session, "p", None, ["no topic of the judging plan is judged yet"])
        planned = sorted(session.scalars(select(PlanTopic.topic_id)))
    assert runner.invoke(main, ["import", _judgments(tmp_path, planned)]).exit_code == 0
    report, warnings = estimate_plan(plan_campaign, Settings("binarized"), "p")
    with plan_campaign.transaction() as session:
        save_estimate(session, "p", report, warnings)
        pool_id = session.scalar(select(Pool.id))
        (saved,) = saved_estimates(session).values()
        assert session.scalar(select(func.count()).select_from(PlanEstimate)) == 1     # replaced, not added
    assert saved["report"] == json.loads(json.dumps(report)) and saved["warnings"] == warnings
    with plan_campaign.transaction() as session:
        session.delete(session.get(Pool, pool_id))
    with plan_campaign.transaction() as session:
        assert saved_estimates(session) == {} and session.scalar(select(func.count()).select_from(PlanEstimate)) == 0


def test_cli_replace_keeps_the_plan_unless_a_new_one_is_drawn(plan_campaign):
    runner = CliRunner()
    assert runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--topics", "2", "--seed", "4"]).exit_code == 0
    with plan_campaign.transaction() as session:
        before = sorted(session.scalars(select(PlanTopic.topic_id)))
    kept = runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--replace"])
    assert kept.exit_code == 0 and "judging plan kept: 2 topics (2, seed 4)" in kept.output
    with plan_campaign.transaction() as session:
        assert sorted(session.scalars(select(PlanTopic.topic_id))) == before
        session.get(Topic, TOPICS[0]).retired = True
    changed = runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--replace"])
    assert changed.exit_code == 0 and "CS had 6 topics when the plan was drawn and has 5 now" in changed.stderr
    drawn = runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--replace", "--topics", "3", "--seed", "1"])
    assert drawn.exit_code == 0 and "judging plan: 3 topics (3, strata none, seed 1)" in drawn.output


def _holders(session) -> dict[int, list[str]]:
    held: dict[int, list[str]] = {}
    for entry_id, assessor in session.execute(select(Assignment.entry_id, Assignment.assessor)
                                              .order_by(Assignment.entry_id, Assignment.assessor)):
        held.setdefault(entry_id, []).append(assessor)
    return held


def test_topics_added_to_a_plan_go_out_without_handing_judged_items_again(plan_campaign):
    """Issue 33: `pool plan --add` then `pool assign --overlap 0` gave one assessor every item of a
    topic two others had judged: the added topics shifted the topics' turns, and an item was only
    kept from the assessor who held it, not from everyone else. A topic shared out stays with its
    assessors; the new topics alone are shared out; the overlap counts what is held."""
    assessors = ["a1", "a2", "a3"]
    with plan_campaign.transaction() as session:
        build_pool(session, "p", "cclqa", 30)
        make_plan(session, "p", "2", seed=1)
        accounts(session, *assessors)
        first = assign_pool(session, "p", assessors, overlap=0.4, seed=0)
        before = _holders(session)
        for assignment in session.scalars(select(Assignment)):
            assignment.judged_at = utcnow()  # every item judged
        added = add_topics(session, "p", 2, seed=5)
        more = assign_pool(session, "p", assessors, overlap=0.0, seed=0)
        after = _holders(session)
        topic_of = dict(session.execute(select(PoolEntry.id, PoolEntry.topic_id)).all())
    assert first == len(before) + sum(len(h) == 2 for h in before.values())
    assert {e: after[e] for e in before} == before  # nothing handed out again
    new = {e: h for e, h in after.items() if e not in before}
    assert {topic_of[e] for e in new} == set(added) and all(len(h) == 1 for h in new.values())
    assert more == len(new)
    with plan_campaign.transaction() as session:  # asking for overlap now doubles only the new topics' items
        doubled = assign_pool(session, "p", assessors, overlap=0.4, seed=0)
        again = _holders(session)
    assert {e: again[e] for e in before} == before
    for topic in added:
        items = [e for e in new if topic_of[e] == topic]
        assert sum(len(again[e]) == 2 for e in items) == round(0.4 * len(items))
        assert all(len(set(again[e])) == len(again[e]) for e in items)
    assert doubled == sum(round(0.4 * len([e for e in new if topic_of[e] == t])) for t in added)


def _plan_report(runner, tmp_path, planned: int, judged: int) -> tuple[dict, str]:
    assert runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--topics", str(planned), "--seed", "1"]
                         ).exit_code == 0
    status = json.loads(runner.invoke(main, ["pool", "plan", "p", "--format", "json"]).stdout)
    topics = [t["topic_id"] for t in status["by_stratum"][0]["topics"]]
    assert runner.invoke(main, ["import", _judgments(tmp_path, topics[:judged])]).exit_code == 0
    report = json.loads(runner.invoke(main, ["evaluate", "--store", "--plan", "p", "--format", "json"]).stdout)
    return report["language_pairs"][0], runner.invoke(main, ["evaluate", "--store", "--plan", "p"]).stdout


def test_one_judged_topic_ranks_no_run_and_says_what_gives_an_interval(plan_campaign, tmp_path):
    """Issue 33: with 1 of 2 planned topics judged the runs were ranked by estimates without an
    interval (λ 0.00). No interval, no ranking: the report says why and how many more topics."""
    group, text = _plan_report(CliRunner(), tmp_path, planned=2, judged=1)
    assert group["judged"] == 1 and all(r["low"] is None for r in group["runs"])
    assert group["more_for_interval"] == 1 and group["mean_width"] is None
    # the plan is SEPIA-CS-0002 (judged) and SEPIA-CS-0005, whose 8 responses (2 of each run) have 4 distinct
    # texts, so 4 pool items: the judgments the interval needs, and all the plan has left
    assert group["judgments_for_interval"] == 4 and group["judgments_left"] == 4
    assert ("No interval yet: an interval needs two judged topics, and 1 of the 2 planned topics is judged; judge 1 "
            "more planned topic (at least 4 more judgments) for intervals, and the whole plan (4 more judgments) "
            "for the width projected for it. Until then the runs are not ranked.") in text
    assert "ESTIMATE" not in text and "TEAMA" not in text


def test_interval_widths_are_of_the_intervals_shown(plan_campaign, tmp_path):
    """Issue 33: "Mean interval width now 1.915" for a score in [0, 1]: the width was the unclipped
    intervals'. Now it is the mean of the clipped intervals' widths, and the projected width is the
    mean of each run's unclipped interval narrowed by the t and finite-population factor, then clipped."""
    from scipy import stats

    group, text = _plan_report(CliRunner(), tmp_path, planned=4, judged=2)
    runs = group["runs"]
    assert all(0 <= r["low"] <= r["high"] <= 1 for r in runs) and group.get("more_for_interval", 0) == 0
    assert group["mean_width"] == pytest.approx(sum(r["high"] - r["low"] for r in runs) / len(runs))
    assert group["mean_width"] <= 1
    n, m, population = 2, 4, group["topics"]
    factor = (stats.t.ppf(0.975, m - 1) * (1 / m - 1 / population) ** 0.5) / (
        stats.t.ppf(0.975, n - 1) * (1 / n - 1 / population) ** 0.5)
    projected = [min(1, (r["raw_low"] + r["raw_high"]) / 2 + factor * (r["raw_high"] - r["raw_low"]) / 2)
                 - max(0, (r["raw_low"] + r["raw_high"]) / 2 - factor * (r["raw_high"] - r["raw_low"]) / 2) for r in runs]
    assert group["projected_width"] == pytest.approx(sum(projected) / len(projected))
    # the two planned topics not judged: every pool item of theirs is still to judge
    status = json.loads(CliRunner().invoke(main, ["pool", "plan", "p", "--format", "json"]).stdout)
    waiting = [t["items"] for t in status["by_stratum"][0]["topics"][2:]]  # _plan_report judged the first two
    assert len(waiting) == 2 and group["judgments_left"] == sum(waiting) and group["judgments_for_interval"] == 0
    assert f"projected once the 4 planned topics are judged ({sum(waiting)} more judgments)" in text
    assert group["projected_width"] <= group["mean_width"]
    assert f"mean interval width {group['mean_width']:.3f} now" in text
