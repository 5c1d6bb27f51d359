"""Control items (issue 24): adjudicated items with a known answer, mixed blind into a pool's queues,
answered right or wrong, accuracy with a Wilson interval and a flag; they never change a run's score,
a pool's export or its disputes. On SQLite and PostgreSQL."""
from __future__ import annotations

import pytest
from sqlalchemy import select
from statsmodels.stats.proportion import proportion_confint

from web_helpers import make_topic

from sepia.formats import model
from sepia.services.scores import score_stored_runs
from sepia.store import controls, disputes, judging
from sepia.store.errors import ImportRefused
from sepia.store.exchange.runs import import_run
from sepia.store.wipe import delete_all
from sepia.store.models import Assignment, ControlAnswer, ControlItem, Nugget, PoolEntry, Topic
from sepia.store.pools import assign_pool, build_pool, get_pool, pool_rows
from sepia.store.item_view import read_queue
from tests.helpers import accounts

DRY, FORMAL = "ACLIA2-CS-0001", "ACLIA2-CS-0002"
RUNS = {"TEAMA-CS-CS-01-T": {DRY: ["甲乙", "乙"], FORMAL: ["丙", "戊"]},
        "TEAMB-CS-CS-01-T": {DRY: ["甲"], FORMAL: ["丁丙"]}}


def _retire(session, topic_id, retired=True):
    session.get(Topic, topic_id).retired = retired


def _nuggets(session, topic_id):
    return session.scalars(select(Nugget.id).where(Nugget.topic_id == topic_id).order_by(Nugget.position)).all()


def _judge_all(session, pool_name, marks):
    """Every assignment of the pool judged: `marks(assessor, text)` -> the nugget positions matched."""
    pool = get_pool(session, pool_name)
    for a in session.scalars(select(Assignment).join(PoolEntry).where(PoolEntry.pool_id == pool.id,
                                                                       PoolEntry.control_id.is_(None))):
        nuggets = _nuggets(session, a.entry.topic_id)
        judging.save_nugget_judgment(session, a, nuggets, {nuggets[i] for i in marks(a.assessor, a.entry.members[0].text)})


def two_topics_and_runs(store):
    """A dry-run topic and a formal one, with nuggets, and two teams' CCLQA runs answering both."""
    make_topic(store, DRY, nuggets=["甲", "乙"])
    make_topic(store, FORMAL, nuggets=["丙", "丁"])
    with store.transaction() as session:
        for run_id, topics in RUNS.items():
            import_run(session, model.CCLQARun(model.Metadata(run_id), [
                model.CCLQATopic(t, [model.Answer(i + 1, text) for i, text in enumerate(texts)])
                for t, texts in topics.items()]))


@pytest.fixture
def campaign(store):
    two_topics_and_runs(store)
    with store.transaction() as session:
        # the dry run: DRY judged twice, the item 甲乙 disputed and adjudicated
        _retire(session, FORMAL)
        build_pool(session, "dry", "cclqa", 30)
        accounts(session, "as1", "as2")
        assign_pool(session, "dry", ["as1", "as2"], overlap=1.0)
        _judge_all(session, "dry", lambda a, text: [i for i, n in enumerate("甲乙") if n in text][: 1 if a == "as1" else 2])
        entry = next(d.entry for d in disputes.disputes(session, get_pool(session, "dry")))
        nuggets = _nuggets(session, DRY)
        disputes.adjudicate(session, entry, nuggets, set(nuggets))
        # the formal run: FORMAL only, as1 alone
        _retire(session, FORMAL, False)
        _retire(session, DRY)
        build_pool(session, "formal", "cclqa", 30)
        assign_pool(session, "formal", ["as1"])
        _judge_all(session, "formal", lambda a, text: [i for i, n in enumerate("丙丁") if n in text])
        _retire(session, DRY, False)
    return store, entry.id


def _scores(store):
    return [(r.run_id, r.score, [(t.topic_id, t.f) for t in r.topics])
            for r in score_stored_runs(store, {"matcher": "human"}, save=False)]


def test_control_items_never_change_a_score_an_export_or_the_disputes(campaign):
    store, dry_item = campaign
    before = _scores(store)
    with store.transaction() as session:
        formal = get_pool(session, "formal")
        exported, disputed = pool_rows(session, "formal"), len(disputes.disputes(session, formal))
        control = controls.mark_control(session, session.get(PoolEntry, dry_item), "甲乙 names both 甲 and 乙", "org")
        assert control.expected == controls.nugget_answer(_nuggets(session, DRY))
        assert controls.mix_controls(session, formal, 0.5) == 1  # as1: 3 items, one control item exists
        assert controls.mix_controls(session, formal, 0.5) == 0  # mixing again adds nothing
        [placed] = session.scalars(select(Assignment).join(PoolEntry).where(PoolEntry.control_id == control.id)).all()
        _pool, queue = read_queue(session.connection(), "as1", formal.id, DRY)
        assert [a.id for a in queue] == [placed.id]  # in as1's queue, under its topic, like any item
        wrong = controls.answer_control(session, placed, controls.nugget_answer(_nuggets(session, DRY)[:1]))
        assert not wrong.correct and placed.judged_at is not None
        assert pool_rows(session, "formal") == exported and len(disputes.disputes(session, formal)) == disputed
        assert assign_pool(session, "formal", ["as1"]) == 0  # a control item is not a pool item to share out
    assert _scores(store) == before
    with store.transaction() as session:
        [row] = controls.accuracy(session, threshold=0.8)
        assert (row.assessor, row.answered, row.correct, row.flagged) == ("as1", 1, 0, True)
        assert (row.low, row.high) == pytest.approx(proportion_confint(0, 1, method="wilson"))
        placed = session.scalar(select(Assignment).join(PoolEntry).where(PoolEntry.control_id.is_not(None)))
        right = controls.answer_control(session, placed, controls.nugget_answer(reversed(_nuggets(session, DRY))))
        assert right.correct and session.query(ControlAnswer).count() == 1  # the answer is replaced
        feedback = controls.feedback(session, right.id, "as1")
        assert feedback.expected == "nugget(s) 1, 2" and feedback.reason == "甲乙 names both 甲 and 乙"
        assert controls.feedback(session, right.id, "as2") is None  # nobody else's answers
        controls.remove_control(session, session.get(ControlItem, right.control_id))
    with store.transaction() as session:
        assert session.scalar(select(PoolEntry).where(PoolEntry.control_id.is_not(None))) is None
    assert _scores(store) == before


def test_bad_control_input_gets_a_clear_message(campaign):
    store, dry_item = campaign
    with store.transaction() as session:
        undecided = session.scalar(select(PoolEntry).where(PoolEntry.id != dry_item, PoolEntry.topic_id == DRY))
        with pytest.raises(ImportRefused, match="has no expected answer: decide it"):
            controls.mark_control(session, undecided)
        decided = session.get(PoolEntry, dry_item)
        with pytest.raises(ImportRefused, match="reason is at most 2,000 characters, not 2,001"):
            controls.mark_control(session, decided, "x" * 2001)
        for rate in (1.0, -0.1):
            with pytest.raises(ValueError, match="control rate is a share"):
                controls.mix_controls(session, get_pool(session, "formal"), rate)
        for threshold in (1.5, -0.01):
            with pytest.raises(ValueError, match="flag threshold is an accuracy between 0 and 1"):
                controls.accuracy(session, threshold)


def test_a_relevance_control_expects_the_adjudicated_level(store):
    with store.transaction() as session:
        for run_id, docs in (("A-CS-CS-01-T", ["d1", "d2"]), ("B-CS-CS-01-T", ["d1"])):
            import_run(session, model.IR4QARun(model.Metadata(run_id), [
                model.IR4QATopic(DRY, [model.RetrievedDoc(i + 1, d) for i, d in enumerate(docs)])]))
        pool = build_pool(session, "ir", "ir4qa", 10)
        entry = next(e for e in pool.entries if e.docid == "d1")
        disputes.adjudicate(session, entry, level=2)
        control = controls.mark_control(session, entry, "the whole answer")
        assert (control.kind, control.expected, control.docid) == ("ir4qa", "2", "d1")
        assert controls.mark_control(session, entry, "changed").id == control.id  # one control item per item


def test_control_command_written_answers_mixing_and_accuracy(campaign, monkeypatch, store_url):
    from click.testing import CliRunner

    from sepia.cli import main

    store, dry_item = campaign
    monkeypatch.setenv("SEPIA_DATABASE_URL", store_url)
    runner = CliRunner()
    with store.transaction() as session:
        items = {e.members[0].text: e.id for e in get_pool(session, "formal").entries}
    # an item written for training: its answer given by the organiser, not adjudicated
    added = runner.invoke(main, ["control", "add", "formal", "--item", str(items["丁丙"]), "--expect", "N001 N002",
                                 "--reason", "丁丙 names both"])
    assert added.exit_code == 0 and "(cclqa, expected" in added.output, added.output
    undecided = runner.invoke(main, ["control", "add", "formal", "--item", str(items["戊"])])
    assert undecided.exit_code == 1 and "has no expected answer: decide it (adjudicate) or give the answer" in \
        undecided.output
    unknown = runner.invoke(main, ["control", "add", "formal", "--item", str(items["戊"]), "--expect", "N009"])
    assert unknown.exit_code == 1 and "N009: not a nugget of ACLIA2-CS-0002" in unknown.output
    level = runner.invoke(main, ["control", "add", "formal", "--item", str(items["戊"]), "--level", "2"])
    assert level.exit_code == 1 and "is a response: its expected answer is the nuggets it contains" in level.output
    assert runner.invoke(main, ["control", "add", "dry", "--item", str(dry_item)]).exit_code == 0  # adjudicated
    with store.transaction() as session:
        assert session.query(ControlItem).count() == 2
        expected = session.scalar(select(ControlItem.expected).where(ControlItem.reason == "丁丙 names both"))
        assert expected == controls.nugget_answer(_nuggets(session, FORMAL))
    # as2's dry-run queue has DRY's items only: the formal control item can be mixed in
    mixed = runner.invoke(main, ["control", "mix", "dry", "--rate", "0.25", "--training"])
    assert mixed.exit_code == 0 and "pool dry: 2 control item(s) mixed in (training)" in mixed.output  # 1 each
    bad_rate = runner.invoke(main, ["control", "mix", "dry", "--rate", "1"])
    assert bad_rate.exit_code == 2 and "the control rate is a share of the queue" in bad_rate.output
    bad = runner.invoke(main, ["control", "accuracy", "--threshold", "1.2"])
    assert bad.exit_code == 2 and "the flag threshold is an accuracy between 0 and 1, not 1.2" in bad.output
    assert runner.invoke(main, ["control", "accuracy", "--format", "json"]).exit_code == 0


def test_a_run_holding_a_control_item_is_not_replaced_and_nothing_is_lost(campaign):
    """Its responses' ON DELETE CASCADE would take the control item, its placements and answers along
    (and the pools' items and judgments): the replacement is refused instead (issue 34)."""
    store, dry_item = campaign
    with store.transaction() as session:
        control = controls.mark_control(session, session.get(PoolEntry, dry_item), "both")
        assert controls.mix_controls(session, get_pool(session, "formal"), 0.5) == 1
        answered = session.scalar(select(Assignment).join(PoolEntry).where(PoolEntry.control_id == control.id))
        controls.answer_control(session, answered, "")
        run_id = next(r for r, topics in RUNS.items() if "甲乙" in topics[DRY])
    with pytest.raises(ImportRefused) as refused, store.transaction() as session:  # the team uploads it again
        import_run(session, model.CCLQARun(model.Metadata(run_id), [
            model.CCLQATopic(t, [model.Answer(i + 1, text) for i, text in enumerate(texts)])
            for t, texts in RUNS[run_id].items()]), replace=True)
    assert "can no longer be replaced" in refused.value.reasons[0] and "1 control item," in refused.value.reasons[0]
    with store.transaction() as session:
        assert session.query(ControlItem).count() == 1 and session.query(ControlAnswer).count() == 1
        assert session.scalar(select(PoolEntry).where(PoolEntry.control_id.is_not(None))) is not None


def _relevance_control(session) -> Assignment:
    """d1 of DRY decided L1 in a dry pool and kept as a control item, placed in as2's queue of FORMAL."""
    for run_id, topic_id, docs in (("A-CS-CS-01-T", DRY, ["d1"]), ("B-CS-CS-01-T", FORMAL, ["d7", "d8"])):
        import_run(session, model.IR4QARun(model.Metadata(run_id), [
            model.IR4QATopic(topic_id, [model.RetrievedDoc(i + 1, d) for i, d in enumerate(docs)])]))
    dry = build_pool(session, "ir dry", "ir4qa", 10, priorities=[1])
    [entry] = [e for e in dry.entries if e.docid == "d1"]
    disputes.adjudicate(session, entry, level=1)
    controls.mark_control(session, entry, "partly")
    formal = build_pool(session, "ir formal", "ir4qa", 10)
    for e in formal.entries:
        if e.topic_id == FORMAL:
            e.assignments.append(Assignment(assessor="as2", position=0))
    session.flush()
    assert controls.mix_controls(session, formal, 0.5) == 1
    return session.scalar(select(Assignment).join(PoolEntry).where(PoolEntry.control_id.is_not(None)))


def test_a_relevance_control_item_is_answered_by_level(store):
    with store.transaction() as session:
        placed = _relevance_control(session)
        assert (placed.entry.docid, placed.entry.topic_id) == ("d1", DRY)
        assert controls.answer_control(session, placed, "1").correct
        assert not controls.answer_control(session, placed, "2").correct
        answer_id = session.scalar(select(ControlAnswer.id))
        assert controls.feedback(session, answer_id, "as2").expected == "L1"


def test_emptying_the_campaign_removes_control_items(store):
    with store.transaction() as session:
        controls.answer_control(session, _relevance_control(session), "1")
    with store.transaction() as session:
        delete_all(session)
    with store.transaction() as session:
        assert session.query(ControlItem).count() == 0 and session.query(ControlAnswer).count() == 0
