"""A judging plan in a real browser: the organiser builds a CCLQA pool with a budget on the sample CS
collection, sees the plan and its progress on the pools page, and assigns it (only the planned topics
reach the assessor's queue); once the planned topics are judged, the estimates page shows the runs'
estimated human F3 with intervals, and so does the results page; a rebuild keeps the plan.
Screenshots: test-artifacts/plans-pools.png, plans-estimates.png, plans-results.png,
plans-changed.png."""
from __future__ import annotations

import random

import pytest
from click.testing import CliRunner
from sqlalchemy import text

from conftest import LiveServer, accounts_app, log_in, shoot

from sepia.cli import main
from sepia.resources import resource_dir
from sepia.store.db import Store
from sepia.store.models import Topic

pytestmark = [pytest.mark.browser]
CS_TOPICS = [f"SEPIA-CS-000{i}" for i in range(1, 7)]


@pytest.fixture
def site(tmp_path, monkeypatch):
    app = accounts_app(tmp_path, "sepia", monkeypatch, kind="sample-cs")
    store = app.extensions["sepia_store"]
    with store.transaction() as session:  # the sample's own judgments come back for the planned topics only
        session.execute(text("DELETE FROM nugget_judgment"))
    server = LiveServer(app)
    yield server
    server.stop()
    store.dispose()


def build_cs_pool(page, site, name: str, budget: str, fills=None, selects=None) -> None:
    """Build a CS pool with a judging plan from the pool form."""
    page.goto(f"{site.url}/pools/")
    page.fill("input[name=name]", name)
    page.select_option("select[name=lang]", "CS")
    page.fill("input[name=budget]", budget)
    for field, value in (fills or {}).items():
        page.fill(f"input[name={field}]", value)
    for field, value in (selects or {}).items():
        page.select_option(f"select[name={field}]", value)
    with page.expect_navigation():
        page.click("button:has-text('Build pool')")


def test_organiser_builds_a_pool_with_a_judging_plan(chromium, site, tmp_path):
    page = log_in(chromium, site, "org")
    build_cs_pool(page, site, "CS half", "50%", fills={"seed": "3"})
    chosen = sorted(random.Random(3).sample(CS_TOPICS, 3))
    plan = page.locator(".plan").first
    assert "CS 3 of 6 topics, 0 judged" in " ".join(plan.inner_text().split())
    assert ", ".join(chosen) in plan.inner_text()
    page.check("input[name=assessors][value=as1]")
    page.fill("input[name=overlap]", "0")
    with page.expect_navigation():
        page.click("button:has-text('Assign')")
    shoot(page, "plans-pools.png", full_page=True)
    rows = page.locator("table.table tbody tr td.docid").all_inner_texts()
    assert sorted(set(rows)) == chosen
    # The planned topics judged (the sample's judgments of them): the estimates page.
    lines = (resource_dir("corpora") / "cs" / "judgments.tsv").read_text(encoding="utf-8").splitlines()
    sample = tmp_path / "planned.tsv"
    sample.write_text("\n".join([lines[0]] + [x for x in lines[1:] if x.split("\t")[0] in chosen]) + "\n",
                      encoding="utf-8")
    assert CliRunner().invoke(main, ["import", str(sample)]).exit_code == 0
    with page.expect_navigation():
        page.click("a:has-text('Estimated scores')")
    assert "Not estimated yet." in page.inner_text("main")
    with page.expect_navigation():
        page.click("button:has-text('Estimate now')")
    assert "3 of 3 planned topics judged" in page.inner_text("#pair-CS-CS")
    assert page.locator("#pair-CS-CS svg.interval").count() == 3
    assert "estimated from the BINARIZED scores of every topic" in page.inner_text("main")
    # the matcher's label sits beside its select, on one line, as on the other short forms
    label, select = (page.locator("label.beside").bounding_box(), page.locator("select[name=matcher]").bounding_box())
    assert select["x"] > label["x"] + 10 and label["height"] < 1.5 * select["height"]
    shoot(page, "plans-estimates.png", full_page=True)
    # The results page shows the saved estimates, saying they are estimates, and links the page.
    page.goto(f"{site.url}/results/")
    card = page.locator("section[id^=plan-]").first
    assert "Judging plan of CS half" in card.inner_text() and "estimates with 95% intervals" in card.inner_text()
    assert card.locator("[id$=\"-CS-CS\"] svg.interval").count() == 3
    shoot(card, "plans-results.png")
    # A rebuild keeps the plan and its estimates.
    page.goto(f"{site.url}/pools/")
    with page.expect_navigation():
        page.click("button:has-text('Rebuild')")
    assert "CS half's judging plan is kept (seed 3, the same topics)" in page.inner_text("#flashes")
    assert ", ".join(chosen) in page.locator(".plan").first.inner_text()
    # A topic retired since the draw: the pool's card says the plan no longer matches its topics.
    store = Store()
    with store.transaction() as session:
        session.get(Topic, CS_TOPICS[0]).retired = True
    store.dispose()
    page.goto(f"{site.url}/pools/")
    plan = page.locator(".plan").first
    assert "CS had 6 topics when the plan was drawn and has 5 now" in plan.inner_text()
    shoot(plan, "plans-changed.png")


def test_an_item_level_plan_from_the_form_to_the_judging_screen_and_its_next_wave(chromium, site, tmp_path):
    """Each response has its own planned nuggets: two items of a topic show the assessor different
    lists, each only its responses' nuggets; once the plan is judged the pools page draws a wave.
    Screenshots: test-artifacts/plans-item-screen.png, plans-wave.png."""
    from sqlalchemy import select

    from sepia.store.models import Assignment, Nugget, NuggetJudgment, PlanNugget

    page = log_in(chromium, site, "org")
    build_cs_pool(page, site, "CS items", "30%", selects={"unit": "items"})
    assert "Item-level judging plan" in page.locator(".plan").first.inner_text()
    assert "response and nugget pairs, each response its own" in page.locator(".plan").first.inner_text()
    page.check("input[name=assessors][value=as1]")
    page.fill("input[name=overlap]", "0")
    with page.expect_navigation():
        page.click("button:has-text('Assign')")
    store = site.app.extensions["sepia_store"]
    with store.transaction() as session:
        planned = {(n.run_id, n.label) for n in session.scalars(select(PlanNugget).where(PlanNugget.topic_id == CS_TOPICS[0]))}
        texts = dict(session.execute(select(Nugget.label, Nugget.text).where(Nugget.topic_id == CS_TOPICS[0])).all())

    def wanted(assignment_id: int) -> set[str]:
        """The nuggets planned for the runs of the item's responses."""
        with store.transaction() as session:
            runs = {m.run_topic.run.run_id for m in session.get(Assignment, assignment_id).entry.members}
        return {label for run_id, label in planned if run_id in runs}

    assessor = log_in(chromium, site, "as1")
    assessor.goto(f"{site.url}/judge/1/{CS_TOPICS[0]}")
    lists = []
    for step in range(2):
        item = int(assessor.locator("form#judge-form").get_attribute("action").rsplit("/", 1)[1])
        shown = assessor.locator("ol.judge-nuggets li").all_inner_texts()
        labels = wanted(item)
        assert len(shown) == len(labels) == assessor.locator("input[name=nugget]").count()
        assert sorted(t.split(" ", 1)[1] for t in shown) == sorted(texts[label] for label in labels)
        assert (f"judge these {len(labels)} nuggets, drawn at random for this response from the topic's {len(texts)}"
                in assessor.inner_text("main"))
        if step == 0:
            shoot(assessor, "plans-item-screen.png", full_page=True)
        lists.append(labels)
        assessor.keyboard.press("1")
        with assessor.expect_navigation():
            assessor.keyboard.press("Enter")
        with store.transaction() as session:
            judged = set(session.scalars(select(Nugget.label).join(NuggetJudgment)
                                         .where(NuggetJudgment.assessor == "as1")))
        assert judged == set().union(*lists)          # the items' planned nuggets only
    assert lists[0] != lists[1] or len(planned) == len(lists[0])   # two items, each its own nuggets
    # Every planned pair judged (the sample's judgments of them): the pools page draws the next wave.
    with store.transaction() as session:
        pairs = {(n.run_id, n.topic_id, n.label) for n in session.scalars(select(PlanNugget))}
    lines = (resource_dir("corpora") / "cs" / "judgments.tsv").read_text(encoding="utf-8").splitlines()
    sample = tmp_path / "planned.tsv"
    sample.write_text("\n".join([lines[0]] + [x for x in lines[1:] if tuple(x.split("\t")[i] for i in (1, 0, 3)) in pairs])
                      + "\n", encoding="utf-8")
    assert CliRunner().invoke(main, ["import", str(sample)]).exit_code == 0
    page.goto(f"{site.url}/pools/")
    form = page.locator("form.plan-wave")
    form.locator("input[name=count]").fill("20")
    form.locator("input[name=seed]").fill("1")
    with page.expect_navigation():
        form.locator("button:has-text('Draw the next wave')").click()
    assert "wave 1 of the judging plan:" in page.inner_text("#flashes")
    assert "2 waves" in page.locator(".plan").first.inner_text()
    shoot(page, "plans-wave.png", full_page=True)
    with store.transaction() as session:
        assert session.scalar(select(PlanNugget.id).where(PlanNugget.wave == 1)) is not None


def test_organiser_adds_topics_to_a_plan_and_shares_them_out(chromium, site):
    """Issue 33: a plan extended from the pools page, the new topics assigned at once; the topics
    shared out before keep their assessors (nobody is handed an item someone holds).
    Screenshot: test-artifacts/plans-added.png."""
    page = log_in(chromium, site, "org")
    build_cs_pool(page, site, "CS two", "2", fills={"seed": "1"})
    first = sorted(random.Random(1).sample(CS_TOPICS, 2))
    page.check("input[name=assessors][value=as1]")
    page.check("input[name=assessors][value=as2]")
    page.fill("input[name=overlap]", "0")
    with page.expect_navigation():
        page.click("button:has-text('Assign')")
    before = set(zip(page.locator("table.table tbody tr td.docid").all_inner_texts(),
                     page.locator("table.table tbody tr td:nth-child(2)").all_inner_texts()))
    form = page.locator("form.plan-add")
    form.locator("input[name=count]").fill("2")
    form.locator("input[name=seed]").fill("4")
    form.locator("input[name=assessors][value=as1]").check()
    form.locator("input[name=assessors][value=as2]").check()
    with page.expect_navigation():
        form.locator("button:has-text('Add to the plan')").click()
    added = sorted(random.Random(4).sample([t for t in CS_TOPICS if t not in first], 2))
    assert f"2 topics added to the judging plan (seed 4): {', '.join(added)}" in page.inner_text("#flashes")
    assert "CS 4 of 6 topics" in " ".join(page.locator(".plan").first.inner_text().split())
    after = set(zip(page.locator("table.table tbody tr td.docid").all_inner_texts(),
                    page.locator("table.table tbody tr td:nth-child(2)").all_inner_texts()))
    assert before < after and {t for t, _ in after - before} == set(added)
    assert len({t for t, _ in after}) == len(after)  # one assessor a topic: nothing handed out twice
    shoot(page, "plans-added.png", full_page=True)


def test_estimates_of_one_judged_topic_rank_no_run(chromium, site, tmp_path):
    """Issue 33: with 1 of 2 planned topics judged the page ranked the runs with no interval and
    λ 0.00. Now it says in words that an interval needs another judged topic, and shows no ranking,
    on the estimates page and on the results page. Screenshot: test-artifacts/plans-no-interval.png."""
    page = log_in(chromium, site, "org")
    build_cs_pool(page, site, "CS pair", "2", fills={"seed": "1"})
    first = sorted(random.Random(1).sample(CS_TOPICS, 2))[0]
    lines = (resource_dir("corpora") / "cs" / "judgments.tsv").read_text(encoding="utf-8").splitlines()
    sample = tmp_path / "one.tsv"
    sample.write_text("\n".join([lines[0]] + [x for x in lines[1:] if x.split("\t")[0] == first]) + "\n",
                      encoding="utf-8")
    assert CliRunner().invoke(main, ["import", str(sample)]).exit_code == 0
    with page.expect_navigation():
        page.click("a:has-text('Estimated scores')")
    with page.expect_navigation():
        page.click("button:has-text('Estimate now')")
    section = page.locator("#pair-CS-CS")
    assert ("No interval yet: an interval needs two judged topics, and 1 of the 2 planned topics is judged; judge 1 "
            "more planned topic") in section.inner_text()
    assert section.locator("table").count() == 0 and "λ" not in section.inner_text()
    shoot(page, "plans-no-interval.png", full_page=True)
    page.goto(f"{site.url}/results/")
    card = page.locator("section[id^=plan-]").first
    assert "No interval yet" in card.inner_text() and card.locator("table").count() == 0
