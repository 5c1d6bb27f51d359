"""Guidelines for assessors: versions per task (SQLite and PostgreSQL), acknowledgements per assessor
and version, the Markdown subset rendered over escaped text, and the web tool: only organisers write
(with CSRF), every judging screen shows the current version, and a judgment of a task whose new
version the assessor has not acknowledged is refused with the form as it was sent."""
from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from test_support_judging import T1, add_run
from test_web_judging import TOPIC, build_and_assign, campaign, judgments
from web_helpers import browser_for, make_topic

from sepia.store import guidelines
from sepia.store.models import GuidelineRead, SupportJudgment
from sepia.store.pools import assign_pool, build_pool
from sepia.web.guidelines import render


def test_every_save_is_a_new_version_per_task_with_who_and_when(store):
    with store.transaction() as session:
        assert guidelines.current(session, "nuggets") is None
        guidelines.save(session, "nuggets", "Match the meaning.\r\n", "org")
        guidelines.save(session, "nuggets", "Match the meaning, not the words.", "org2")
        guidelines.save(session, "relevance", "L2: answers the question.", "org")
    with store.transaction() as session:
        rows = guidelines.history(session, "nuggets")
        assert [(r.version, r.text, r.author) for r in rows] == [
            (2, "Match the meaning, not the words.", "org2"), (1, "Match the meaning.", "org")]
        assert rows[0].created_at is not None and guidelines.current(session, "nuggets").version == 2
        assert guidelines.current(session, "relevance").version == 1  # numbered per task
        assert guidelines.current(session, "support") is None
        for task, text, said in (("ranking", "x", "not a judging task"), ("nuggets", " \n ", "empty"),
                                 ("nuggets", "x" * (guidelines.MAX_CHARS + 1), "at most")):
            with pytest.raises(ValueError, match=said):
                guidelines.save(session, task, text, "org")


def test_a_new_version_must_be_acknowledged_once_per_assessor(store):
    with store.transaction() as session:
        guidelines.require_read(session, "nuggets", "as1", None)  # no guidelines: nothing to read
        guidelines.save(session, "nuggets", "v1", "org")
    with store.transaction() as session:
        with pytest.raises(guidelines.GuidelinesUnread, match=r"version 1\).*not saved"):
            guidelines.require_read(session, "nuggets", "as1", None)
        guidelines.require_read(session, "nuggets", "as1", "1")  # acknowledged with the save
        guidelines.require_read(session, "nuggets", "as1", None)  # and from then on
        guidelines.require_read(session, "relevance", "as1", None)  # another task has none
        guidelines.save(session, "nuggets", "v2", "org")
    with store.transaction() as session:
        with pytest.raises(guidelines.GuidelinesUnread):
            guidelines.require_read(session, "nuggets", "as1", "1")  # the old version does not count
        with pytest.raises(ValueError, match="not the current version"):
            guidelines.acknowledge(session, "nuggets", 1, "as1")
        guidelines.acknowledge(session, "nuggets", 2, "as1")
        guidelines.acknowledge(session, "nuggets", 2, "as1")  # twice: one row
        assert guidelines.shown(session, "nuggets", "as1", needs_reading=True).read
        assert not guidelines.shown(session, "nuggets", "as2", needs_reading=True).read
        assert guidelines.shown(session, "nuggets", "org", needs_reading=False).read
    with store.transaction() as session:
        reads = session.execute(select(GuidelineRead.assessor, GuidelineRead.guideline_id)).all()
        assert sorted(a for a, _ in reads) == ["as1", "as1"] and len({g for _, g in reads}) == 2


def test_the_markdown_subset_is_rendered_over_escaped_text():
    text = ("# Matching\n\nA **match** says the *same* thing; `N001` is a label.\nNext line.\n\n"
            "- one <b>\n- two & <script>alert(1)</script>\n\n<img src=x onerror=alert(1)> [a](javascript:x)")
    assert str(render(text)) == (
        "<h3>Matching</h3>\n"
        "<p>A <strong>match</strong> says the <em>same</em> thing; <code>N001</code> is a label.<br>Next line.</p>\n"
        "<ul><li>one &lt;b&gt;</li><li>two &amp; &lt;script&gt;alert(1)&lt;/script&gt;</li></ul>\n"
        "<p>&lt;img src=x onerror=alert(1)&gt; [a](javascript:x)</p>")
    assert str(render("2*3*4 and a*b")) == "<p>2*3*4 and a*b</p>"  # no emphasis inside words


def _nugget_item(as1, pool_id):
    page = as1.get(f"/judge/{pool_id}/{TOPIC}").get_data(as_text=True)
    ids = re.findall(r'name="nugget" value="(\d+)"', page)
    return page, ids, re.search(r'action="(/judge/\d+/[^/]+/\d+)"', page).group(1)


def test_only_organisers_write_guidelines_and_with_csrf(app, web_store):
    org = browser_for(app, "org")
    for user in ("as1", "dev", "par"):
        other = browser_for(app, user)
        assert other.get("/guidelines/").status_code == 403
        assert other.post("/guidelines/nuggets", {"text": "mine"}).status_code == 403
    assert org.client.post("/guidelines/nuggets", data={"text": "no token"}).status_code == 400
    assert org.post("/guidelines/ranking", {"text": "x"}).status_code == 404
    saved = org.post("/guidelines/nuggets", {"text": "Match <i>meaning</i>."}, follow_redirects=True)
    page = saved.get_data(as_text=True)
    assert "saved as version 1" in page and "Match &lt;i&gt;meaning&lt;/i&gt;." in page
    assert "Save as version 2" in page
    with web_store.transaction() as session:
        assert [(r.version, r.author) for r in guidelines.history(session, "nuggets")] == [(1, "org")]


def test_a_judgment_waits_for_the_new_version_and_keeps_the_form(app, web_store):
    campaign(web_store)
    org, as1 = browser_for(app, "org"), browser_for(app, "as1")
    pool_id = build_and_assign(org)
    org.post("/guidelines/nuggets", {"text": "**v1**: match the meaning."})
    page, ids, action = _nugget_item(as1, pool_id)
    assert "<strong>v1</strong>: match the meaning." in page and "new: read before judging" in page
    assert 'name="guidelines_read" value="1" form="judge-form" required' in page
    refused = as1.post(action, {"action": "save", "nugget": [ids[1]], "comment": "kept?"})
    page = refused.get_data(as_text=True)
    assert refused.status_code == 409 and "your judgment was not saved and is still in the form" in page
    assert re.search(rf'value="{ids[1]}" checked', page) and not re.search(rf'value="{ids[0]}" checked', page)
    assert 'value="kept?"' in page and judgments(web_store) == []
    assert as1.post(action, {"action": "save", "nugget": [ids[1]], "guidelines_read": "1"}).status_code == 302
    assert [m for _, _, m in judgments(web_store)] == [0.0, 1.0, 0.0]
    page, ids, action = _nugget_item(as1, pool_id)
    assert "new: read before judging" not in page and 'name="guidelines_read"' not in page
    org.post("/guidelines/nuggets", {"text": "**v2**: partial matches count half."})  # a new version
    page, ids, action = _nugget_item(as1, pool_id)
    assert "<strong>v2</strong>" in page and 'name="guidelines_read" value="2"' in page
    assert as1.post(action, {"action": "save", "guidelines_read": "1"}).status_code == 409  # the old one
    assert as1.post(action, {"action": "skip"}).status_code == 302  # skipping judges nothing: allowed
    page, ids, action = _nugget_item(as1, pool_id)
    assert as1.post(action, {"action": "save", "nugget": [ids[0]], "guidelines_read": "2"}).status_code == 302
    assert len(judgments(web_store)) > 3  # the next item's
    assert "new: read before judging" not in org.get("/guidelines/").get_data(as_text=True)


def test_relevance_has_its_own_guidelines(app, web_store):
    campaign(web_store)
    org, as1 = browser_for(app, "org"), browser_for(app, "as1")
    pool_id = build_and_assign(org, kind="ir4qa")
    org.post("/guidelines/nuggets", {"text": "nugget rules"})
    page = as1.get(f"/judge/{pool_id}/{TOPIC}").get_data(as_text=True)
    assert "Guidelines for" not in page  # none for relevance yet
    action = re.search(r'action="(/judge/\d+/[^/]+/\d+)"', page).group(1)
    assert as1.post(action, {"action": "save", "level": "1"}).status_code == 302
    org.post("/guidelines/relevance", {"text": "L1: partly relevant."})
    page = as1.get(f"/judge/{pool_id}/{TOPIC}").get_data(as_text=True)
    assert "Guidelines for relevance" in page and "L1: partly relevant." in page and "nugget rules" not in page
    action = re.search(r'action="(/judge/\d+/[^/]+/\d+)"', page).group(1)
    refused = as1.post(action, {"action": "save", "level": "2"})
    assert refused.status_code == 409 and re.search(r'name="level" value="2" checked', refused.get_data(as_text=True))


def test_citation_support_waits_for_its_guidelines_and_keeps_the_levels(app, web_store):
    make_topic(web_store, T1)
    with web_store.transaction() as session:
        add_run(session)
        build_pool(session, "rag", "cclqa", 10)
        assign_pool(session, "rag", ["as1"], 0)
    org, as1 = browser_for(app, "org"), browser_for(app, "as1")
    org.post("/guidelines/support", {"text": "Partial: some of the sentence."})
    page = as1.get(f"/judge/support/{T1}").get_data(as_text=True)
    assert "Partial: some of the sentence." in page and 'form="support-form" required' in page
    field = re.search(r'name="(support:[^"]+)" value="1"', page).group(1)
    refused = as1.post(f"/judge/support/{T1}", {field: "0.5"})
    page = refused.get_data(as_text=True)
    assert refused.status_code == 409 and re.search(rf'name="{re.escape(field)}" value="0.5" checked', page)
    with web_store.transaction() as session:
        assert session.scalars(select(SupportJudgment)).all() == []
    assert as1.post(f"/judge/support/{T1}", {field: "0.5", "guidelines_read": "1"}).status_code == 302
    assert org.post(f"/judge/support/{T1}", {field: "1"}).status_code == 302  # organisers write them
    with web_store.transaction() as session:
        assert sorted(session.scalars(select(SupportJudgment.support))) == [0.5, 1.0]


def test_the_cli_sets_versions_and_shows_them(on_store, store, tmp_path):
    from click.testing import CliRunner

    from sepia.cli import main

    text, bad, empty = tmp_path / "g.md", tmp_path / "bad.md", tmp_path / "empty.md"
    text.write_text("Partial: **some** of the sentence.\n", encoding="utf-8")
    bad.write_bytes(b"ok \xff")
    empty.write_text("\n \n", encoding="utf-8")
    runner = CliRunner()
    for author, version in (("org", 1), ("org2", 2)):
        result = runner.invoke(main, ["guidelines", "set", "support", str(text), "--author", author])
        assert result.exit_code == 0 and f"saved as version {version} by {author}" in result.output
    result = runner.invoke(main, ["guidelines", "show", "support"])
    assert result.exit_code == 0 and result.output.startswith("# version 2, org2, ")
    assert "Partial: **some** of the sentence." in result.output and "version 1" not in result.output
    assert runner.invoke(main, ["guidelines", "show", "support", "--history"]).output.count("# version") == 2
    result = runner.invoke(main, ["guidelines", "set", "support", str(bad)])
    assert result.exit_code == 1 and f"{bad}: not UTF-8 text (byte 3)" in result.output
    result = runner.invoke(main, ["guidelines", "set", "support", str(empty)])
    assert result.exit_code == 1 and f"{empty}: the guidelines are empty" in result.output
    result = runner.invoke(main, ["guidelines", "show", "nuggets"])
    assert result.exit_code == 1 and "no nugget matching guidelines yet" in result.output
    with store.transaction() as session:
        assert [r.version for r in guidelines.history(session, "support")] == [2, 1]
