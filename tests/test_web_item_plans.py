"""Item-level judging plans in the web tool: the pool form draws one, the judging screen offers only
the plan's nuggets (and saves only them), the estimates page shows the item estimates, and a bad
form stores nothing."""
from __future__ import annotations

import random
import re

from sqlalchemy import func, select
from test_web_judging import TOPIC, campaign, judgments
from web_helpers import browser_for

from sepia.store.models import JudgingPlan, Nugget, PlanNugget, Pool

FORM = {"name": "items", "kind": "cclqa", "lang": "CS", "depth": "", "budget": "30%", "unit": "items", "seed": "1"}


def test_the_screen_offers_the_plans_nuggets_only_and_the_estimates_use_them(app, web_store):
    campaign(web_store)   # one topic of three nuggets: 30% of 3 is 1, at least 2
    org, as1 = browser_for(app, "org"), browser_for(app, "as1")
    assert org.post("/pools/", FORM).status_code == 302
    page = org.get("/pools/").get_data(as_text=True)
    assert "Judging plan: 2 nuggets of 1 topics (30%, seed 1)." in page and "Item-level judging plan" in page
    with web_store.transaction() as session:
        labels = sorted(session.scalars(select(Nugget.label).where(Nugget.topic_id == TOPIC)))
        planned = sorted(session.scalars(select(PlanNugget.label)))
        texts = dict(session.execute(select(Nugget.label, Nugget.text)).all())
    assert planned == sorted(random.Random(1).sample(labels, 2))
    pool_id = re.findall(r'id="pool-(\d+)"', page)[-1]
    assert org.post(f"/pools/{pool_id}/assign", {"assessors": ["as1"], "overlap": "0"}).status_code == 302
    for _ in range(4):     # 5 responses, 2 equal
        screen = as1.get(f"/judge/{pool_id}/{TOPIC}").get_data(as_text=True)
        assert "judge these 2 nuggets, drawn at random from the topic's 3" in screen
        assert all(texts[label] in screen for label in planned)
        assert not any(texts[label] in screen.split("judge-nuggets")[1].split("</ol>")[0]
                       for label in labels if label not in planned)
        ids = re.findall(r'name="nugget" value="(\d+)"', screen)
        assert len(ids) == 2
        action = re.search(r'action="(/judge/\d+/[^/]+/\d+)"', screen).group(1)
        assert as1.post(action, {"action": "save", "nugget": ids[:1]}).status_code == 302
    rows = judgments(web_store)
    assert len(rows) == 5 * 2 and {label for _, label, _ in rows} == set(planned)   # the plan's nuggets only
    assert org.post(f"/pools/{pool_id}/estimates", {}).status_code == 302
    estimates = org.get(f"/pools/{pool_id}/estimates").get_data(as_text=True)
    assert "estimates with 95% intervals from an item-level plan" in estimates or "the exact human F3" in estimates
    assert "2 of the 3 nuggets judged, on all 1 topics" in estimates


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
