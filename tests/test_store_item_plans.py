"""Item-level judging plans stored with pools: the seeded draw of each response's own sample of its
topic's nuggets, estimates through the store equal to the item estimator on the same judgments (and
to the human F3 once every nugget is judged), plans drawn before 0017 (one sample for every response)
still read, and bad input refused in one line with nothing stored."""
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
from sepia.metaeval.item_estimates import Drawn, estimate_items
from sepia.scoring.evaluate import Settings
from sepia.store.models import JudgingPlan, Nugget, PlanNugget, Pool, PoolEntry, Run, RunTopic
from sepia.store.planned import item_plan_labels
from sepia.store.plans import make_plan, plan_status
from sepia.store.pools import assign_pool, build_pool
from tests.helpers import accounts

CS = Path(__file__).resolve().parents[1] / "corpora" / "cs"


def _planned(runner) -> dict[str, dict]:
    """Topic ID -> run ID ("*": every run) -> the labels planned for its response."""
    status = json.loads(runner.invoke(main, ["pool", "plan", "p", "--format", "json"]).stdout)
    return {t["topic_id"]: {r: set(drawn) for r, drawn in t["samples"].items()}
            for s in status["by_stratum"] for t in s["topics"]}


def _in_plan(planned, row) -> bool:
    """Whether a judgments TSV row (topic, run, rank, nugget, ...) is a planned pair."""
    sample = planned.get(row[0], {})
    return row[3] in sample.get(row[1], set()) | sample.get("*", set())


def _as_sample(planned) -> dict:
    """`_planned` as the item estimator's plan: every pair of wave 0, its probability irrelevant."""
    return {t: {None if r == "*" else r: {label: Drawn(0, 0.5) for label in labels} for r, labels in runs.items()}
            for t, runs in planned.items()}


def _judgments(tmp_path, keep, name="sample.tsv") -> str:
    lines = (CS / "judgments.tsv").read_text(encoding="utf-8").splitlines()
    path = tmp_path / name
    path.write_text("\n".join([lines[0]] + [x for x in lines[1:] if keep(x.split("\t"))]) + "\n", encoding="utf-8")
    return str(path)


def test_item_plan_is_the_seeded_draw_of_each_responses_own_nuggets(plan_campaign):
    with plan_campaign.transaction() as session:
        build_pool(session, "p", "cclqa", 30)
        plan = make_plan(session, "p", "40%", seed=7, unit="items")
        labels = defaultdict(list)
        for topic_id, label in session.execute(select(Nugget.topic_id, Nugget.label).order_by(Nugget.label)):
            labels[topic_id].append(label)
        runs = defaultdict(set)
        for topic_id, run_id in session.execute(select(RunTopic.topic_id, Run.run_id).join(Run)):
            runs[topic_id].add(run_id)
        drawn = defaultdict(list)
        for n in plan.nuggets:
            drawn[n.topic_id, n.run_id].append((n.label, n.probability, n.wave))
        assert plan.unit == "items" and all(t.probability == 1.0 for t in plan.topics)
        status = plan_status(session, "p")
    rng = random.Random(7)
    for topic_id in sorted(labels):   # CS topics in ID order, one stratum; the runs in ID order
        K = len(labels[topic_id])
        k = min(K, max(2, round(0.4 * K)))
        for run_id in sorted(runs[topic_id]):
            assert [label for label, _, _ in drawn[topic_id, run_id]] == sorted(rng.sample(labels[topic_id], k))
            assert all(p == pytest.approx(k / K) and wave == 0 for _, p, wave in drawn[topic_id, run_id])
    assert len(drawn) == sum(len(r) for r in runs.values())
    assert len({frozenset(label for label, _, _ in d) for d in drawn.values()}) > len(labels)  # samples differ
    assert status["unit"] == "items" and status["waves"] == 1
    assert all(set(t["samples"]) == runs[t["topic_id"]] for t in status["by_stratum"][0]["topics"])


def test_a_judging_screen_reads_its_items_planned_nuggets_in_one_statement(plan_campaign):
    from sqlalchemy import event

    with plan_campaign.transaction() as session:
        pool = build_pool(session, "p", "cclqa", 30)
        topic_id = min(session.scalars(select(Nugget.topic_id)))
        assert item_plan_labels(session, pool.id, topic_id) is None  # no plan: every nugget is judged
        plan = make_plan(session, "p", "40%", seed=7, unit="items")
        entries = session.scalars(select(PoolEntry).where(PoolEntry.pool_id == pool.id,
                                                          PoolEntry.topic_id == topic_id)).all()
        of_run = {r: {n.label for n in plan.nuggets if n.topic_id == topic_id and n.run_id == r}
                  for r in {n.run_id for n in plan.nuggets}}
        wanted = {e.id: set().union(*(of_run[m.run_topic.run.run_id] for m in e.members)) for e in entries}
        seen: list[str] = []
        listener = lambda *args, **kwargs: seen.append(args[2])  # noqa: E731  (the statement)
        event.listen(plan_campaign.engine, "before_cursor_execute", listener)
        try:
            for entry_id, labels in wanted.items():
                assert item_plan_labels(session, pool.id, topic_id, entry_id) == labels and labels
            assert item_plan_labels(session, pool.id, topic_id) == set().union(*wanted.values())
            assert item_plan_labels(session, pool.id, "NO-SUCH-TOPIC") == set()  # planned, none of its nuggets
        finally:
            event.remove(plan_campaign.engine, "before_cursor_execute", listener)
        assert len(seen) == len(wanted) + 2
    assert len({frozenset(v) for v in wanted.values()}) > 1    # the items of a topic judge different nuggets


def test_estimates_through_the_store(plan_campaign, tmp_path):
    runner = CliRunner()
    built = runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--lang", "CS", "--budget", "40%",
                                 "--unit", "items", "--seed", "2"])
    assert built.exit_code == 0 and "item-level judging plan: " in built.output, built.output
    nothing = runner.invoke(main, ["evaluate", "--store", "--plan", "p"])
    assert nothing.exit_code == 1 and "no nugget of the item-level judging plan is judged yet" in nothing.output
    planned = _planned(runner)
    some = sorted(planned)[:3]
    partial = _judgments(tmp_path, lambda x: x[0] in some and _in_plan(planned, x), "partial.tsv")
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
    only = read_judgments(_judgments(tmp_path, lambda x: _in_plan(planned, x), "planned.tsv"))
    gold = read_file(str(CS / "gold.xml"), "gold")
    runs = [read_file(str(p), "cclqa") for p in sorted((CS / "runs").glob("*.xml"))]
    files = estimate_items(gold, runs, only, Settings(), _as_sample(planned), 0.9)
    assert [g["language_pair"] for g in stored["language_pairs"]] == [g["language_pair"] for g in files["language_pairs"]]
    for group, expected in zip(stored["language_pairs"], files["language_pairs"]):
        assert [r["run_id"] for r in group["runs"]] == [r["run_id"] for r in expected["runs"]]
        for got, want in zip(group["runs"] + group["pairs"], expected["runs"] + expected["pairs"]):
            assert (got["estimate"], got["raw_low"], got["raw_high"]) == pytest.approx(
                (want["estimate"], want["raw_low"], want["raw_high"]))
        assert not group["complete"] and group["waves"] == 1
    assert sum(g["judged_items"] for g in stored["language_pairs"]) == sum(len(v) for t in planned.values()
                                                                          for v in t.values())
    table = runner.invoke(main, ["evaluate", "--store", "--plan", "p"])
    assert table.exit_code == 0 and (f"{group['language_pair']} ({group['judged_items']} of the "
                                     f"{group['items_total']} response and nugget "
                                     "pairs judged, each response its own nuggets)") in table.output


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
    added = runner.invoke(main, ["pool", "plan", "p", "--add", "1"])   # an item plan's next wave waits for the first
    assert added.exit_code == 1 and "wave 0 of the item-level plan is not completely judged" in added.output


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


def _share_first_sample(store) -> dict[str, set[str]]:
    """Turn the stored plan into one drawn before migration 0017: each topic's first response's sample
    judged for every response (rows without a run). Returns topic ID -> those labels."""
    with store.transaction() as session:
        plan = session.scalar(select(JudgingPlan))
        first = {}
        for n in plan.nuggets:
            first.setdefault(n.topic_id, n.run_id)
        shared = defaultdict(set)
        for n in list(plan.nuggets):
            if n.run_id == first[n.topic_id]:
                n.run_id = None
                shared[n.topic_id].add(n.label)
            else:
                plan.nuggets.remove(n)
    return dict(shared)


def test_a_plan_drawn_before_0017_judges_its_sample_for_every_response(plan_campaign, tmp_path):
    runner = CliRunner()
    assert runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--budget", "40%", "--unit", "items",
                                "--seed", "3"]).exit_code == 0
    shared = _share_first_sample(plan_campaign)
    with plan_campaign.transaction() as session:
        pool_id = session.scalar(select(Pool.id))
        entry = session.scalar(select(PoolEntry.id).where(PoolEntry.topic_id == min(shared)))
        assert item_plan_labels(session, pool_id, min(shared), entry) == shared[min(shared)]
    assert _planned(runner) == {t: {"*": labels} for t, labels in shared.items()}
    assert runner.invoke(main, ["import", str(CS / "judgments.tsv")]).exit_code == 0
    result = runner.invoke(main, ["evaluate", "--store", "--plan", "p", "--format", "json"])
    assert result.exit_code == 0, result.output
    only = read_judgments(_judgments(tmp_path, lambda x: x[3] in shared.get(x[0], ()), "shared.tsv"))
    gold = read_file(str(CS / "gold.xml"), "gold")
    runs = [read_file(str(p), "cclqa") for p in sorted((CS / "runs").glob("*.xml"))]
    files = estimate_items(gold, runs, only, Settings(),
                           {t: {None: {label: Drawn(0, 0.4) for label in labels}} for t, labels in shared.items()}, 0.95)
    refused = runner.invoke(main, ["pool", "plan", "p", "--add", "3"])   # an active wave needs its own samples
    assert refused.exit_code == 1 and "one sample for every response" in refused.output
    for group, expected in zip(json.loads(result.stdout)["language_pairs"], files["language_pairs"]):
        assert group["judged_nuggets"] == sum(map(len, shared.values())) and "judged_items" not in group
        for got, want in zip(group["runs"] + group["pairs"], expected["runs"] + expected["pairs"]):
            assert (got["estimate"], got["raw_low"], got["raw_high"]) == pytest.approx(
                (want["estimate"], want["raw_low"], want["raw_high"]))


def test_upgrading_to_0017_keeps_an_item_plan_as_one_sample_for_every_response(store_url):
    from sqlalchemy import text

    from sepia.store.db import make_engine, upgrade

    engine = make_engine(store_url)
    upgrade(engine, "0016")
    with engine.begin() as connection:
        for row in ["INSERT INTO pool (id, name, kind, depth, created_at) VALUES (1, 'p', 'cclqa', 30, '2026-01-01')",
                    "INSERT INTO judging_plan (id, pool_id, budget, strata, seed, unit, created_at) "
                    "VALUES (1, 1, '30%', 'none', 0, 'items', '2026-01-01')",
                    "INSERT INTO plan_nugget (id, plan_id, topic_id, label, probability) VALUES (1, 1, 'T', 'N001', 0.5)"]:
            connection.execute(text(row))
    upgrade(engine)
    with engine.connect() as connection:
        rows = connection.execute(text("SELECT topic_id, run_id, label, wave, probability FROM plan_nugget")).all()
    engine.dispose()
    assert [tuple(r) for r in rows] == [("T", None, "N001", 0, 0.5)]


def test_only_items_the_plan_judges_are_assigned(plan_campaign):
    with plan_campaign.transaction() as session:
        pool = build_pool(session, "p", "cclqa", 30)
        plan = make_plan(session, "p", "40%", seed=5, unit="items")
        # as if run `dropped` had been pooled after the draw (the pool rebuilt with it): nothing planned for it
        dropped = min(n.run_id for n in plan.nuggets)
        for n in [n for n in plan.nuggets if n.run_id == dropped]:
            plan.nuggets.remove(n)
        session.flush()
        entries = session.scalars(select(PoolEntry).where(PoolEntry.pool_id == pool.id)).all()
        runs_of = {e.id: {m.run_topic.run.run_id for m in e.members} for e in entries}
        accounts(session, "a1", "a2")
        assert assign_pool(session, "p", ["a1", "a2"]) == sum(runs != {dropped} for runs in runs_of.values())
        assigned = {e.id for e in entries if e.assignments}
    assert assigned == {e for e, runs in runs_of.items() if runs != {dropped}}
    assert any(runs == {dropped} for runs in runs_of.values()) and any(dropped in r and len(r) > 1
                                                                      for r in runs_of.values())
