"""Judging plans in the web tool: the pool form draws one, the pools page shows it and its progress,
only planned topics are shared out, and a bad budget is one message with nothing stored."""
from __future__ import annotations

import random
import re

from sqlalchemy import func, select

from web_helpers import browser_for, make_topic

from sepia.formats import model
from sepia.store.exchange.runs import import_run
from sepia.store.models import Assignment, JudgingPlan, Pool, PoolEntry

TOPICS = [f"ACLIA2-CS-000{i}" for i in range(1, 5)]


def campaign(store):
    for topic_id in TOPICS:
        make_topic(store, topic_id, nuggets=["甲型流感病毒", "禽类传染病"])
    with store.transaction() as session:
        import_run(session, model.CCLQARun(model.Metadata("TEAMA-CS-CS-01-T"), [
            model.CCLQATopic(t, [model.Answer(1, f"禽类传染病 {i}")]) for i, t in enumerate(TOPICS)]))


def test_the_pool_form_draws_a_plan_and_the_page_shows_it(app, web_store):
    campaign(web_store)
    org = browser_for(app, "org")
    response = org.post("/pools/", {"name": "planned", "kind": "cclqa", "lang": "CS", "depth": "",
                                    "budget": "50%", "strata": "none", "seed": "7"})
    assert response.status_code == 302
    page = org.get("/pools/").get_data(as_text=True)
    chosen = sorted(random.Random(7).sample(TOPICS, 2))
    assert "Judging plan: 2 topics (50%, seed 7)." in page
    assert "CS 2 of 4 topics, 0 judged" in page and ", ".join(chosen) in page
    pool_id = re.findall(r'id="pool-(\d+)"', page)[-1]
    assert org.post(f"/pools/{pool_id}/assign", {"assessors": ["as1"], "overlap": "0"}).status_code == 302
    with web_store.transaction() as session:
        assigned = sorted(set(session.scalars(select(PoolEntry.topic_id).join(Assignment))))
    assert assigned == chosen


def test_a_bad_budget_stores_nothing(app, web_store):
    campaign(web_store)
    org = browser_for(app, "org")
    for budget, seed in [("0%", "0"), ("150%", "0"), ("many", "0"), ("30%", "-1")]:
        org.post("/pools/", {"name": "bad", "kind": "cclqa", "lang": "CS", "budget": budget, "seed": seed})
        page = org.get("/pools/").get_data(as_text=True)
        assert "judging budget" in page or "seed from 0" in page, budget
    with web_store.transaction() as session:
        assert session.scalar(select(func.count()).select_from(Pool)) == 0
        assert session.scalar(select(func.count()).select_from(JudgingPlan)) == 0


def test_estimates_page(app, web_store):
    from sepia.services.plan_estimates import estimate_plan
    from sepia.scoring.evaluate import Settings
    from sepia.store.models import Nugget, NuggetJudgment, PlanTopic, Response, RunTopic

    campaign(web_store)
    org = browser_for(app, "org")
    org.post("/pools/", {"name": "planned", "kind": "cclqa", "lang": "CS", "budget": "3", "seed": "2"})
    pool_id = re.findall(r'id="pool-(\d+)"', org.get("/pools/").get_data(as_text=True))[-1]
    assert "Not estimated yet." in org.get(f"/pools/{pool_id}/estimates").get_data(as_text=True)
    assert org.post(f"/pools/{pool_id}/estimates", {}).status_code == 302
    assert "no topic of the judging plan is judged yet" in org.get(f"/pools/{pool_id}/estimates").get_data(as_text=True)
    with web_store.transaction() as session:
        planned = set(session.scalars(select(PlanTopic.topic_id)))
        rows = session.execute(select(Response.id, Nugget.id, Nugget.label).join(RunTopic)
                               .join(Nugget, Nugget.topic_id == RunTopic.topic_id)
                               .where(RunTopic.topic_id.in_(planned))).all()
        for k, (response_id, nugget_id, label) in enumerate(rows):   # N002 (禽类传染病) matched, bar one topic
            session.add(NuggetJudgment(response_id=response_id, nugget_id=nugget_id, assessor="as1",
                                       match=1.0 if label == "N002" and k > 1 else 0.0))
    assert "no topic of the judging plan is judged yet" in org.get(f"/pools/{pool_id}/estimates").get_data(as_text=True)
    assert org.post(f"/pools/{pool_id}/estimates", {}).status_code == 302      # the page shows what was stored
    page = org.get(f"/pools/{pool_id}/estimates").get_data(as_text=True)
    report, _ = estimate_plan(web_store, Settings("binarized"), "planned")
    (group,) = report["language_pairs"]
    (run,) = group["runs"]
    assert group["judged"] == 3 and f"{run['estimate']:.4f}" in page and f"{run['low']:.4f}" in page
    assert "3 of 3 planned topics judged" in page and "<svg class=\"interval\"" in page
    assert "no topic of the judging plan is judged yet" not in page
    results = org.get("/results/").get_data(as_text=True)             # the results page shows them too
    assert "Judging plan of planned" in results and f"/pools/{pool_id}/estimates" in results
    assert f"{run['estimate']:.4f}" in results and "estimates with 95% intervals: 3 of 3 planned topics judged" in results
    assessor = browser_for(app, "as1")
    assert assessor.get(f"/pools/{pool_id}/estimates").status_code == 403
    assert assessor.post(f"/pools/{pool_id}/estimates", {}).status_code == 403


def test_a_rebuild_keeps_the_plan_and_says_when_its_topics_changed(app, web_store):
    campaign(web_store)
    org = browser_for(app, "org")
    org.post("/pools/", {"name": "planned", "kind": "cclqa", "lang": "CS", "budget": "50%", "seed": "7"})
    with web_store.transaction() as session:
        from sepia.store.plans import add_topics

        add_topics(session, "planned", 1, seed=5)
        before = sorted((t.topic_id, t.stratum, t.draw, t.seed, t.probability)
                        for t in session.scalars(select(JudgingPlan)).one().topics)
    pool_id = re.findall(r'id="pool-(\d+)"', org.get("/pools/").get_data(as_text=True))[-1]
    assert org.post(f"/pools/{pool_id}/rebuild", {}).status_code == 302
    page = org.get("/pools/").get_data(as_text=True)
    assert "rebuilt: 4 items" in page and "planned&#39;s judging plan is kept (seed 7, the same topics)" in page
    assert "changed since the draw" not in page
    with web_store.transaction() as session:
        plan = session.scalars(select(JudgingPlan)).one()
        new_pool = session.scalars(select(Pool.id)).one()
        after = sorted((t.topic_id, t.stratum, t.draw, t.seed, t.probability) for t in plan.topics)
        assert (plan.pool_id, plan.budget, plan.seed) == (new_pool, "50%", 7)
    assert after == before and len(after) == 3
    make_topic(web_store, "ACLIA2-CS-0005", nuggets=["禽类传染病"])        # the population grows: 4 -> 5 topics
    assert org.post(f"/pools/{new_pool}/rebuild", {}).status_code == 302
    page = org.get("/pools/").get_data(as_text=True)
    assert "CS had 4 topics when the plan was drawn and has 5 now" in page
    assert "refused until a new plan is drawn" in page
    # The form's "Replace" without a budget keeps the plan too; with one it draws a new plan.
    org.post("/pools/", {"name": "planned", "kind": "cclqa", "lang": "CS", "budget": "", "replace": "1"})
    with web_store.transaction() as session:
        assert sorted((t.topic_id, t.draw, t.seed) for t in session.scalars(select(JudgingPlan)).one().topics) == \
            [(t, d, s) for t, _, d, s, _ in after]
    org.post("/pools/", {"name": "planned", "kind": "cclqa", "lang": "CS", "budget": "2", "seed": "9", "replace": "1"})
    page = org.get("/pools/").get_data(as_text=True)
    assert "Judging plan: 2 topics (2, seed 9)." in page and "changed since the draw" not in page


def test_results_page_says_when_the_estimate_is_the_exact_human_f3(app, web_store):
    from sepia.store.models import Nugget, NuggetJudgment, Response, RunTopic

    campaign(web_store)
    org = browser_for(app, "org")
    org.post("/pools/", {"name": "all", "kind": "cclqa", "lang": "CS", "budget": "100%", "seed": "1"})
    with web_store.transaction() as session:       # every topic judged: N002 matched on all but the first
        rows = session.execute(select(Response.id, Nugget.id, Nugget.label, RunTopic.topic_id).join(RunTopic)
                               .join(Nugget, Nugget.topic_id == RunTopic.topic_id)).all()
        for response_id, nugget_id, label, topic_id in rows:
            session.add(NuggetJudgment(response_id=response_id, nugget_id=nugget_id, assessor="as1",
                                       match=1.0 if label == "N002" and topic_id != TOPICS[0] else 0.0))
    pool_id = re.findall(r'id="pool-(\d+)"', org.get("/pools/").get_data(as_text=True))[-1]
    org.post(f"/pools/{pool_id}/estimates", {})
    results = org.get("/results/").get_data(as_text=True)
    assert "every topic judged: the exact human F3" in results and "estimates with 95% intervals:" not in results
    human = org.get(f"/pools/{pool_id}/estimates").get_data(as_text=True)
    assert "every topic judged: the exact human F3" in human


def test_the_pools_page_adds_topics_to_a_plan_and_shares_them_out(app, web_store):
    """Issue 33: a plan could be extended only with `sepia pool plan --add`. The form draws as the
    command does (the same seeded draw) and assigns the new topics; a topic already shared out keeps
    its assessor, and a bad count stores nothing."""
    from sepia.store.models import PlanTopic

    campaign(web_store)
    org = browser_for(app, "org")
    org.post("/pools/", {"name": "planned", "kind": "cclqa", "lang": "CS", "budget": "1", "seed": "3"})
    pool_id = re.findall(r'id="pool-(\d+)"', org.get("/pools/").get_data(as_text=True))[-1]
    org.post(f"/pools/{pool_id}/assign", {"assessors": ["as1"], "overlap": "0"})
    with web_store.transaction() as session:
        first = set(session.execute(select(PoolEntry.topic_id, Assignment.assessor).join(Assignment)).all())
        (planned,) = session.scalars(select(PlanTopic.topic_id)).all()
    page = org.get("/pools/").get_data(as_text=True)
    assert f'action="/pools/{pool_id}/plan/add"' in page
    for bad in ({"count": "many", "seed": "0"}, {"count": "1", "seed": "-2"}, {"count": "0", "seed": "0"}):
        org.post(f"/pools/{pool_id}/plan/add", bad)
        assert "planned: nothing added" in org.get("/pools/").get_data(as_text=True), bad
    with web_store.transaction() as session:
        assert session.scalar(select(func.count()).select_from(PlanTopic)) == 1
    response = org.post(f"/pools/{pool_id}/plan/add", {"count": "2", "seed": "4", "assessors": ["as1", "as2"],
                                                        "overlap": "0"})
    assert response.status_code == 302
    added = sorted(random.Random(4).sample([t for t in TOPICS if t != planned], 2))
    page = org.get("/pools/").get_data(as_text=True)
    assert f"planned: 2 topics added to the judging plan (seed 4): {', '.join(added)}; 2 items assigned to as1, as2." \
        in page
    assert "CS 3 of 4 topics, 0 judged" in page
    with web_store.transaction() as session:
        now = set(session.execute(select(PoolEntry.topic_id, Assignment.assessor).join(Assignment)).all())
    assert first < now and {t for t, _ in now - first} == set(added)
    assert {t: a for t, a in now}[planned] == "as1" and len({t for t, _ in now}) == len(now)


def test_estimates_without_an_interval_say_how_many_judgments_give_one(app, web_store):
    """Issue 33: with one of two planned topics judged the page said how many more topics an interval
    needs; now also how many judgments that is. The run has one answer per topic, so one pool item
    per topic: the other planned topic's one item is the judgment left, for the interval and the plan."""
    from sepia.store.models import Nugget, NuggetJudgment, PlanTopic, Response, RunTopic

    campaign(web_store)
    org = browser_for(app, "org")
    org.post("/pools/", {"name": "planned", "kind": "cclqa", "lang": "CS", "budget": "2", "seed": "2"})
    pool_id = re.findall(r'id="pool-(\d+)"', org.get("/pools/").get_data(as_text=True))[-1]
    with web_store.transaction() as session:
        first = min(session.scalars(select(PlanTopic.topic_id)))
        rows = session.execute(select(Response.id, Nugget.id).join(RunTopic)
                               .join(Nugget, Nugget.topic_id == RunTopic.topic_id)
                               .where(RunTopic.topic_id == first)).all()
        session.add_all(NuggetJudgment(response_id=r, nugget_id=n, assessor="as1", match=1.0) for r, n in rows)
    assert org.post(f"/pools/{pool_id}/estimates", {}).status_code == 302
    page = org.get(f"/pools/{pool_id}/estimates").get_data(as_text=True)
    assert ("No interval yet: an interval needs two judged topics, and 1 of the 2 planned topics is judged; judge 1 "
            "more planned topic (at least 1 more judgment) for intervals, and the whole plan (1 more judgment) for "
            "the width projected for it. Until then the runs are not ranked.") in page
    assert "judge 1 more planned topic (at least 1 more judgment)" in org.get("/results/").get_data(as_text=True)
