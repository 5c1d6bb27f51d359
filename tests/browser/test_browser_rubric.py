"""Rubric grading with the keyboard only, in a real browser: the assessor opens the queue, reads the
rubric task's guidelines beside the answer, gives one grade per dimension with the digit keys (a
digit off the marked dimension's scale does nothing), saves with Enter and lands on the next answer;
the organiser's Rubric page then shows the grades' scores. Screenshots go to test-artifacts/rubric-*.png."""
from __future__ import annotations

import pytest

from conftest import LiveServer, log_in, shoot, switch_user
from test_browser_judging import ANSWERS, DOC, TOPIC, judged_topic_app
from test_rubric import RUBRIC

from sepia.formats import model
from sepia.store import guidelines
from sepia.store.exchange.runs import import_run
from sepia.store import rubric as store_rubric

pytestmark = [pytest.mark.browser, pytest.mark.slow]
SECOND = "TEAMB-CS-CS-01-T"


@pytest.fixture
def site(tmp_path):
    app = judged_topic_app(tmp_path, "rubric")
    store = app.extensions["sepia_store"]
    with store.transaction() as session:
        import_run(session, model.CCLQARun(model.Metadata(SECOND), [
            model.CCLQATopic(TOPIC, [model.Answer(1, ANSWERS[1], [DOC])])]))
        store_rubric.set_rubric(session, RUBRIC, "org")
        guidelines.save(session, "rubric", "# Rubric\n\nGrade the **whole** answer, every sentence of it.", "org")
    server = LiveServer(app)
    yield server
    server.stop()
    store.dispose()


def _marked(page) -> str:
    return page.locator("fieldset.rubric-dimension.current").get_attribute("data-dimension")


def test_grading_with_the_keyboard_only(chromium, site):
    page = log_in(chromium, site, "as1")
    page.goto(f"{site.url}/rubric/judge")
    assert "0 graded, 2 left" in page.locator("h1").inner_text()
    with page.expect_navigation():
        page.keyboard.press("Enter")  # the focused "Start grading"
    assert "rubric grading · 0 graded, 2 left" in page.locator("h1").inner_text()
    assert page.locator("details#guidelines strong").inner_text() == "whole"
    assert _marked(page) == "correctness"
    page.keyboard.press("3")
    assert _marked(page) == "completeness"
    page.keyboard.press("k")  # back to correctness, changed to 2
    page.keyboard.press("2")
    page.keyboard.press("1")
    assert _marked(page) == "fluency"
    page.keyboard.press("0")  # not on fluency's 1-3 scale: nothing happens
    assert page.locator("#dimension-fluency input:checked").count() == 0
    page.keyboard.press("3")
    checked = {name: page.locator(f"#dimension-{name} input:checked").get_attribute("value")
               for name in ("correctness", "completeness", "fluency")}
    assert checked == {"correctness": "2", "completeness": "1", "fluency": "3"}
    page.locator("input[data-guidelines-read]").check()
    shoot(page, "rubric-grading.png", full_page=True)
    first = page.url
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url != first and "1 graded, 1 left" in page.locator("h1").inner_text()
    assert page.locator("details#guidelines").get_attribute("open") is None  # read: folded away
    for key in "331":
        page.keyboard.press(key)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "All 2 answers graded" in page.locator("body").inner_text()

    org = switch_user(page, site, "org")  # the assessor's browser, the organiser logged in
    org.goto(f"{site.url}/rubric/")
    scores = org.locator("#rubric-scores tbody tr")
    assert scores.count() == 2
    shoot(org, "rubric-organiser.png", full_page=True)
    # The first answer graded 2, 1, 3 and the second 3, 3, 1: (2*2/3 + 1/3 + 1) / 4 = 0.667 and
    # (2*1 + 1 + 0) / 4 = 0.750, in the order the queue gave them.
    values = sorted(scores.nth(i).locator("td").nth(2).inner_text() for i in range(2))
    assert values == ["0.667", "0.750"]
