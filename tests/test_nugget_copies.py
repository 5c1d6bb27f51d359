"""A topic's nuggets are unique after NFKC and white-space folding (issue 33): a copy is refused where
nuggets are added (the nugget page, a gold standard file), and the copies a store holds from before are
merged into the first, keeping every vote and judgment (SQLite and PostgreSQL)."""
from __future__ import annotations

import io

from click.testing import CliRunner
from sqlalchemy import select

from campaign_helpers import run_xml
from web_helpers import browser_for, make_topic

from sepia.cli import main
from sepia.formats.read import read_bytes
from sepia.store.exchange.gold import export_gold
from sepia.store.exchange.runs import import_run
from sepia.store import nugget_copies
from sepia.store.models import (ControlItem, JudgingPlan, Nugget, NuggetJudgment, PlanNugget, Pool, Response, Topic,
                                TopicText, Vote)
from sepia.vocab import nugget_key

TOPIC = "ACLIA2-CS-0001"


def test_the_key_folds_nfkc_and_white_space():
    assert nugget_key(" 甲型　流感\n病毒 ＷＨＯ ") == "甲型 流感 病毒 WHO" == nugget_key("甲型 流感 病毒 WHO")
    assert nugget_key("WHO") != nugget_key("who")  # case is kept: not a copy


def _campaign(session):
    """One topic with N001 and N003 copies of each other (full-width, doubled space), votes and
    judgments on both, a control item expecting both; a CCLQA run of two responses."""
    topic = Topic(id=TOPIC, lang="CS", answer_type="DEFINITION", status="completed",
                  texts=[TopicText(kind="question", lang="CS", text="什么是禽流感？", position=0)])
    topic.nuggets = [Nugget(label="N001", text="甲型流感病毒 ＷＨＯ", position=0),
                     Nugget(label="N002", text="禽类传染病", position=1),
                     Nugget(label="N003", text="甲型流感病毒  WHO", position=2)]
    session.add(topic)
    import_run(session, read_bytes(run_xml("cclqa", "TEAMX-CS-CS-01-T", {TOPIC: ["甲", "乙"]})))
    session.flush()
    n1, n2, n3 = topic.nuggets
    session.add_all([Vote(nugget_id=n1.id, assessor="as1", vital=False), Vote(nugget_id=n3.id, assessor="as1", vital=True),
                     Vote(nugget_id=n3.id, assessor="as2", vital=True), Vote(nugget_id=n2.id, assessor="as2", vital=False),
                     Vote(nugget_id=n2.id, assessor="as1", vital=True), Vote(nugget_id=n1.id, assessor="as3", vital=False)])
    first, second = session.scalars(select(Response.id).order_by(Response.rank)).all()
    session.add_all([NuggetJudgment(response_id=first, nugget_id=n1.id, assessor="as1", match=0.0),
                     NuggetJudgment(response_id=first, nugget_id=n3.id, assessor="as1", match=1.0),
                     NuggetJudgment(response_id=second, nugget_id=n3.id, assessor="as2", match=0.5),
                     NuggetJudgment(response_id=second, nugget_id=n2.id, assessor="as2", match=1.0)])
    session.add(ControlItem(kind="cclqa", topic_id=TOPIC, response_id=first, expected=f"{n1.id} {n3.id} {n2.id}"))
    # Item plans that sampled the copy: one with the first as well (the copy's row goes), one without (it moves);
    # one of a sample per response: the same within each response (run R1 both, R2 the copy, R3 the first)
    for name, pairs in (("both", [(None, "N001"), (None, "N003")]), ("copy", [(None, "N003")]),
                        ("own", [("R1", "N001"), ("R1", "N003"), ("R2", "N003"), ("R3", "N001")])):
        pool = Pool(name=name, kind="cclqa", depth=1)
        session.add(pool)
        session.flush()
        session.add(JudgingPlan(pool_id=pool.id, budget="1", seed=1, unit="items", nuggets=[
            PlanNugget(topic_id=TOPIC, run_id=run_id, label=label, probability=0.5) for run_id, label in pairs]))
    session.flush()
    return n1.id, n2.id, n3.id, first, second


def test_copies_are_listed_and_merged_keeping_votes_and_judgments(store):
    with store.transaction() as session:
        n1, n2, n3, first, second = _campaign(session)
    with store.transaction() as session:
        [copies] = nugget_copies.find_copies(session)
        assert (copies.topic_id, copies.keep.label, [n.label for n in copies.others]) == (TOPIC, "N001", ["N003"])
        [(_, moved)] = nugget_copies.merge_all(session, [TOPIC])
        assert moved == {"votes": 2, "judgments": 2}
    with store.transaction() as session:
        assert session.scalars(select(Nugget.label).order_by(Nugget.position)).all() == ["N001", "N002"]
        votes = session.execute(select(Vote.nugget_id, Vote.assessor, Vote.vital).order_by(Vote.nugget_id, Vote.assessor)).all()
        # as1 voted on both copies (no, yes): one vote, vital; as2's vote moves; N002's stay.
        assert votes == sorted([(n1, "as1", True), (n1, "as2", True), (n1, "as3", False),
                                (n2, "as1", True), (n2, "as2", False)])
        judged = session.execute(select(NuggetJudgment.response_id, NuggetJudgment.nugget_id, NuggetJudgment.assessor,
                                        NuggetJudgment.match).order_by(NuggetJudgment.response_id, NuggetJudgment.nugget_id)).all()
        # as1 judged the first response against both copies (0, 1): the higher; as2's partial moves.
        assert judged == sorted([(first, n1, "as1", 1.0), (second, n1, "as2", 0.5), (second, n2, "as2", 1.0)])
        assert session.scalar(select(ControlItem.expected)) == f"{n1} {n2}"
        planned = session.execute(select(Pool.name, PlanNugget.run_id, PlanNugget.label)
                                  .join(JudgingPlan, JudgingPlan.pool_id == Pool.id)
                                  .join(PlanNugget, PlanNugget.plan_id == JudgingPlan.id)
                                  .order_by(Pool.name, PlanNugget.run_id)).all()
        assert sorted(planned, key=str) == sorted([("both", None, "N001"), ("copy", None, "N001"), ("own", "R1", "N001"),
                                                   ("own", "R2", "N001"), ("own", "R3", "N001")], key=str)
        # The pyramid weights of the merged gold: N001 vital for 2 of 3 voters, N002 for 1: 1 and 0.5.
        [topic] = export_gold(session).topics
        assert [(n.nugget_id, n.weight) for n in topic.nuggets] == [("N001", 1.0), ("N002", 0.5)]
        assert nugget_copies.find_copies(session) == []


def test_the_nugget_page_refuses_a_copy_naming_the_first(app, web_store):
    make_topic(web_store, TOPIC, answers=[("XIN_CMN_20080101.0001", 8, 29)], nuggets=["甲型流感病毒"])
    dev = browser_for(app, "org")
    page = dev.get(f"/nuggets/{TOPIC}").get_data(as_text=True)
    answer_id = page.split('name="answer_ids" value="')[1].split('"')[0]
    copy = dev.post(f"/nuggets/{TOPIC}", {"text": "\u3000甲型流感病毒 ", "answer_ids": answer_id})
    assert copy.status_code == 422 and "N001 says this already (“甲型流感病毒”)" in copy.get_data(as_text=True)
    added = dev.post(f"/nuggets/{TOPIC}", {"text": "禽类传染病", "answer_ids": answer_id})
    assert added.status_code == 302
    with web_store.transaction() as session:
        second = session.scalar(select(Nugget).where(Nugget.label == "N002"))
        second_id, version = second.id, second.version
    edit = dev.post(f"/nuggets/{TOPIC}/{second_id}", {"text": "甲型流感病毒", "answer_ids": answer_id, "version": version})
    assert edit.status_code == 422 and "N001 says this already" in edit.get_data(as_text=True)
    with web_store.transaction() as session:
        assert session.scalars(select(Nugget.text).order_by(Nugget.position)).all() == ["甲型流感病毒", "禽类传染病"]


def test_the_organiser_merges_the_copies_a_store_holds_from_the_nugget_list(app, web_store):
    with web_store.transaction() as session:
        n1, _n2, _n3, _first, _second = _campaign(session)
    org = browser_for(app, "org")
    listed = org.get("/nuggets/").get_data(as_text=True)
    assert 'id="copies"' in listed and "Merge into N001" in listed and "N003" in listed
    assert 'id="copies"' not in browser_for(app, "dev").get("/nuggets/").get_data(as_text=True)  # organisers merge
    assert browser_for(app, "dev").post(f"/nuggets/{TOPIC}/merge").status_code == 403
    merged = org.post(f"/nuggets/{TOPIC}/merge", follow_redirects=True).get_data(as_text=True)
    assert f"{TOPIC}: N003 merged into N001 (2 vote(s) and 2 judgment(s) moved or folded)." in merged
    assert 'id="copies"' not in merged
    with web_store.transaction() as session:
        assert session.scalars(select(Vote.nugget_id).where(Vote.assessor == "as2", Vote.nugget_id == n1)).all() == [n1]


def test_a_gold_standard_with_a_copy_is_refused_by_validate_and_import(tmp_path, on_store):
    gold = ('<?xml version="1.0" encoding="UTF-8"?>\n<TOPIC_SET LANG="CS"><TOPIC ID="ACLIA2-CS-0001" ANSWER_TYPE="DEFINITION">'
            '<QUESTION LANG="CS">什么是禽流感？</QUESTION>'
            '<NUGGET ID="N001"><TEXT>甲型流感病毒</TEXT></NUGGET><NUGGET ID="N002"><TEXT> 甲型流感病毒 </TEXT></NUGGET>'
            '</TOPIC></TOPIC_SET>\n')
    path = tmp_path / "gold.xml"
    path.write_text(gold, encoding="utf-8")
    message = "topic ACLIA2-CS-0001: nugget N002 has the text of nugget N001"
    for command in (["validate", str(path)], ["import", str(path)]):
        result = CliRunner().invoke(main, command)
        assert result.exit_code != 0 and message in result.output, (command, result.output)
    assert "nugget" not in io.StringIO(CliRunner().invoke(main, ["export", "gold"]).output).read().lower()


def test_sepia_gold_copies_lists_and_merges(store, on_store):
    with store.transaction() as session:
        _campaign(session)
    runner = CliRunner()
    listed = runner.invoke(main, ["gold", "copies"])
    assert listed.exit_code == 1 and f"{TOPIC}: N003 copy N001 (甲型流感病毒 ＷＨＯ)" in listed.stdout, listed.output
    merged = runner.invoke(main, ["gold", "copies", "--merge", "--topic", TOPIC])
    assert merged.exit_code == 0 and f"{TOPIC}: N003 merged into N001 (2 vote(s) and 2 judgment(s)" in merged.stdout
    again = runner.invoke(main, ["gold", "copies"])
    assert again.exit_code == 0 and again.stdout == "" and "0 group(s) of copies." in again.output
