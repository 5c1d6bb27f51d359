"""What validates imports, on SQLite and PostgreSQL: the schemas and checks refuse any value longer
than its column (or an integer beyond INTEGER) with PATH:LINE:COLUMN, values at the limits import,
and imports of more topics than PostgreSQL takes bind parameters work."""
from __future__ import annotations

import pytest
from lxml import etree
from sqlalchemy import Integer, String

from sepia import limits
from sepia.formats import model
from sepia.formats.judgments import HEADER
from sepia.formats.validate import validate_file
from sepia.formats.write import to_xml
from sepia.resources import resource_dir
from sepia.store.exchange import topics as stored_topics
from sepia.store.errors import ImportRefused
from sepia.store.exchange.gold import export_gold, import_gold
from sepia.store.exchange.judgments import export_judgments, import_judgments
from sepia.store.exchange.runs import export_run, import_run
from sepia.store.exchange.topics import export_topics, import_topics
from sepia.store import models as db

XS = "{http://www.w3.org/2001/XMLSchema}"
# The column names whose length a limit gives, wherever they appear, and the schemas' types.
COLUMN_LIMITS = {"topic_id": limits.TOPIC_ID, "docid": limits.DOCID, "assessor": limits.ASSESSOR,
                 "run_id": limits.RUN_ID, "ir4qa_run": limits.RUN_ID}
SCHEMA_TYPES = {"TopicId": ("maxLength", limits.TOPIC_ID), "RunId": ("maxLength", limits.RUN_ID),
                "DocId": ("maxLength", limits.DOCID), "NuggetId": ("maxLength", limits.NUGGET_ID),
                "Assessor": ("maxLength", limits.ASSESSOR), "Rank": ("maxInclusive", limits.INTEGER),
                "Count": ("maxInclusive", limits.INTEGER)}


def test_the_limits_are_the_store_columns_and_the_schema_facets():
    checked = 0
    for table in db.Base.metadata.tables.values():
        for column in table.columns:
            if column.name in COLUMN_LIMITS and isinstance(column.type, String):
                assert column.type.length == COLUMN_LIMITS[column.name], f"{table.name}.{column.name}"
                checked += 1
    assert checked >= 10
    assert db.Topic.__table__.c.id.type.length == limits.TOPIC_ID
    assert db.Nugget.__table__.c.label.type.length == limits.NUGGET_ID
    assert db.Run.__table__.c.team.type.length == limits.TEAM
    for column in (db.Response.rank, db.RetrievedDocument.rank, db.Nugget.vital_count, db.Nugget.voter_count):
        assert type(column.type) is Integer  # 32 bits on PostgreSQL
    for xsd in sorted(resource_dir("schemas").glob("*.xsd")):
        for simple_type in etree.parse(str(xsd)).iter(f"{XS}simpleType"):
            facet, limit = SCHEMA_TYPES.get(simple_type.get("name"), (None, None))
            if facet:
                assert int(simple_type.find(f".//{XS}{facet}").get("value")) == limit, (xsd.name, facet)


RUN = ('<TOPIC_SET>\n<METADATA><RUNID>{run_id}</RUNID><DESCRIPTION>d</DESCRIPTION>{ir4qa}</METADATA>\n'
       '{topic}\n</TOPIC_SET>')
TOPIC_ID = "X-CS-" + "1" * (limits.TOPIC_ID - 4)  # one character too long
TEAM = "T" * (limits.TEAM + 1)


def cclqa(topic_id="X-CS-1", docid="D1", run_id="T-CS-CS-01-T", ir4qa=""):
    topic = (f'<TOPIC ID="{topic_id}"><CCLQA_RESULT><ANSWER RANK="1"><TEXT>a</TEXT><DOCID>{docid}</DOCID></ANSWER>'
             '</CCLQA_RESULT></TOPIC>')
    return RUN.format(run_id=run_id, ir4qa=ir4qa, topic=topic)


def gold(nugget='ID="N1"', vote="a", source="D1"):
    return (f'<TOPIC_SET LANG="CS">\n<TOPIC ID="X-CS-1" ANSWER_TYPE="WHY">\n<NUGGET {nugget}><TEXT>t</TEXT>'
            f'<SOURCE DOCID="{source}"/><VOTE ASSESSOR="{vote}" VITAL="1"/></NUGGET>\n</TOPIC>\n</TOPIC_SET>')


def judgments(topic_id="X-CS-1", run_id="T-CS-CS-01-T", nugget_id="N1", assessor="a"):
    return "\t".join(HEADER) + f"\n{topic_id}\t{run_id}\t1\t{nugget_id}\t1\t{assessor}\n"


@pytest.mark.parametrize("name, content, where, message", [
    ("topics.xml", f'<TOPIC_SET>\n<TOPIC ID="{TOPIC_ID}"><QUESTION LANG="CS">q</QUESTION></TOPIC>\n</TOPIC_SET>',
     ":2:1:", "maxLength"),
    ("run.xml", cclqa(topic_id=TOPIC_ID), ":3:1:", "maxLength"),
    ("run.xml", cclqa(docid="D" * (limits.DOCID + 1)), ":3:", "maxLength"),
    ("run.xml", cclqa(run_id=f"{TEAM}-CS-CS-01-T"), ":2:11:",
     f"the run ID's TEAM part is {limits.TEAM + 1} characters long; the store holds at most {limits.TEAM}"),
    ("run.xml", cclqa(run_id="T" * limits.RUN_ID + "-CS-CS-01-T"), ":2:11:", "maxLength"),
    ("run.xml", cclqa(ir4qa=f"<IR4QA_RUNID>{'T' * limits.RUN_ID}-CS-CS-01-T</IR4QA_RUNID>"), ":2:", "maxLength"),
    ("gold.xml", gold(nugget=f'ID="{"N" * (limits.NUGGET_ID + 1)}"'), ":3:1:", "maxLength"),
    ("gold.xml", gold(nugget=f'ID="N1" VITAL_VOTES="{limits.INTEGER + 1}"'), ":3:1:", "maxInclusive"),
    ("gold.xml", gold(vote="a" * (limits.ASSESSOR + 1)), ":3:", "maxLength"),
    ("gold.xml", gold(source="D" * (limits.DOCID + 1)), ":3:", "maxLength"),
    ("j.tsv", judgments(topic_id=TOPIC_ID), ":2:1:", f"topic_id is {limits.TOPIC_ID + 1} characters long"),
    ("j.tsv", judgments(run_id="R" * (limits.RUN_ID + 1)), ":2:8:", "run_id is 201 characters long"),
    ("j.tsv", judgments(nugget_id="N" * (limits.NUGGET_ID + 1)), ":2:23:", "nugget_id is 65 characters long"),
    ("j.tsv", judgments(assessor="a" * (limits.ASSESSOR + 1)), ":2:28:",
     f"assessor is {limits.ASSESSOR + 1} characters long; the store holds at most {limits.ASSESSOR}"),
])
def test_validate_refuses_what_the_store_cannot_hold(tmp_path, name, content, where, message):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    obj, problems = validate_file(path)
    assert obj is None and any(f"{path}{where}" in str(p) and message in str(p) for p in problems), problems


def test_values_at_the_limits_validate_and_import(store, tmp_path):
    topic_id = "X-CS-" + "1" * (limits.TOPIC_ID - 5)
    run_id = "T" * limits.TEAM + "-CS-CS-01-T"
    docid, assessor, nugget_id = "D" * limits.DOCID, "a" * limits.ASSESSOR, "N" * limits.NUGGET_ID
    nuggets = [model.GoldNugget(nugget_id, "甲", 1.0, [docid], [(assessor, True)]),
               model.GoldNugget("N2", "乙", 1.0, [], [], limits.INTEGER, limits.INTEGER)]
    objects = [
        model.TopicSet([model.Topic(topic_id, [model.LangText("CS", "问"), model.LangText("EN", "q")])], "CS"),
        model.GoldStandard("CS", [model.GoldTopic(topic_id, "WHY", [], nuggets)]),
        model.CCLQARun(model.Metadata(run_id, "", "R" * (limits.RUN_ID - 11) + "-CS-CS-01-T"), [
            model.CCLQATopic(topic_id, [model.Answer(1, "甲", [docid])])]),
        model.IR4QARun(model.Metadata(run_id), [model.IR4QATopic(topic_id, [model.RetrievedDoc(1, docid)])]),
    ]
    for i, obj in enumerate(objects):
        path = tmp_path / f"{i}.xml"
        path.write_bytes(to_xml(obj))
        assert validate_file(path) == (obj, [])
    judgment = model.Judgment(topic_id, run_id, 1, nugget_id, True, assessor)
    with store.transaction() as session:
        import_topics(session, objects[0])
        import_gold(session, objects[1])
        import_run(session, objects[2])
        import_run(session, objects[3])
        import_judgments(session, [judgment])
    with store.transaction() as session:
        assert export_gold(session, "CS").topics[0].nuggets == nuggets
        assert export_run(session, run_id) == objects[2]
        assert export_run(session, run_id, "ir4qa") == objects[3]
        assert export_judgments(session) == [judgment]


@pytest.mark.slow
def test_imports_of_more_topics_than_postgresql_takes_parameters(store):
    topics = model.TopicSet([model.Topic(f"X-CS-{i}", [model.LangText("CS", "问")]) for i in range(70_000)], "CS")
    with store.transaction() as session:
        import_topics(session, model.TopicSet(topics.topics[-1:], "CS"))
    with pytest.raises(ImportRefused, match="topic X-CS-69999 already exists"):
        with store.transaction() as session:
            import_topics(session, topics)


def test_existing_topics_are_found_across_chunks(store, monkeypatch):
    monkeypatch.setattr(stored_topics, "CHUNK", 3)
    topics = model.TopicSet([model.Topic(f"X-CS-{i}", [model.LangText("CS", "问")], status="completed")
                             for i in range(10)], "CS")
    with store.transaction() as session:
        import_topics(session, topics)
    with pytest.raises(ImportRefused) as refused:
        with store.transaction() as session:
            import_topics(session, topics)
    assert len(refused.value.reasons) == 10
    topics.topics[7].questions[0].text = "新"
    with store.transaction() as session:
        import_topics(session, topics, replace=True)
    with store.transaction() as session:
        assert export_topics(session, "CS") == topics
