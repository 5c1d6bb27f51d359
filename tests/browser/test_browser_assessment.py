"""Assessment end to end in a real browser, for the CS, CT and JA sample collections: the organiser
builds a pool from the stored runs and assigns it with overlap; two assessors judge every item with
the keyboard only, one closing the tab in the middle and resuming; the organiser adjudicates the
disagreements; `sepia evaluate --store --matcher human` equals `sepia evaluate` on the exported
judgments, and `sepia evaluate-ir4qa --store` equals it on the exported qrels.
Screenshots go to test-artifacts/assessment-*.png."""
from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from click.testing import CliRunner

from conftest import LiveServer, log_in, sample_campaign_app, shoot

from sepia.cli import main
from sepia.search import open_engine

pytestmark = [pytest.mark.browser, pytest.mark.slow]
NUGGET_LIST_RE = re.compile(r"<li><kbd>\d</kbd> <span[^>]*>([^<]*)</span></li>")
# The item on screen in one read: its response's text and the page's HTML (for the nugget list), or
# null once the topic's queue is done. Read by the page's own script: a locator's first use on each
# new page costs twice as much.
ITEM_JS = ("() => { const r = document.querySelector('blockquote.response');"
           " return r && [r.innerText, document.documentElement.outerHTML]; }")


@pytest.fixture
def site(tmp_path, monkeypatch):
    app = sample_campaign_app(tmp_path, monkeypatch)
    store = app.extensions["sepia_store"]
    app.config["SEARCH_ENGINE"] = open_engine(tmp_path / "index")
    with store.transaction() as session:  # the sample's own judgments make way for the assessors'
        session.execute(__import__("sqlalchemy").text("DELETE FROM nugget_judgment"))
        session.execute(__import__("sqlalchemy").text("DELETE FROM relevance_judgment"))
    server = LiveServer(app)
    yield server
    server.stop()
    store.dispose()


def shared(nugget: str, response: str) -> float:
    wanted = Counter(c for c in nugget if not c.isspace())
    return sum((wanted & Counter(response)).values()) / max(1, sum(wanted.values()))


def judge_queue(page, base, threshold, stop_after=None):
    """Judge every open item of the assessor's queue with the keyboard: a digit for each nugget that
    shares at least `threshold` of its characters with the response, then Enter (or n for none).
    Returns how many items were judged (stops early after `stop_after`)."""
    judged = 0
    page.goto(f"{base}/judge/")
    links = [a.get_attribute("href") for a in page.locator("a", has_text=re.compile("Continue|Review")).all()]
    for link in links:
        page.goto(base + link)
        while item := page.evaluate(ITEM_JS):
            text, html = item
            nuggets = NUGGET_LIST_RE.findall(html)
            keys = [str((i + 1) % 10) for i, n in enumerate(nuggets) if shared(n, text) >= threshold]
            for key in keys:
                page.keyboard.press(key)
            with page.expect_navigation():
                page.keyboard.press("Enter" if keys else "n")
            judged += 1
            if stop_after is not None and judged >= stop_after:
                return judged
    return judged


def test_assessment_end_to_end(chromium, site, tmp_path):
    base = site.url
    org = log_in(chromium, site, "org")
    for lang in ("CS", "CT", "JA"):
        org.goto(f"{base}/pools/")
        org.fill("input[name=name]", f"{lang} pool 1")
        org.select_option("select[name=kind]", "cclqa")
        org.select_option("select[name=lang]", lang)
        org.fill("input[name=priorities]", "1")
        org.fill("input[name=depth]", "1")
        with org.expect_navigation():
            org.get_by_role("button", name="Build pool").click()
        section = org.locator("section", has=org.get_by_role("heading", name=f"{lang} pool 1"))
        section.locator("input[value=as1]").check()
        section.locator("input[value=as2]").check()
        section.locator("input[name=overlap]").fill("50")
        with org.expect_navigation():
            section.get_by_role("button", name="Assign").click()
    shoot(org, "assessment-pools.png", full_page=True)

    as1 = log_in(chromium, site, "as1")
    first = judge_queue(as1, base, 0.5, stop_after=5)
    shoot(as1, "assessment-judging.png")
    as1.context.close()  # the tab closes in the middle; a new one resumes at the first open item
    as1 = log_in(chromium, site, "as1")
    as1.goto(f"{base}/judge/")
    assert f"{first} of" in as1.locator(".progress-row").inner_text()
    judge_queue(as1, base, 0.5)
    as2 = log_in(chromium, site, "as2")
    judge_queue(as2, base, 0.3)
    for page in (as1, as2):
        page.goto(f"{base}/judge/")
        done, total = re.search(r"(\d+) of (\d+) items judged", page.locator(".progress-row").inner_text()).groups()
        assert done == total and int(total) > 0
    shoot(as2, "assessment-queue.png")

    # The organiser settles every disagreement: the majority the form offers, and each tie chosen (a
    # tie has no default: "Decide" alone does not send the form).
    decided = ties = 0
    for pool_id in (1, 2, 3):
        org.goto(f"{base}/pools/{pool_id}/disputes")
        if pool_id == 1:
            shoot(org, "assessment-disputes.png")
        while org.locator("section:not(:has(.badge.done)) button:has-text('Decide')").count():
            section = org.locator("section:not(:has(.badge.done))").filter(has=org.locator("button:has-text('Decide')")).first
            choices = section.locator("fieldset.tie input[value='1']")
            if choices.count():
                url = org.url
                section.get_by_role("button", name="Decide").click()  # the browser keeps the form: no choice
                assert org.url == url and section.locator("fieldset.tie input:invalid").count() == 2 * choices.count()
                if not ties:
                    section.scroll_into_view_if_needed()
                    shoot(org, "assessment-dispute-tie.png")
                ties += choices.count()
                for i in range(choices.count()):
                    choices.nth(i).check()
            with org.expect_navigation():
                section.get_by_role("button", name="Decide").click()
            decided += 1
    assert decided > 0 and ties > 0

    runner = CliRunner()
    stored = runner.invoke(main, ["evaluate", "--store", "--matcher", "human", "--no-save", "--format", "json"])
    assert stored.exit_code == 0, stored.output
    (tmp_path / "judgments.tsv").write_text(runner.invoke(main, ["export", "judgments"]).output, encoding="utf-8")
    (tmp_path / "gold.xml").write_text(runner.invoke(main, ["export", "gold"]).output, encoding="utf-8")
    run_ids = [r["run_id"] for r in json.loads(stored.output)["runs"]]
    for run_id in run_ids:
        (tmp_path / f"{run_id}.xml").write_text(runner.invoke(main, ["export", "run", run_id]).output, encoding="utf-8")
    files = runner.invoke(main, ["evaluate", "--gold", str(tmp_path / "gold.xml"), "--judgments",
                                 str(tmp_path / "judgments.tsv"), "--matcher", "human", "--format", "json", "--run"]
                          + [str(tmp_path / f"{r}.xml") for r in run_ids])
    assert files.exit_code == 0, files.output
    assert json.loads(stored.output)["runs"] == json.loads(files.output)["runs"]
    assert any(r["score"] > 0 for r in json.loads(stored.output)["runs"])

    # IR4QA: a pool of the JA documents, judged by level with one key each.
    org.goto(f"{base}/pools/")
    org.fill("input[name=name]", "JA documents")
    org.select_option("select[name=kind]", "ir4qa")
    org.select_option("select[name=lang]", "JA")
    org.fill("input[name=depth]", "3")
    with org.expect_navigation():
        org.get_by_role("button", name="Build pool").click()
    section = org.locator("section", has=org.get_by_role("heading", name="JA documents"))
    section.locator("input[value=as1]").check()
    section.locator("input[name=overlap]").fill("0")  # one assessor: nothing judged twice
    with org.expect_navigation():
        section.get_by_role("button", name="Assign").click()
    as1.goto(f"{base}/judge/4/SEPIA-JA-0001")
    shoot(as1, "assessment-relevance.png")
    as1.goto(f"{base}/judge/")
    for link in [a.get_attribute("href") for a in as1.locator("a", has_text="Continue").all()]:
        as1.goto(base + link)
        level = 2
        while as1.locator(".doc-text, p.muted:has-text('not in the stored collection')").count():
            with as1.expect_navigation():
                as1.keyboard.press(str(level))
            level = (level + 1) % 3
    stored_ir = runner.invoke(main, ["evaluate-ir4qa", "--store", "--no-save", "--lang-pair", "JA-JA", "--format", "json"])
    assert stored_ir.exit_code == 0, stored_ir.output
    (tmp_path / "qrels.tsv").write_text(runner.invoke(main, ["export", "qrels"]).output, encoding="utf-8")
    ir_run = tmp_path / "ir.xml"
    ir_run.write_text(runner.invoke(main, ["export", "run", "TEAMA-JA-JA-01-T", "--kind", "ir4qa"]).output,
                      encoding="utf-8")
    ir_files = runner.invoke(main, ["evaluate-ir4qa", "--qrels", str(tmp_path / "qrels.tsv"), "--run", str(ir_run),
                                    "--format", "json"])
    assert ir_files.exit_code == 0, ir_files.output
    assert json.loads(stored_ir.output)["runs"] == json.loads(ir_files.output)["runs"]
