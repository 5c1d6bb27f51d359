"""Assessment in the browser: pools built and shared out by organisers; assessors judge blind, one
item at a time, saved at once, resumed where they stopped; equal responses judged once for every run;
the store's judgments score as the exported files do."""
from __future__ import annotations

import re

from click.testing import CliRunner
from sqlalchemy import event, func, select

from web_helpers import browser_for, make_topic

from sepia.cli import main
from sepia.formats import model
from sepia.store.exchange.runs import import_run
from sepia.store.models import Assignment, Nugget, NuggetJudgment, Pool, PoolEntry, RelevanceJudgment
from tests.helpers import accounts

TOPIC = "ACLIA2-CS-0001"
DOC = "XIN_CMN_20080101.0001"
RUNS = {"TEAMA-CS-CS-01-T": ["甲型流感病毒引起的", "禽类传染病", "天气晴"],
        "TEAMB-CS-CS-01-T": ["禽类传染病", "病毒可以传染给人"]}


def campaign(store):
    make_topic(store, TOPIC, answers=[(DOC, 8, 29)], nuggets=["甲型流感病毒", "禽类传染病", "传染给人"])
    with store.transaction() as session:
        for run_id, texts in RUNS.items():
            import_run(session, model.CCLQARun(model.Metadata(run_id), [
                model.CCLQATopic(TOPIC, [model.Answer(i + 1, t, [DOC]) for i, t in enumerate(texts)])]))
            import_run(session, model.IR4QARun(model.Metadata(run_id), [
                model.IR4QATopic(TOPIC, [model.RetrievedDoc(1, DOC), model.RetrievedDoc(2, "XIN_CMN_20080102.0002")])]))


def build_and_assign(org, kind="cclqa", overlap="0", assessors=("as1",)):
    org.post("/pools/", {"name": f"{kind} pool", "kind": kind, "lang": "CS", "priorities": "1", "depth": ""})
    page = org.get("/pools/").get_data(as_text=True)
    pool_id = re.findall(r'id="pool-(\d+)"', page)[-1]
    response = org.post(f"/pools/{pool_id}/assign", {"assessors": list(assessors), "overlap": overlap})
    assert response.status_code == 302
    return int(pool_id)


def test_a_pool_is_shared_out_to_active_assessors_only(app, web_store):
    """A name that is no active assessor's account would leave its items in nobody's queue: the form
    refuses it, naming every such name, and stores nothing."""
    campaign(web_store)
    with web_store.transaction() as session:
        accounts(session, inactive=("gone",))
    org = browser_for(app, "org")
    org.post("/pools/", {"name": "p", "kind": "cclqa", "lang": "CS", "priorities": "1", "depth": ""})
    pool_id = re.findall(r'id="pool-(\d+)"', org.get("/pools/").get_data(as_text=True))[-1]
    for names, told in ((["as1", "asl", "org", "gone"], "p: not active assessors: asl, org, gone."),
                        (["as1", "dev"], "p: not active assessors: dev.")):
        refused = org.post(f"/pools/{pool_id}/assign", {"assessors": names, "overlap": "0"}, follow_redirects=True)
        assert told in refused.get_data(as_text=True)
    with web_store.transaction() as session:
        assert session.scalar(select(func.count()).select_from(Assignment)) == 0
    done = org.post(f"/pools/{pool_id}/assign", {"assessors": ["as1", "as2"], "overlap": "0"}, follow_redirects=True)
    assert "p: 4 items assigned to as1, as2." in done.get_data(as_text=True)


def judgments(store, assessor="as1"):
    with store.transaction() as session:
        return sorted(session.execute(select(NuggetJudgment.response_id, Nugget.label, NuggetJudgment.match)
                                      .join(Nugget).where(NuggetJudgment.assessor == assessor)).all())


def test_an_assessor_judges_blind_item_by_item_and_resumes(app, web_store):
    campaign(web_store)
    org, as1 = browser_for(app, "org"), browser_for(app, "as1")
    pool_id = build_and_assign(org)
    assert "<span class=\"count\">4 items</span>" in org.get("/pools/").get_data(as_text=True)  # 5 responses, 2 equal
    assert "0 of 4 items judged" in as1.get("/judge/").get_data(as_text=True)
    seen = []
    for step in range(4):
        page = as1.get(f"/judge/{pool_id}/{TOPIC}").get_data(as_text=True)
        text = re.search(r'<blockquote class="response cjk" lang="zh-Hans">([^<]*)</blockquote>', page).group(1)
        assert "TEAMA" not in page and "TEAMB" not in page  # blind: no run or team
        cited = re.search(r'href="(/judge/documents/[^"]+)"', page).group(1)  # the source, one click away
        assert "新华社北京电" in as1.get(cited).get_data(as_text=True)
        seen.append(text)
        ids = dict(re.findall(r'name="nugget" value="(\d+)"[^>]*> (\d)', page))
        action = re.search(r'action="(/judge/\d+/[^/]+/\d+)"', page).group(1)
        ticked = {"甲型流感病毒引起的": ["1"], "禽类传染病": ["2"], "病毒可以传染给人": ["3"]}.get(text, [])
        if step == 1:
            as1 = browser_for(app, "as1")  # the tab closed: a new session resumes at the first open item
        response = as1.post(action, {"action": "save", "nugget": [n for n, label in ids.items() if label in ticked]})
        assert response.status_code == 302
    assert sorted(seen) == sorted({t for texts in RUNS.values() for t in texts})
    assert "Every item of this topic in your queue is judged" in as1.get(f"/judge/{pool_id}/{TOPIC}").get_data(as_text=True)
    # The item 禽类传染病 stands for a response of each team: both carry its judgment.
    rows = judgments(web_store)
    assert len(rows) == 5 * 3 and sum(m for _, _, m in rows) == 4
    assert "4 of 4 items judged" in as1.get("/judge/").get_data(as_text=True)


def test_store_judgments_score_as_the_exported_file(app, web_store, monkeypatch, tmp_path):
    campaign(web_store)
    org, as1 = browser_for(app, "org"), browser_for(app, "as1")
    pool_id = build_and_assign(org)
    for _ in range(4):
        page = as1.get(f"/judge/{pool_id}/{TOPIC}").get_data(as_text=True)
        action = re.search(r'action="(/judge/\d+/[^/]+/\d+)"', page).group(1)
        first = re.search(r'name="nugget" value="(\d+)"', page).group(1)
        as1.post(action, {"action": "save", "nugget": [first] if "甲型" in page.split("Response")[1] else []})
    monkeypatch.setenv("SEPIA_DATABASE_URL", str(web_store.engine.url))
    runner = CliRunner()
    stored = runner.invoke(main, ["evaluate", "--store", "--matcher", "human", "--no-save", "--format", "json"])
    assert stored.exit_code == 0, stored.output
    (tmp_path / "j.tsv").write_text(runner.invoke(main, ["export", "judgments"]).output, encoding="utf-8")
    (tmp_path / "gold.xml").write_text(runner.invoke(main, ["export", "gold"]).output, encoding="utf-8")
    for run_id in RUNS:
        (tmp_path / f"{run_id}.xml").write_text(runner.invoke(main, ["export", "run", run_id]).output, encoding="utf-8")
    files = runner.invoke(main, ["evaluate", "--gold", str(tmp_path / "gold.xml"), "--judgments", str(tmp_path / "j.tsv"),
                                 "--matcher", "human", "--format", "json", "--run"] + [str(tmp_path / f"{r}.xml") for r in RUNS])
    assert files.exit_code == 0, files.output
    assert stored.output.split('"settings"')[0] == files.output.split('"settings"')[0]
    assert '"score": 0.0,' not in stored.output.split('"topics"')[0]  # the judged match counts


def test_overlap_gives_a_share_of_items_to_a_second_assessor(app, web_store):
    campaign(web_store)
    build_and_assign(browser_for(app, "org"), overlap="50", assessors=("as1", "as2"))
    with web_store.transaction() as session:
        rows = session.execute(select(Assignment.entry_id, Assignment.assessor)).all()
    per_item = {}
    for entry, assessor in rows:
        per_item.setdefault(entry, set()).add(assessor)
    assert len(per_item) == 4 and sum(len(a) == 2 for a in per_item.values()) == 2


def test_relevance_judgment_by_level_and_the_qrels_export(app, web_store, monkeypatch):
    from sepia.web.judging import screen as judging_view

    asked = []

    def spans(lang, docid, query, length):  # the search engine's hits of the question's words
        asked.append(query)
        return [(8, 11)] if docid == DOC else []

    monkeypatch.setattr(judging_view, "hit_spans", spans)
    campaign(web_store)
    org, as1 = browser_for(app, "org"), browser_for(app, "as1")
    pool_id = build_and_assign(org, kind="ir4qa")
    levels = {}
    for level in ("2", "0"):
        page = as1.get(f"/judge/{pool_id}/{TOPIC}").get_data(as_text=True)
        if DOC in page.split("<h2>Document")[1][:80]:
            assert "。𠀀<mark>禽流感</mark>是一种" in page and asked[-1] == "什么是禽流感？"
        docid = re.search(r'<h2>Document <span class="docid">([^<]+)</span>', page).group(1)
        action = re.search(r'action="(/judge/\d+/[^/]+/\d+)"', page).group(1)
        assert as1.post(action, {"action": "save", "level": level}).status_code == 302
        levels[docid] = int(level)
    bad = as1.post(action, {"action": "save", "level": "3"}, follow_redirects=True)
    assert "not a level of this campaign" in bad.get_data(as_text=True)
    with web_store.transaction() as session:
        stored = dict(session.execute(select(RelevanceJudgment.docid, RelevanceJudgment.level)).all())
    assert stored == levels
    monkeypatch.setenv("SEPIA_DATABASE_URL", str(web_store.engine.url))
    qrels = CliRunner().invoke(main, ["export", "qrels"]).output.splitlines()
    assert sorted(qrels[1:]) == sorted(f"{TOPIC}\t{d}\t{lvl}" for d, lvl in levels.items())


def test_skip_and_comment_are_kept_and_skipped_items_come_last(app, web_store):
    campaign(web_store)
    as1 = browser_for(app, "as1")
    pool_id = build_and_assign(browser_for(app, "org"))
    page = as1.get(f"/judge/{pool_id}/{TOPIC}").get_data(as_text=True)
    action = re.search(r'action="(/judge/\d+/[^/]+/\d+)"', page).group(1)
    as1.post(action, {"action": "skip", "comment": "看不懂"})
    with web_store.transaction() as session:
        skipped = session.scalar(select(Assignment).where(Assignment.skipped))
        assert skipped.comment == "看不懂" and skipped.judged_at is None
        assert session.query(Pool).count() == 1
    assert action not in as1.get(f"/judge/{pool_id}/{TOPIC}").get_data(as_text=True)


def judge_all(app, assessor, pool_id, choose):
    """`assessor` judges every open item of the topic: `choose(text)` gives the nugget numbers ticked."""
    browser = browser_for(app, assessor)
    while True:
        page = browser.get(f"/judge/{pool_id}/{TOPIC}").get_data(as_text=True)
        found = re.search(r'<blockquote class="response cjk" lang="zh-Hans">([^<]*)</blockquote>', page)
        if found is None:
            return
        ids = dict(re.findall(r'name="nugget" value="(\d+)"[^>]*> (\d)', page))
        action = re.search(r'action="(/judge/\d+/[^/]+/\d+)"', page).group(1)
        browser.post(action, {"action": "save", "nugget": [n for n, label in ids.items() if label in choose(found.group(1))]})


def test_disagreements_are_adjudicated_and_the_decision_counts(app, web_store, monkeypatch):
    campaign(web_store)
    org = browser_for(app, "org")
    pool_id = build_and_assign(org, overlap="100", assessors=("as1", "as2"))
    judge_all(app, "as1", pool_id, lambda text: "2" if "禽类" in text else "")
    judge_all(app, "as2", pool_id, lambda text: "2" if "禽类" in text else ("1" if "甲型" in text else ""))
    page = org.get(f"/pools/{pool_id}/disputes").get_data(as_text=True)
    assert "1 disputed item(s)" in page and "甲型流感病毒引起的" in page and "In disputes: as1 1, as2 1." in page
    # Agreement over 4 items x 3 nuggets, both assessors: 11 of 12 pairs agree.
    kappa = re.search(r"<td>CS</td><td>DEFINITION</td><td class=\"num\">12</td>\s*<td class=\"num\">([0-9.-]+)</td>", page)
    # By hand: 12 units of two ratings, 11 agreeing; 3 of the 24 ratings are matches (as1 one, as2 two).
    p_match = 3 / 24
    expected = ((11 / 12) - (p_match ** 2 + (1 - p_match) ** 2)) / (1 - (p_match ** 2 + (1 - p_match) ** 2))
    assert kappa and abs(float(kappa.group(1)) - expected) < 0.0005, (kappa, expected)
    monkeypatch.setenv("SEPIA_DATABASE_URL", str(web_store.engine.url))
    runner = CliRunner()

    def first_answer_rows():
        rows = [line.split("\t") for line in runner.invoke(main, ["export", "judgments"]).output.splitlines()[1:]]
        return [r for r in rows if r[1] == "TEAMA-CS-CS-01-T" and r[2] == "1"]

    # Before a decision both assessors' rows count (combined later: a match when half say so).
    assert {(r[5], r[3], r[4]) for r in first_answer_rows() if r[3] == "N001"} == {("as1", "N001", "0"),
                                                                                  ("as2", "N001", "1")}
    entry = re.search(r'action="/pools/\d+/disputes/(\d+)"', page).group(1)
    # A one-against-one split has no default: nothing ticked, the form says who said what, and a
    # decision without a choice is refused, naming the assessors' marks.
    ties = re.findall(r'<input type="radio" name="(tie-\d+)" value="1" required ', page)
    assert len(ties) == 1 and 'value="1" required checked' not in page and "as1 no, as2 match" in page
    refused = org.post(f"/pools/{pool_id}/disputes/{entry}", {"nugget": []}, follow_redirects=True).get_data(as_text=True)
    assert "A tie has no default: choose match or no for N001 (as1 no, as2 match)." in refused
    assert all(r[5] != "(adjudicated)" for r in first_answer_rows())
    loaded = []  # the pool entries a decision reads: its own, not the whole pool's

    def on_load(target, _context):
        loaded.append(target.id)

    event.listen(PoolEntry, "load", on_load)
    try:
        assert org.post(f"/pools/{pool_id}/disputes/{entry}", {"nugget": [], ties[0]: "0"}).status_code == 302  # no match
    finally:
        event.remove(PoolEntry, "load", on_load)
    assert set(loaded) == {int(entry)}, loaded
    decided = first_answer_rows()
    assert {r[5] for r in decided} == {"(adjudicated)"} and all(float(r[4]) == 0 for r in decided)
    individual = runner.invoke(main, ["export", "judgments", "--individual"]).output
    assert "(adjudicated)" not in individual and individual.count("\tas2\n") == 5 * 3
    assert "decided" in org.get(f"/pools/{pool_id}/disputes").get_data(as_text=True)


def test_a_pool_may_pre_mark_the_binarized_decision_and_says_how_far_it_was_followed(app, web_store):
    campaign(web_store)
    org, as1 = browser_for(app, "org"), browser_for(app, "as1")
    org.post("/pools/", {"name": "suggested", "kind": "cclqa", "lang": "CS", "priorities": "", "depth": "",
                         "suggest": "1"})
    pool_id = re.findall(r'id="pool-(\d+)"', org.get("/pools/").get_data(as_text=True))[-1]
    org.post(f"/pools/{pool_id}/assign", {"assessors": ["as1"], "overlap": "0"})
    with web_store.transaction() as session:
        labels = dict(session.execute(select(Nugget.id, Nugget.label)).all())
    judged = 0
    while True:
        page = as1.get(f"/judge/{pool_id}/{TOPIC}").get_data(as_text=True)
        found = re.search(r'<blockquote class="response cjk" lang="zh-Hans">([^<]*)</blockquote>', page)
        if found is None:
            break
        pre = {labels[int(n)] for n in re.findall(r'name="nugget" value="(\d+)" checked', page)}
        # BINARIZED by hand: the share of a nugget's characters in the response must be above 0.5.
        expected = {"甲型流感病毒引起的": {"N001"}, "禽类传染病": {"N002"}, "天气晴": set(),
                    "病毒可以传染给人": {"N002", "N003"}}[found.group(1)]  # 传染病: 3 of 5 characters
        assert pre == expected, found.group(1)
        action = re.search(r'action="(/judge/\d+/[^/]+/\d+)"', page).group(1)
        # The assessor takes the suggestion except on the last response, where they tick nothing.
        ticked = [] if found.group(1) == "病毒可以传染给人" else re.findall(r'name="nugget" value="(\d+)" checked', page)
        as1.post(action, {"action": "save", "nugget": ticked})
        judged += 1
    assert judged == 4
    page = org.get(f"/pools/{pool_id}/disputes").get_data(as_text=True)
    assert "10 of 12 judgments" in page  # 4 items x 3 nuggets; two differ from the suggestion
