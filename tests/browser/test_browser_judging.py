"""Judging with the keyboard only, in a real browser: nugget matching (a digit per nugget, n for
none, Enter to save) and relevance (a digit per level saves at once). Screenshots go to
test-artifacts/judging-*.png."""
from __future__ import annotations

import pytest
from sqlalchemy import select

from conftest import LiveServer, accounts_app, log_in, shoot
from web_helpers import DOCUMENTS, add_documents, make_topic

from sepia.formats import model
from sepia.store.exchange.runs import import_run
from sepia.store.models import Nugget, NuggetJudgment, RelevanceJudgment
from sepia.store.pools import assign_pool, build_pool

pytestmark = [pytest.mark.browser, pytest.mark.slow]
TOPIC = "ACLIA2-CS-0001"
DOC = DOCUMENTS[0][0]
ANSWERS = ["甲型流感病毒引起的禽类传染病", "今天天气晴朗", "病毒可以传染给人"]


def judged_topic_app(tmp_path, name):
    """The web tool on a store holding TOPIC's documents, nuggets and a CCLQA run of ANSWERS."""
    app = accounts_app(tmp_path, name)
    store = app.extensions["sepia_store"]
    add_documents(store)
    make_topic(store, TOPIC, answers=[(DOC, 8, 29)], nuggets=["甲型流感病毒", "禽类传染病", "传染给人"])
    with store.transaction() as session:
        import_run(session, model.CCLQARun(model.Metadata("TEAMA-CS-CS-01-T"), [
            model.CCLQATopic(TOPIC, [model.Answer(i + 1, t, [DOC]) for i, t in enumerate(ANSWERS)])]))
    return app


@pytest.fixture
def site(tmp_path):
    app = judged_topic_app(tmp_path, "judge")
    store = app.extensions["sepia_store"]
    with store.transaction() as session:
        import_run(session, model.IR4QARun(model.Metadata("TEAMA-CS-CS-01-T"), [
            model.IR4QATopic(TOPIC, [model.RetrievedDoc(1, DOC), model.RetrievedDoc(2, DOCUMENTS[1][0])])]))
        for kind in ("cclqa", "ir4qa"):
            build_pool(session, kind, kind, 30)
            assign_pool(session, kind, ["as1"])
    server = LiveServer(app)
    yield server
    server.stop()
    store.dispose()


def test_judging_with_the_keyboard_only(chromium, site):
    page = log_in(chromium, site, "as1")
    page.goto(f"{site.url}/judge/")
    shoot(page, "judging-queue.png")
    page.goto(f"{site.url}/judge/1/{TOPIC}")
    wanted = {ANSWERS[0]: "12", ANSWERS[1]: "", ANSWERS[2]: "3"}
    keystrokes = 0
    for step in range(3):
        digits = list(wanted[page.locator("blockquote.response").inner_text()])
        for digit in digits:
            page.keyboard.press(digit)
        if step == 0:
            shoot(page, "judging-nuggets.png")
        with page.expect_navigation():
            page.keyboard.press("Enter" if digits else "n")
        keystrokes += len(digits) + 1
    assert "Every item of this topic in your queue is judged" in page.locator("main").inner_text()
    assert keystrokes / 3 <= 3  # the aim: at most three keystrokes per response on average
    store = site.app.extensions["sepia_store"]
    with store.transaction() as session:
        matched = sorted(session.execute(select(Nugget.label).join(NuggetJudgment).where(NuggetJudgment.match == 1)).scalars())
    assert matched == ["N001", "N002", "N003"]
    page.goto(f"{site.url}/judge/2/{TOPIC}")
    shoot(page, "judging-relevance.png")
    for key in ("2", "0"):
        with page.expect_navigation():
            page.keyboard.press(key)
    with store.transaction() as session:
        levels = sorted(session.execute(select(RelevanceJudgment.level)).scalars())
    assert levels == [0, 2]
