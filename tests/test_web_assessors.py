"""The organisers' assessor page (issue 24): an adjudicated item kept as a control item, mixed into a
pool's queues, answered blind on the judging screen (with the expected answer after it in training),
accuracy flagged, seconds per item, CSV and JSON downloads; nobody else sees any of it."""
from __future__ import annotations

import csv
import io
import json
import re

import pytest
from sqlalchemy import select

from test_control_items import DRY, FORMAL, two_topics_and_runs
from web_helpers import browser_for

from sepia.store.models import Assignment, ControlItem, Topic


def _retire(store, topic_id, retired):
    with store.transaction() as session:
        session.get(Topic, topic_id).retired = retired


def _pool(org, name, assessors, overlap):
    org.post("/pools/", {"name": name, "kind": "cclqa", "lang": "CS", "priorities": "", "depth": ""})
    pool_id = re.findall(r'id="pool-(\d+)"', org.get("/pools/").get_data(as_text=True))[-1]
    org.post(f"/pools/{pool_id}/assign", {"assessors": list(assessors), "overlap": overlap})
    return int(pool_id)


def _judge_topic(browser, pool_id, topic_id, pick, seconds="12.5"):
    """Judge every open item of the topic: `pick(text)` -> nugget positions (1-based) to tick."""
    while True:
        response = browser.get(f"/judge/{pool_id}/{topic_id}")
        page = response.get_data(as_text=True)
        found = re.search(r'<blockquote class="response cjk" lang="zh-Hans">([^<]*)</blockquote>', page)
        if found is None:
            return page
        ids = dict(re.findall(r'name="nugget" value="(\d+)"[^>]*> (\d+)', page))
        action = re.search(r'action="(/judge/\d+/[^/]+/\d+)"', page).group(1)
        ticked = [n for n, position in ids.items() if int(position) in pick(found.group(1))]
        saved = browser.post(action, {"action": "save", "nugget": ticked, "seconds": seconds})
        assert saved.status_code == 302
        if "feedback=" in saved.headers["Location"]:
            return browser.get(saved.headers["Location"]).get_data(as_text=True)


@pytest.fixture
def campaign(app, web_store):
    two_topics_and_runs(web_store)
    org, as1, as2 = browser_for(app, "org"), browser_for(app, "as1"), browser_for(app, "as2")
    _retire(web_store, FORMAL, True)
    dry = _pool(org, "dry", ("as1", "as2"), "100")
    _judge_topic(as1, dry, DRY, lambda text: {1} if "甲" in text else set(), seconds="10")
    _judge_topic(as2, dry, DRY, lambda text: {i + 1 for i, n in enumerate("甲乙") if n in text}, seconds="30")
    _retire(web_store, FORMAL, False)
    _retire(web_store, DRY, True)
    formal = _pool(org, "formal", ("as1",), "0")
    _retire(web_store, DRY, False)
    return org, as1, as2, dry, formal


def test_a_control_item_from_adjudication_qualifies_an_assessor(app, web_store, campaign):
    org, as1, as2, dry, formal = campaign
    disputes = org.get(f"/pools/{dry}/disputes").get_data(as_text=True)
    action = re.search(r'action="(/pools/\d+/disputes/\d+)"', disputes).group(1)
    nuggets = re.findall(r'name="nugget" value="(\d+)"', disputes)
    ties = {name: "1" for name in re.findall(r'name="(tie-\d+)"', disputes)}  # a tie is chosen, never ticked
    decided = org.post(action, {"nugget": nuggets, "control": "1", "reason": "甲乙 names both", **ties},
                       follow_redirects=True)
    assert "now the official one and a control item" in decided.get_data(as_text=True)
    mixed = org.post("/assessors/controls/mix", {"pool": formal, "rate": "50", "training": "1"}, follow_redirects=True)
    assert "formal: 1 control item(s) mixed into its queues (training" in mixed.get_data(as_text=True)
    # as1 meets it blind, in the formal pool's queue, and answers only 甲: wrong, and told so
    assert f"/judge/{formal}/{DRY}" in as1.get("/judge/").get_data(as_text=True)
    told = _judge_topic(as1, formal, DRY, lambda text: {1})
    assert "Not the expected answer" in told and "nugget(s) 1, 2" in told and "甲乙 names both" in told
    page = org.get("/assessors/").get_data(as_text=True)
    assert "below 0.8" in page and "Cohen" in page and "By answer type" in page
    report = json.loads(org.get("/assessors/report.json").get_data(as_text=True))
    [control] = report["controls"]
    assert (control["assessor"], control["answered"], control["correct"], control["flagged"]) == ("as1", 1, 0, True)
    quality = {(r["kind"], r["assessor"]): r for r in report["quality"]}
    assert quality["match", "as1"]["median_seconds"] == 10.0 and quality["match", "as2"]["median_seconds"] == 30.0
    assert quality["match", "as1"]["done"] == 4  # 3 items of the dry run and the control item
    assert quality["match", "as2"]["agreement_adjudicated"] == 1.0  # as2 saw both nuggets, as decided
    assert quality["match", "as1"]["agreement_adjudicated"] == 0.5  # per nugget: 甲 right, 乙 missed
    [pair] = report["kappa"]
    assert (pair["first"], pair["second"], pair["units"]) == ("as1", "as2", 6)  # 3 items x 2 nuggets
    rows = list(csv.DictReader(io.StringIO(org.get("/assessors/disputes.csv").get_data(as_text=True))))
    by_topic = [r for r in rows if r["by"] == "topic"]
    # 乙 of 甲乙 and of 乙: as1 missed it twice
    assert by_topic == [{"kind": "match", "by": "topic", "group": DRY, "units": "6", "disputed": "2",
                         "rate": str(2 / 6)}]
    with web_store.transaction() as session:
        assert session.scalar(select(ControlItem.reason)) == "甲乙 names both"
        assert session.scalar(select(Assignment.seconds).where(Assignment.assessor == "as2").limit(1)) == 30.0


def test_bad_threshold_and_rate_get_a_clear_message(app, campaign):
    org = campaign[0]
    page = org.get("/assessors/?threshold=1.5").get_data(as_text=True)
    assert "The flag threshold is an accuracy between 0 and 1, not 1.5; showing 0.8." in page
    refused = org.get("/assessors/controls.csv?threshold=abc")
    assert refused.status_code == 400 and "flag threshold is an accuracy between 0 and 1, not &#39;abc&#39;" in \
        refused.get_data(as_text=True)
    for rate in ("100", "-5", "ten"):
        answer = org.post("/assessors/controls/mix", {"pool": campaign[4], "rate": rate}, follow_redirects=True)
        assert "share of control items is a percentage of each queue" in answer.get_data(as_text=True)
    assert org.get("/assessors/nothing.csv").status_code == 404


@pytest.mark.parametrize("user", ["as1", "dev", "par"])
def test_only_organisers_see_the_assessor_page(app, campaign, user):
    browser = browser_for(app, user)
    for path in ("/assessors/", "/assessors/report.json", "/assessors/quality.csv"):
        assert browser.get(path).status_code == 403
    assert browser.post("/assessors/controls/mix", {"pool": campaign[4], "rate": "10"}).status_code == 403
    assert "/assessors/" not in browser.get("/", follow_redirects=True).get_data(as_text=True)


def test_untimed_or_absurd_seconds_are_not_kept(app, web_store, campaign):
    as1, formal = campaign[1], campaign[4]
    page = as1.get(f"/judge/{formal}/{FORMAL}").get_data(as_text=True)
    action = re.search(r'action="(/judge/\d+/[^/]+/(\d+))"', page)
    for seconds in ("nan", "inf", "-3", "1e9", "abc", ""):  # the same item saved again each time
        assert as1.post(action.group(1), {"action": "save", "seconds": seconds}).status_code == 302
    with web_store.transaction() as session:
        judged, seconds = session.execute(select(Assignment.judged_at, Assignment.seconds)
                                          .where(Assignment.id == int(action.group(2)))).one()
    assert judged is not None and seconds is None
    as1.post(action.group(1), {"action": "save", "seconds": "4.5"})
    as1.post(action.group(1), {"action": "save", "seconds": "2"})  # back to it later: the time adds up
    with web_store.transaction() as session:
        assert session.get(Assignment, int(action.group(2))).seconds == 6.5


def _statements(app, send) -> int:
    from sqlalchemy import event

    seen = []

    def listener(*args, **kwargs):
        seen.append(1)

    engine = app.extensions["sepia_store"].engine
    event.listen(engine, "before_cursor_execute", listener)
    try:
        send()
    finally:
        event.remove(engine, "before_cursor_execute", listener)
    return len(seen)


def test_timing_costs_a_save_no_statement_and_the_page_does_not_grow(app, web_store, campaign):
    from test_web_query_counts import grow

    org, as1, formal = campaign[0], campaign[1], campaign[4]
    page = as1.get(f"/judge/{formal}/{FORMAL}").get_data(as_text=True)
    action = re.search(r'action="(/judge/\d+/[^/]+/\d+)"', page).group(1)
    untimed = _statements(app, lambda: as1.post(action, {"action": "save"}))
    assert _statements(app, lambda: as1.post(action, {"action": "save", "seconds": "3.5"})) == untimed
    small = _statements(app, lambda: org.get("/assessors/"))
    grow(app, web_store, 10, 4)  # more topics, nuggets, votes and runs: the page sends as many statements
    assert _statements(app, lambda: org.get("/assessors/")) == small


def test_the_page_on_an_empty_store(app):
    org = browser_for(app, "org")
    page = org.get("/assessors/").get_data(as_text=True)
    assert "No control item has been answered yet." in page and "No votes or judgments yet." in page
    assert json.loads(org.get("/assessors/report.json").get_data(as_text=True))["quality"] == []
    assert org.get("/assessors/kappa.csv").get_data(as_text=True) == "kind,first,second,units,kappa,weighted,weights\n"
