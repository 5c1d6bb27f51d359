"""The organisers' assessor page in Chromium, on the sample campaign (its votes and two assessors'
judgments) plus a dry run whose adjudicated item became a control item: an assessor meets it blind
in a training pool, answers with the keyboard and sees the expected answer and its reason; the
organiser sees accuracy, kappa and dispute rates; other roles see neither the page nor its link.
Screenshots go to test-artifacts/assessors-*.png."""
from __future__ import annotations

import pytest
from sqlalchemy import select

from conftest import LiveServer, log_in, sample_campaign_app, shoot, switch_user

from sepia.store import controls, disputes, judging
from sepia.store.models import Assignment, Nugget, PoolEntry, Topic
from sepia.store.pools import build_pool

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _hand_out(session, pool, assessors):
    """Every item of `pool` to each of `assessors`, as an organiser re-running a judged topic would:
    assign_pool hands out no item the sample's assessors judged already (all of them are)."""
    for position, entry in enumerate(session.scalars(select(PoolEntry).where(PoolEntry.pool_id == pool.id)
                                                     .order_by(PoolEntry.id))):
        entry.assignments.extend(Assignment(assessor=a, position=position) for a in assessors)
    session.flush()


def _dry_run_with_a_control_item(store):
    """CS: the first topic judged by as1 and as2 as a dry run, its first disputed item adjudicated and
    kept as a control item; the other topics a training pool of as1's, the control item mixed in."""
    with store.transaction() as session:
        topics = session.scalars(select(Topic).where(Topic.lang == "CS").order_by(Topic.id)).all()
        for t in topics[1:]:
            t.retired = True
        dry = build_pool(session, "CS dry", "cclqa", 3, lang="CS")
        _hand_out(session, dry, ["as1", "as2"])
        nuggets = session.scalars(select(Nugget.id).where(Nugget.topic_id == topics[0].id)
                                  .order_by(Nugget.position)).all()
        for a in session.scalars(select(Assignment).join(PoolEntry)):
            marked = set(nuggets[:1]) if a.assessor == "as1" else set(nuggets[:2])  # as1 misses the 2nd
            judging.save_nugget_judgment(session, a, nuggets, marked)
        entry = session.scalars(select(PoolEntry).where(PoolEntry.pool_id == dry.id).order_by(PoolEntry.id)).first()
        disputes.adjudicate(session, entry, nuggets, set(nuggets[:2]))
        session.flush()
        controls.mark_control(session, entry, "The response names both the launch and its date.", "org")
        for t in topics:
            t.retired = not t.retired
        formal = build_pool(session, "CS formal", "cclqa", 3, lang="CS")
        formal.training = True
        _hand_out(session, formal, ["as1"])
        assert controls.mix_controls(session, formal, 0.2) == 1
        for t in topics:
            t.retired = False
        return formal.id, topics[0].id


@pytest.fixture
def site(tmp_path, monkeypatch):
    app = sample_campaign_app(tmp_path, monkeypatch)
    store = app.extensions["sepia_store"]
    server = LiveServer(app)
    server.formal, server.dry_topic = _dry_run_with_a_control_item(store)
    yield server
    server.stop()
    store.dispose()


def test_the_assessor_page_for_organisers_only(chromium, site):
    base = site.url
    as1 = log_in(chromium, site, "as1")
    as1.goto(f"{base}/judge/{site.formal}/{site.dry_topic}")
    assert as1.locator("blockquote.response").count() == 1  # blind: nothing says it is a control item
    assert "control" not in as1.locator("main").inner_text().lower()
    # An assessor reads before answering: the screen times to a tenth of a second, and an answer
    # sent within 50 ms of the page would be timed 0.0.
    as1.wait_for_timeout(300)
    as1.keyboard.press("1")
    with as1.expect_navigation():
        as1.keyboard.press("Enter")
    feedback = as1.locator("#control-feedback")
    assert "Not the expected answer" in feedback.inner_text() and "both the launch" in feedback.inner_text()
    shoot(as1, "assessors-training.png")
    with site.app.extensions["sepia_store"].transaction() as session:  # the screen timed the item
        timed = session.scalar(select(Assignment.seconds).join(PoolEntry).where(PoolEntry.control_id.is_not(None)))
    assert timed is not None and 0 < timed < 60
    assert as1.locator("a", has_text="Assessors").count() == 0
    assert as1.goto(f"{base}/assessors/").status == 403

    org = log_in(chromium, site, "org")
    org.goto(f"{base}/pools/")
    with org.expect_navigation():
        org.locator("nav a", has_text="Assessors").click()
    controls_table = org.locator("#controls table").inner_text()
    assert "as1" in controls_table and "below 0.8" in controls_table
    assert org.locator("#kappa table").count() >= 2  # votes and nugget matching
    assert "cs-a1" in org.locator("#kappa").inner_text() and "as2" in org.locator("#kappa").inner_text()
    assert "SEPIA-CS-0001" in org.locator("#disputes").inner_text()
    shoot(org, "assessors-page.png", full_page=True)
    with org.expect_download() as download:
        org.locator("a", has_text="quality.csv").click()
    assert download.value.suggested_filename == "assessors-quality.csv"
    org.goto(f"{base}/pools/1/disputes")  # where control items are kept, and partial support told apart
    assert "κ yes/no" in org.locator("main").inner_text() and org.locator("input[name=control]").count()
    shoot(org, "assessors-disputes.png")
    org.goto(f"{base}/assessors/")
    org.fill("input[name=threshold]", "2")
    with org.expect_navigation():
        org.get_by_role("button", name="Apply").click()
    assert "not 2; showing 0.8" in org.locator(".flash-error").inner_text()

    for user in ("dev", "par"):
        page = switch_user(org, site, user)  # the organiser's browser, someone else logged in
        assert page.locator("a", has_text="Assessors").count() == 0
        assert page.goto(f"{base}/assessors/report.json").status == 403
