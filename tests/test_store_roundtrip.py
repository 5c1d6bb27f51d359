"""Import then export gives the same content, for every format, on SQLite and PostgreSQL."""
from __future__ import annotations

import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import func, select

from sepia.formats import model
from sepia.formats.read import read_bytes
from sepia.formats.write import to_xml
from sepia.store.errors import ImportRefused
from sepia.store.exchange.gold import export_gold, import_gold
from sepia.store.exchange.judgments import export_judgments, import_judgments
from sepia.store.exchange.runs import export_run, import_run
from sepia.store.exchange.topics import export_topics, import_topics
from sepia.store.wipe import delete_all
from sepia.vocab import nugget_key
from sepia.store import models as db

# Text mixing scripts: ASCII, CJK, kana, hangul, astral-plane ideographs and emoji. XML 1.0 cannot
# carry most control characters, and line ends are normalised by every XML parser, so those stay out.
SCRIPT_CHARS = st.sampled_from(list(string.ascii_letters + string.digits + " .,;-'\"&<>")
                               + list("北京禽流感選挙管理委員会ひらがなカタカナ한국어𠮷𩸽😀𝐀"))
text = st.text(SCRIPT_CHARS, min_size=1, max_size=60)
long_text = st.one_of(text, text.map(lambda s: (s * (20_000 // len(s) + 1))[:20_000]))  # 20,000 characters
optional_score = st.one_of(st.none(), st.floats(-1e6, 1e6, allow_nan=False).map(lambda x: round(x, 6)))
LANG = "CS"


def topic_ids(n):
    return [f"ACLIA2-{LANG}-{i:04d}" for i in range(1, n + 1)]


@st.composite
def cclqa_runs(draw):
    ids = topic_ids(draw(st.integers(0, 3)))
    topics = []
    for topic_id in ids:
        answers = [model.Answer(rank, draw(long_text), draw(st.lists(st.text(string.ascii_uppercase, min_size=1,
                                                                               max_size=8), max_size=3)))
                   for rank in range(1, draw(st.integers(0, 3)) + 1)]
        topics.append(model.CCLQATopic(topic_id, answers))
    ir4qa = draw(st.one_of(st.none(), st.just("TEAM_B-EN-CS-02-D")))
    return model.CCLQARun(model.Metadata("TEAM_A-EN-CS-01-T", draw(text), ir4qa), topics)


@st.composite
def ir4qa_runs(draw):
    topics = [model.IR4QATopic(t, [model.RetrievedDoc(rank, f"DOC-{rank}-{draw(st.integers(0, 99))}",
                                                      draw(optional_score))
                                   for rank in range(1, draw(st.integers(0, 5)) + 1)])
              for t in topic_ids(draw(st.integers(0, 3)))]
    return model.IR4QARun(model.Metadata("TEAM-CS-CS-03-DN", draw(text)), topics)


@st.composite
def qa_runs(draw):
    topics = [model.QATopic(t, [model.KeyTerm(draw(text), draw(st.sampled_from([None, "CS", "EN"])),
                                              draw(optional_score)) for _ in range(draw(st.integers(0, 3)))],
                            [model.AnswerTypeScore(draw(st.sampled_from(["PERSON", "WHY", "DEFINITION"])),
                                                   draw(optional_score)) for _ in range(draw(st.integers(1, 2)))])
              for t in topic_ids(draw(st.integers(0, 3)))]
    return model.QARun(model.Metadata("T1-EN-CS-01-T", draw(text)), topics)


@st.composite
def topic_sets(draw):
    topics = [model.Topic(t, [model.LangText(LANG, draw(text)), model.LangText("EN", draw(text))],
                          [model.LangText("EN", draw(text))] if draw(st.booleans()) else [],
                          draw(st.sampled_from(["EVENT", "PERSON", None])),
                          draw(st.sampled_from(["in_progress", "completed"])),
                          draw(st.one_of(st.none(), text)))
              for t in topic_ids(draw(st.integers(0, 3)))]
    return model.TopicSet(topics, LANG)


@st.composite
def gold_standards(draw):
    topics = []
    for topic_id in topic_ids(draw(st.integers(0, 3))):
        nuggets = []
        texts = draw(st.lists(text, max_size=4, unique_by=nugget_key))  # a topic's nuggets are unique
        for i, nugget_text in enumerate(texts):
            if draw(st.booleans()):
                votes = [(f"a{k}", draw(st.booleans())) for k in range(draw(st.integers(1, 4)))]
                counts = (None, None)
            else:
                votes = []
                voters = draw(st.integers(0, 5))
                counts = (draw(st.integers(0, voters)), voters)
            nuggets.append(model.GoldNugget(f"N{i:03d}", nugget_text, draw(st.sampled_from([0.25, 1.0, 0.3333])),
                                            draw(st.lists(st.sampled_from(["D1", "D2", "D3"]), unique=True)),
                                            votes, *counts))
        topics.append(model.GoldTopic(topic_id, draw(st.sampled_from(["WHY", "DATE"])),
                                      [model.LangText(LANG, draw(text))], nuggets))
    return model.GoldStandard(LANG, topics)


def _through_xml(obj):
    """The object as a reader sees it after writing: what an import receives."""
    kinds = {model.TopicSet: "topic", model.GoldStandard: "gold", model.QARun: "qa", model.IR4QARun: "ir4qa",
             model.CCLQARun: "cclqa"}
    return read_bytes(to_xml(obj), kinds[type(obj)])


def _roundtrip(store, obj, export):
    obj = _through_xml(obj)
    with store.transaction() as session:
        delete_all(session)
    with store.transaction() as session:
        if isinstance(obj, model.TopicSet):
            import_topics(session, obj)
        elif isinstance(obj, model.GoldStandard):
            import_gold(session, obj)
        else:
            import_run(session, obj)
    with store.transaction() as session:
        exported = export(session)
    assert exported == obj
    assert to_xml(exported) == to_xml(obj)


SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@SETTINGS
@given(run=cclqa_runs())
def test_cclqa_run_roundtrip(store, run):
    _roundtrip(store, run, lambda s: export_run(s, run.run_id))


@SETTINGS
@given(run=ir4qa_runs())
def test_ir4qa_run_roundtrip(store, run):
    _roundtrip(store, run, lambda s: export_run(s, run.metadata.run_id, "ir4qa"))


@SETTINGS
@given(run=qa_runs())
def test_qa_run_roundtrip(store, run):
    _roundtrip(store, run, lambda s: export_run(s, run.metadata.run_id, "qa"))


@SETTINGS
@given(topic_set=topic_sets())
def test_topic_roundtrip(store, topic_set):
    _roundtrip(store, topic_set, lambda s: export_topics(s, LANG))


@SETTINGS
@given(gold=gold_standards())
def test_gold_roundtrip(store, gold):
    # A topic without nuggets is not part of an exported gold standard.
    expected = model.GoldStandard(gold.lang, [t for t in gold.topics if t.nuggets])
    obj = _through_xml(gold)
    with store.transaction() as session:
        delete_all(session)
    with store.transaction() as session:
        import_gold(session, obj)
    with store.transaction() as session:
        assert export_gold(session, LANG) == _through_xml(expected)


def test_long_astral_response_is_stored_whole(store):
    answer = "𠮷😀北京" * 5000 + "end"
    run = model.CCLQARun(model.Metadata("T-CS-CS-01-T"), [model.CCLQATopic("X-CS-1", [model.Answer(1, answer)])])
    with store.transaction() as session:
        import_run(session, run)
    with store.transaction() as session:
        stored = session.scalar(select(db.Response.text))
        assert stored == answer and len(stored) == 20003


def test_judgments_roundtrip_and_unknown_references_write_nothing(store):
    gold = model.GoldStandard("CS", [model.GoldTopic("X-CS-1", "WHY", [], [
        model.GoldNugget("N1", "甲", votes=[("a", True)]), model.GoldNugget("N2", "乙", votes=[("a", False)])])])
    run = model.CCLQARun(model.Metadata("T-CS-CS-01-T"), [model.CCLQATopic("X-CS-1", [
        model.Answer(1, "甲"), model.Answer(2, "乙")])])
    judgments = [model.Judgment("X-CS-1", "T-CS-CS-01-T", 1, "N1", True, "a"),
                 model.Judgment("X-CS-1", "T-CS-CS-01-T", 2, "N2", False, "a"),
                 model.Judgment("X-CS-1", "T-CS-CS-01-T", 2, "N2", True, "b")]
    with store.transaction() as session:
        import_gold(session, gold)
        import_run(session, run)
        import_judgments(session, judgments)
    with store.transaction() as session:
        assert sorted(export_judgments(session), key=str) == sorted(judgments, key=str)
    bad = [model.Judgment("X-CS-1", "T-CS-CS-01-T", 1, "N1", False, "c"),
           model.Judgment("X-CS-1", "T-CS-CS-01-T", 9, "N9", True, "c")]
    with pytest.raises(ImportRefused) as refused:
        with store.transaction() as session:
            import_judgments(session, bad)
    assert any("answer 9" in r for r in refused.value.reasons) and any("N9" in r for r in refused.value.reasons)
    with store.transaction() as session:
        assert session.scalar(select(func.count()).select_from(db.NuggetJudgment)) == 3


def test_a_stored_run_is_refused_twice_and_the_store_is_unchanged(store):
    run = model.CCLQARun(model.Metadata("T-CS-CS-01-T"), [model.CCLQATopic("X-CS-1", [model.Answer(1, "甲")])])
    with store.transaction() as session:
        import_run(session, run)
    with pytest.raises(ImportRefused, match="already stored"):
        with store.transaction() as session:
            import_run(session, run)
    with store.transaction() as session:
        assert session.scalar(select(func.count()).select_from(db.Response)) == 1
