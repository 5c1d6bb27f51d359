"""What makes the tool safe to work in: a passage selected with a real mouse drag lands with the
right offsets, unsaved changes warn before leaving, two people saving one topic see a conflict
instead of losing work, and the search shortcuts work."""
from __future__ import annotations

import pytest
from sqlalchemy import select

from conftest import CASES, log_in, shoot
from test_browser_path import save

from sepia.store.models import AnswerText

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHAR_BOX_JS = """([index]) => {
  const root = document.querySelector('#doc-text');
  let units = 0, i = 0;
  for (const ch of root.textContent) { if (i === index) break; units += ch.length; i++; }
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  let node, seen = 0;
  while ((node = walker.nextNode())) {
    if (units < seen + node.length) break;
    seen += node.length;
  }
  const range = document.createRange();
  const ch = Array.from(root.textContent)[index];
  range.setStart(node, units - seen);
  range.setEnd(node, units - seen + ch.length);
  const box = range.getBoundingClientRect();
  return {left: box.left, right: box.right, top: box.top, bottom: box.bottom};
}"""


def new_topic(page, site, lang):
    page.goto(f"{site.url}/topics/?lang={lang}")
    page.select_option("select[name=lang]", lang)
    with page.expect_navigation():
        page.click("#new-topic button[type=submit]")
    return page.url.rsplit("/", 1)[1]


def test_mouse_drag_selects_the_passage_with_code_point_offsets(chromium, site):
    case = CASES["CS"]
    page = log_in(chromium, site, "dev")
    topic_id = new_topic(page, site, "CS")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "query"
    page.keyboard.type("禽流感")
    page.keyboard.press("Enter")
    page.wait_for_selector(".hit")
    page.locator(".hit-title").first.click()
    page.wait_for_selector("#document:not([hidden])")
    text = page.evaluate("() => document.querySelector('#doc-text').textContent")
    start = text.index(case["passage"])
    end = start + len(case["passage"])
    first = page.evaluate(CHAR_BOX_JS, [start])
    last = page.evaluate(CHAR_BOX_JS, [end - 1])
    page.mouse.move(first["left"] + 1, (first["top"] + first["bottom"]) / 2)
    page.mouse.down()
    page.mouse.move(last["right"] - 1, (last["top"] + last["bottom"]) / 2, steps=8)
    page.mouse.up()
    assert page.input_value("#answer-text") == case["passage"]
    assert (page.input_value("#answer-start"), page.input_value("#answer-end")) == (str(start), str(end))
    page.click("#answer-save")
    page.wait_for_selector("#answer-list li.answer")
    with site.app.extensions["sepia_store"].transaction() as session:
        answer = session.scalars(select(AnswerText).where(AnswerText.topic_id == topic_id)).one()
        assert (answer.start, answer.end) == (start, end)
    page.keyboard.press("Escape")
    assert page.locator("#results").is_visible() and not page.locator("#document").is_visible()
    page.context.close()


def test_unsaved_changes_warn_and_concurrent_saves_conflict(chromium, site):
    dialogs = []
    first = log_in(chromium, site, "dev", on_dialog=lambda dialog: (dialogs.append(dialog.type), dialog.dismiss()))
    topic_id = new_topic(first, site, "JA")
    second = log_in(chromium, site, "org")
    second.goto(f"{site.url}/topics/{topic_id}")

    first.fill("textarea[name=memo]", "私のメモ")
    with first.expect_event("dialog"):  # the dialog, dismissed by the handler above
        first.evaluate("() => document.querySelector('a[href^=\"/topics/?\"]').click()")
    assert "beforeunload" in dialogs
    assert first.url.endswith(topic_id)  # still here, with the text typed

    second.fill("textarea[name=memo]", "別の人のメモ")
    save(second)
    assert "saved" in second.locator("#flashes").inner_text()
    with first.expect_navigation():
        first.keyboard.press("Control+s")
    assert "Nothing was overwritten" in first.content()
    cells = first.locator("table.conflict td")
    assert cells.nth(0).inner_text() == "私のメモ" and cells.nth(1).inner_text() == "別の人のメモ"
    shoot(first, "conflict.png")
    with first.expect_navigation():
        first.click("text=Save mine over theirs")
    assert "saved" in first.locator("#flashes").inner_text()
    assert first.input_value("textarea[name=memo]") == "私のメモ"
    first.context.close()
    second.context.close()
