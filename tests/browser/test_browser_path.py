"""The whole path in a real browser, for a CS, a CT and a JA topic: a topic developer creates a
topic, generates a query, opens a document, selects a passage with the Selection API and saves it;
nuggets are taken from it; two assessors vote; the organiser exports the gold standard; and
`sepia evaluate` scores a run against that export. Screenshots go to test-artifacts/."""
from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from conftest import CASES, log_in, shoot, switch_user

from sepia.cli import main
from sepia.store.models import AnswerText, Document, Topic

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Selects [start, end) code points of #doc-text's text, as a mouse drag would, then lets the page
# react as it does to a mouse-up. Offsets are converted to the DOM's UTF-16 units here.
SELECT_JS = """([selector, start, end]) => {
  const root = document.querySelector(selector);
  const text = root.textContent;
  const units = (cp) => { let u = 0, i = 0; for (const ch of text) { if (i === cp) break; u += ch.length; i++; } return u; };
  const locate = (unit) => {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    let node, seen = 0;
    while ((node = walker.nextNode())) {
      if (unit <= seen + node.length) return [node, unit - seen];
      seen += node.length;
    }
  };
  const [sNode, sOff] = locate(units(start));
  const [eNode, eOff] = locate(units(end));
  const range = document.createRange();
  range.setStart(sNode, sOff);
  range.setEnd(eNode, eOff);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  root.dispatchEvent(new MouseEvent("mouseup", { bubbles: true }));
  return range.toString();
}"""


def save(page) -> None:
    """Ctrl+S, the save shortcut, and wait for the page it leads to."""
    with page.expect_navigation():
        page.keyboard.press("Control+s")
    page.wait_for_load_state()


def flash_text(page) -> str:
    return page.locator("#flashes").inner_text()


@pytest.mark.parametrize("lang", ["CS", "CT", "JA"])
def test_whole_path(chromium, site, tmp_path, lang):
    case = CASES[lang]
    def shot(page, name, full_page=False):
        shoot(page, f"{lang}-{name}.png", full_page=full_page)

    # ------------------------------------------------ topic development
    dev = log_in(chromium, site, "dev")
    dev.goto(f"{site.url}/topics/?lang={lang}")
    dev.select_option("select[name=lang]", lang)
    with dev.expect_navigation():
        dev.click("#new-topic button[type=submit]")
    dev.wait_for_url(re.compile(rf"/topics/\w+-{lang}-\d+$"))
    topic_id = dev.url.rsplit("/", 1)[1]
    dev.fill("textarea[name=question_target]", case["question"])
    dev.fill("textarea[name=question_en]", case["english"])
    dev.select_option("select[name=answer_type]", case["type"])
    dev.fill("textarea[name=narrative_en]", "The user wants the facts of the news story.")
    assert dev.locator(".dirty-note").is_visible()
    save(dev)
    assert f"Topic {topic_id} saved." in flash_text(dev)

    dev.fill("#key-terms", case["key_terms"])
    dev.locator("#key-terms").blur()
    dev.keyboard.press("g")  # generate the query and search
    dev.wait_for_selector(".hit")
    assert dev.input_value("#query")
    assert dev.locator(".snippet mark").count() > 0
    shot(dev, "1-search")

    dev.locator(".hit-title").first.click()
    dev.wait_for_selector("#document:not([hidden])")
    assert dev.locator("#doc-text mark").count() > 0
    text = dev.evaluate("() => document.querySelector('#doc-text').textContent")
    docid = dev.inner_text("#doc-docid")
    start = text.index(case["passage"])  # Python code points, as the server counts
    end = start + len(case["passage"])
    selected = dev.evaluate(SELECT_JS, ["#doc-text", start, end])
    assert selected == case["passage"]
    assert dev.input_value("#answer-docid") == docid
    assert (dev.input_value("#answer-start"), dev.input_value("#answer-end")) == (str(start), str(end))
    # The captured passage is in view: the answer form is on screen, not scrolled away.
    dev.wait_for_function("() => { const r = document.querySelector('#answer-text').getBoundingClientRect();"
                          " return r.top >= 0 && r.bottom <= window.innerHeight; }")
    shot(dev, "2-document", full_page=True)
    dev.keyboard.press("a")  # save the selection as an answer text
    dev.wait_for_selector("#answer-list li.answer")
    assert "Answer text saved" in flash_text(dev)
    assert dev.evaluate("() => window.getSelection().isCollapsed")  # the saved selection is cleared
    dev.evaluate(SELECT_JS, ["#doc-text", start, end])
    dev.keyboard.press("a")  # the same passage again: refused, and said so
    dev.wait_for_function("() => document.querySelector('#flashes').textContent.includes('is saved already')")
    assert dev.locator("#answer-list li.answer").count() == 1

    assert dev.evaluate("() => CSS.highlights.get('saved-passage').size") == 1  # the saved passage, marked
    dev.check("input[name=completed]")
    save(dev)
    assert "saved" in flash_text(dev)
    # Saving reloaded the page: the query, the results and the open document came back.
    dev.wait_for_function(f"() => document.querySelector('#doc-docid').textContent === {docid!r}")
    assert dev.is_visible("#document") and dev.input_value("#query")
    assert dev.evaluate("() => CSS.highlights.get('saved-passage').size") == 1
    shot(dev, "3-topic")
    store = site.app.extensions["sepia_store"]
    with store.transaction() as session:
        topic = session.get(Topic, topic_id)
        assert topic.status == "completed" and topic.answer_type == case["type"]
        answer = session.scalars(select(AnswerText).where(AnswerText.topic_id == topic_id)).one()
        document = session.scalars(select(Document).where(Document.docid == docid)).one()
        assert (answer.start, answer.end, answer.text) == (start, end, case["passage"])
        assert document.text[answer.start:answer.end] == answer.text

    # ------------------------------------------------ nuggets, taken from the answer text by selection
    dev.goto(f"{site.url}/nuggets/{topic_id}")
    for nugget in case["nuggets"]:
        at = case["passage"].index(nugget)
        dev.evaluate(SELECT_JS, ["#source-answers blockquote", at, at + len(nugget)])
        assert dev.input_value("#nugget-text") == nugget
        assert dev.is_checked("#nugget-form input[name=answer_ids]")
        save(dev)
        assert "added" in flash_text(dev)
    assert dev.locator(".nugget").count() == 2
    shot(dev, "4-nuggets")

    # ------------------------------------------------ two assessors vote alone: N001 vital for both,
    # N002 vital for the first only.
    for assessor, vital in (("as1", [0, 1]), ("as2", [0])):
        page = switch_user(dev, site, assessor)  # the same browser, each logged in alone
        assert "0 of 1 topics submitted" in page.inner_text("main")
        with page.expect_navigation():
            page.click(f"a:text('{topic_id}')")
        assert page.locator(".tally").count() == 0
        boxes = page.locator("input[name=vital]")
        for index in vital:
            boxes.nth(index).check()
        if assessor == "as1":
            shot(page, "5-vote")
        save(page)
        assert "vote(s) recorded" in flash_text(page)
        assert page.locator(".tally").count() == 2

    # ------------------------------------------------ the organiser's matrix and the gold export
    org = switch_user(dev, site, "org")
    org.goto(f"{site.url}/votes/overview?lang={lang}")
    # Units (not vital, vital) [0,2] and [1,1]: P = (1 + 0) / 2 = .5; shares 1/4 and 3/4 give
    # Pe = 1/16 + 9/16 = .625; kappa = (.5 - .625) / (1 - .625) = -1/3.
    assert org.locator(".kappa").inner_text() == "-0.333"
    shot(org, "6-overview")
    with org.expect_download() as download:
        org.click(f"a:text('Export {lang} gold XML')")
    gold = tmp_path / f"gold-{lang}.xml"
    download.value.save_as(gold)
    org.context.close()
    assert CliRunner().invoke(main, ["validate", str(gold)]).exit_code == 0

    # ------------------------------------------------ scoring a run against the export
    n1, n2 = case["nuggets"]
    filler = "xxxxxxxxxx"  # ten characters that match no nugget
    run_id = f"TEST-{lang}-{lang}-01-T"
    run = tmp_path / f"{run_id}.xml"
    run.write_text(
        f'<?xml version="1.0" encoding="UTF-8"?>\n<TOPIC_SET><METADATA><RUNID>{run_id}</RUNID>'
        f'<DESCRIPTION>browser test</DESCRIPTION></METADATA><TOPIC ID="{topic_id}"><CCLQA_RESULT>'
        f'<ANSWER RANK="1"><TEXT>{n1} {filler}</TEXT><DOCID>{docid}</DOCID></ANSWER>'
        f'</CCLQA_RESULT></TOPIC></TOPIC_SET>\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["evaluate", "--gold", str(gold), "--run", str(run), "--format", "json"])
    assert result.exit_code == 0, result.output
    scored = json.loads(result.stdout)["runs"][0]["topics"][0]
    # Votes 2/2 and 1/2 give pyramid weights 1 and .5; the SR holds N001 only: recall 1 / 1.5.
    # C = mean nugget length; L = non-blank characters of the SR; precision = min(1, C / L).
    allowance = (len(n1) + len(n2)) / 2
    length = len(n1) + len(filler)
    recall = 1 / 1.5
    precision = min(1.0, allowance / length)
    expected = 10 * precision * recall / (9 * precision + recall)
    assert scored["length"] == length
    assert scored["recall"] == pytest.approx(recall, abs=1e-4)
    assert scored["precision"] == pytest.approx(precision, abs=1e-4)
    assert scored["f"] == pytest.approx(expected, abs=1e-4)
