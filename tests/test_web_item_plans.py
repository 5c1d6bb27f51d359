"""Item-level judging plans in the web tool: the pool form draws one, the judging screen offers only
the nuggets planned for the item's responses (and saves only them), the estimates page shows the item estimates, and a bad
form stores nothing."""
from __future__ import annotations

import random
import re

from sqlalchemy import func, select
from test_web_judging import RUNS, TOPIC, campaign, judgments
from web_helpers import browser_for

from sepia.store.models import JudgingPlan, Nugget, PlanNugget, Pool, Response, Run, RunTopic

FORM = {"name": "items", "kind": "cclqa", "lang": "CS", "depth": "", "budget": "30%", "unit": "items", "seed": "1"}


def test_the_screen_offers_the_items_planned_nuggets_only_and_the_estimates_use_them(app, web_store):
    campaign(web_store)   # one topic of three nuggets: 30% of 3 is 1, at least 2; two runs, each its own 2
    org, as1 = browser_for(app, "org"), browser_for(app, "as1")
    assert org.post("/pools/", FORM).status_code == 302
    page = org.get("/pools/").get_data(as_text=True)
    assert ("Judging plan: 4 response and nugget pairs over 1 topic, each response its own nuggets (30%, seed 1)."
            in page and "Item-level judging plan" in page)
    with web_store.transaction() as session:
        labels = sorted(session.scalars(select(Nugget.label).where(Nugget.topic_id == TOPIC)))
        planned = {run_id: {n.label for n in session.scalars(select(PlanNugget).where(PlanNugget.run_id == run_id))}
                   for run_id in RUNS}
        texts = dict(session.execute(select(Nugget.label, Nugget.text)).all())
    rng = random.Random(1)
    assert planned == {run_id: set(rng.sample(labels, 2)) for run_id in sorted(RUNS)}
    pool_id = re.findall(r'id="pool-(\d+)"', page)[-1]
    assert org.post(f"/pools/{pool_id}/assign", {"assessors": ["as1"], "overlap": "0"}).status_code == 302
    shown = {}
    for _ in range(4):     # 5 responses, 2 equal: the shared one judges both runs' nuggets
        screen = as1.get(f"/judge/{pool_id}/{TOPIC}").get_data(as_text=True)
        text = re.search(r'<blockquote class="response cjk" lang="zh-Hans">([^<]*)</blockquote>', screen).group(1)
        wanted = set().union(*(planned[r] for r, answers in RUNS.items() if text in answers))
        assert f"judge these {len(wanted)} nuggets, drawn at random for this response from the topic's 3" in screen
        listed = screen.split("judge-nuggets")[1].split("</ol>")[0]
        assert {label for label in labels if texts[label] in listed} == wanted
        ids = re.findall(r'name="nugget" value="(\d+)"', screen)
        assert len(ids) == len(wanted)
        shown[text] = wanted
        action = re.search(r'action="(/judge/\d+/[^/]+/\d+)"', screen).group(1)
        assert as1.post(action, {"action": "save", "nugget": ids[:1]}).status_code == 302
    assert len(set(map(frozenset, shown.values()))) > 1       # the items judge different nuggets
    rows = judgments(web_store)
    with web_store.transaction() as session:
        run_of = dict(session.execute(select(Response.id, Run.run_id).join(RunTopic, Response.run_topic_id == RunTopic.id)
                                      .join(Run, RunTopic.run_id == Run.id).where(Run.kind == "cclqa")).all())
        text_of = dict(session.execute(select(Response.id, Response.text)).all())
    assert {(r, label) for r, label, _ in rows} == {(r, label) for r in run_of for label in shown[text_of[r]]}
    assert org.post(f"/pools/{pool_id}/estimates", {}).status_code == 302
    estimates = org.get(f"/pools/{pool_id}/estimates").get_data(as_text=True)
    assert "estimates with 95% intervals from an item-level plan" in estimates or "the exact human F3" in estimates
    assert "4 of 6 response and nugget pairs judged (each response its own nuggets), on its one topic" in estimates
    assert "outside the item-level plan" in estimates     # the shared response's other run's nuggets


def test_a_bad_item_plan_stores_nothing(app, web_store):
    campaign(web_store)
    org = browser_for(app, "org")
    for extra, words in [({"strata": "type"}, "without strata"), ({"budget": "2"}, "without strata"),
                         ({"unit": "nuggets"}, "unit is one of topics, items"), ({"budget": "0%"}, "judging budget")]:
        org.post("/pools/", {**FORM, **extra})
        assert words in org.get("/pools/").get_data(as_text=True), extra
    with web_store.transaction() as session:
        assert session.scalar(select(func.count()).select_from(Pool)) == 0
        assert session.scalar(select(func.count()).select_from(JudgingPlan)) == 0


def test_the_pools_page_draws_the_next_wave_or_says_why_not(app, web_store):
    campaign(web_store)
    org, as1 = browser_for(app, "org"), browser_for(app, "as1")
    assert org.post("/pools/", FORM).status_code == 302
    page = org.get("/pools/").get_data(as_text=True)
    assert "Draw the next wave" in page
    pool_id = re.findall(r'id="pool-(\d+)"', page)[-1]
    assert org.post(f"/pools/{pool_id}/assign", {"assessors": ["as1"], "overlap": "0"}).status_code == 302
    org.post(f"/pools/{pool_id}/plan/wave", {"count": "1", "seed": "0"})
    assert "wave 0 of the item-level plan is not completely judged" in org.get("/pools/").get_data(as_text=True)
    for _ in range(4):
        screen = as1.get(f"/judge/{pool_id}/{TOPIC}").get_data(as_text=True)
        action = re.search(r'action="(/judge/\d+/[^/]+/\d+)"', screen).group(1)
        ids = re.findall(r'name="nugget" value="(\d+)"', screen)
        assert as1.post(action, {"action": "save", "nugget": ids[:1]}).status_code == 302
    org.post(f"/pools/{pool_id}/plan/wave", {"count": "1", "seed": "0"})   # ten judged answers: too few to learn
    assert "the learned model cannot be trained on the plan&#39;s judgments" in org.get("/pools/").get_data(as_text=True)
    org.post(f"/pools/{pool_id}/plan/wave", {"count": "none"})
    assert "give a number of pairs of at least 1" in org.get("/pools/").get_data(as_text=True)
    with web_store.transaction() as session:
        assert session.scalar(select(func.count()).select_from(PlanNugget).where(PlanNugget.wave > 0)) == 0


def test_the_pools_page_shows_the_active_waves_seed_and_size(app, web_store):
    """The second wave's seed and expected number of pairs are stored with the plan (migration 0020)
    and shown beside its waves."""
    from sepia.store.item_plans import add_wave

    campaign(web_store)
    org = browser_for(app, "org")
    assert org.post("/pools/", FORM).status_code == 302
    assert "Pool items: 4 items over 1 topic." in org.get("/pools/").get_data(as_text=True)  # the build's message
    assert "waves" not in org.get("/pools/").get_data(as_text=True).split("Item-level judging plan")[1].split("</div>")[0]
    with web_store.transaction() as session:
        planned = {(n.run_id, n.topic_id, n.label) for n in session.scalars(select(PlanNugget))}
        labels = sorted(session.scalars(select(Nugget.label).where(Nugget.topic_id == TOPIC)))
        open_pair = next((r, TOPIC, n) for r in sorted(RUNS) for n in labels if (r, TOPIC, n) not in planned)
        add_wave(session, FORM["name"], 1, [(open_pair, 0.5)], 3, 7)
    plan = org.get("/pools/").get_data(as_text=True).split("Item-level judging plan")[1].split("</div>")[0]
    assert "2 waves; wave 1 drawn with seed 3, 7 pairs expected), seed 1" in plan
