"""`sepia validate`: schemas, the checks a schema cannot express, hostile XML, exit codes."""
from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.formats import model
from sepia.formats.read import read_bytes, read_file
from sepia.formats.validate import validate_file
from sepia.formats.write import to_xml
from sepia.services.validation import missing_in_configured_store

RUN = """<?xml version="1.0" encoding="UTF-8"?>
<TOPIC_SET>
  <METADATA><RUNID>{run_id}</RUNID><DESCRIPTION>test</DESCRIPTION></METADATA>
{topics}
</TOPIC_SET>
"""


def cclqa(topics: str, run_id: str = "KECIR-CS-CS-01-T") -> str:
    return RUN.format(run_id=run_id, topics=topics)


def answer(rank, text="北京", docid="D1"):
    return f'<ANSWER RANK="{rank}"><TEXT>{text}</TEXT><DOCID>{docid}</DOCID></ANSWER>'


def problems_of(tmp_path, content: str | bytes, name="run.xml", format_name=None) -> list[str]:
    path = tmp_path / name
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    obj, problems = validate_file(path, format_name)
    return [str(p) for p in problems]


def test_a_valid_cclqa_run(tmp_path):
    text = cclqa(f'<TOPIC ID="ACLIA2-CS-0001"><CCLQA_RESULT>{answer(1)}{answer(2)}</CCLQA_RESULT></TOPIC>')
    assert problems_of(tmp_path, text) == []
    run = read_file(tmp_path / "run.xml")
    assert isinstance(run, model.CCLQARun) and [a.rank for a in run.topics[0].answers] == [1, 2]


def test_every_problem_is_reported_with_path_line_and_column(tmp_path):
    text = cclqa("\n".join([
        f'<TOPIC ID="ACLIA2-CS-0001"><CCLQA_RESULT>{answer(1)}{answer(3)}</CCLQA_RESULT></TOPIC>',
        f'<TOPIC ID="ACLIA2-CS-0001"><CCLQA_RESULT>{answer(1)}{answer(1)}</CCLQA_RESULT></TOPIC>',
        f'<TOPIC ID="ACLIA2-JA-0002"><CCLQA_RESULT>{answer(1)}</CCLQA_RESULT></TOPIC>',
        '<TOPIC ID="bad id"><CCLQA_RESULT/></TOPIC>',
    ]))
    found = problems_of(tmp_path, text)
    path = str(tmp_path / "run.xml")
    assert all(re.match(re.escape(path) + r":\d+:\d+: ", p) for p in found)
    joined = "\n".join(found)
    assert f"{path}:4:42: topic ACLIA2-CS-0001: answer ranks must run 1..2 without gaps; missing 2" in joined
    assert f"{path}:5:1: topic ACLIA2-CS-0001 appears more than once" in joined
    assert f"{path}:5:" in joined and "answer rank 1 is repeated" in joined
    assert f"{path}:6:1: topic ACLIA2-JA-0002 is a JA topic, but this file is for CS" in joined
    assert f"{path}:7:1: " in joined and "bad id" in joined


def test_run_id_must_be_well_formed_and_match_the_file_name(tmp_path):
    assert any("is not of the form TEAM-SRC-TGT-NN-X" in p
               for p in problems_of(tmp_path, cclqa("", run_id="KECIR-CS-XX-1-T"), format_name="cclqa"))
    assert any("is not of the form" in p  # JA-CS is not a language pair
               for p in problems_of(tmp_path, cclqa("", run_id="KECIR-JA-CS-01-T"), format_name="cclqa"))
    found = problems_of(tmp_path, cclqa("", run_id="KECIR-CS-CS-01-T"), name="KECIR-CS-CS-02-T.xml",
                        format_name="cclqa")
    assert any("does not match the file name" in p for p in found)


def test_a_run_id_of_only_spaces_is_not_well_formed(tmp_path):
    # The schema's minLength lets it through; read as '', it used to pass every check.
    assert any("run ID '' is not of the form TEAM-SRC-TGT-NN-X" in p
               for p in problems_of(tmp_path, cclqa("", run_id="  "), format_name="cclqa"))


def test_ir4qa_allows_at_most_1000_documents_per_topic(tmp_path):
    docs = "".join(f'<DOCUMENT RANK="{i}" DOCID="D{i}" SCORE="1.5"/>' for i in range(1, 1002))
    text = RUN.format(run_id="T-CS-CS-01-T", topics=f'<TOPIC ID="X-CS-1"><IR4QA_RESULT>{docs}</IR4QA_RESULT></TOPIC>')
    found = problems_of(tmp_path, text)
    assert len(found) == 1 and "1,001 elements in one IR4QA_RESULT, more than the 1,000 allowed" in found[0]


def test_gold_vote_counts_must_agree_with_the_votes(tmp_path):
    gold = """<TOPIC_SET LANG="CS"><TOPIC ID="X-CS-1" ANSWER_TYPE="WHY">
      <NUGGET ID="N1" VITAL_VOTES="2" VOTERS="2"><TEXT>甲</TEXT>
        <VOTE ASSESSOR="a" VITAL="1"/><VOTE ASSESSOR="b" VITAL="0"/></NUGGET>
      <NUGGET ID="N1" VITAL_VOTES="3" VOTERS="2"><TEXT>乙</TEXT></NUGGET>
      <NUGGET ID="N3"><TEXT>丙</TEXT><VOTE ASSESSOR="a" VITAL="1"/><VOTE ASSESSOR="a" VITAL="0"/></NUGGET>
    </TOPIC></TOPIC_SET>"""
    joined = "\n".join(problems_of(tmp_path, gold))
    assert "says VITAL_VOTES=2 but its VOTEs have 1 vital" in joined
    assert "nugget N1 appears more than once" in joined
    assert "VITAL_VOTES=3 but only VOTERS=2" in joined
    assert "two votes by a" in joined


@pytest.mark.parametrize("sample, before, after, message", [
    ("qa/TEAMA-CS-CS-01-T.xml", 'LANG="CS" SCORE="1.0"', 'LANG="CS" SCORE="1e"',
     "topic SEPIA-CS-0001: key term '嫦娥一号': SCORE '1e' is not a number"),
    ("qa/TEAMA-CS-CS-01-T.xml", '<ANSWER_TYPE SCORE="0.8">', '<ANSWER_TYPE SCORE="2.5e+">',
     "topic SEPIA-CS-0001: answer type 'DEFINITION': SCORE '2.5e+' is not a number"),
    ("gold.xml", 'ID="N002" WEIGHT="0.6667"', 'ID="N002" WEIGHT="1e"', "topic SEPIA-CS-0001: nugget N002: WEIGHT '1e' is not a number"),
])
def test_a_number_the_schema_lets_through_but_no_reader_can_is_refused(tmp_path, sample, before, after, message):
    # libxml2's xs:double takes "1e" and "2.5e+": the reader says so instead of keeping no score
    from sepia.resources import resource_dir

    text = (resource_dir("corpora") / "cs" / sample).read_text(encoding="utf-8")
    assert text.index(before) < text.index('ID="SEPIA-CS-0002"')  # the first change is in topic 0001
    found = problems_of(tmp_path, text.replace(before, after, 1), name=sample.split("/")[-1])
    assert len(found) == 1 and message in found[0], found


def test_format_is_detected(tmp_path):
    objects = {
        "topic": model.TopicSet([model.Topic("X-CS-1", [model.LangText("CS", "问"), model.LangText("EN", "q")])]),
        "gold": model.GoldStandard("CS", [model.GoldTopic("X-CS-1", "WHY", [], [model.GoldNugget("N1", "甲")])]),
        "qa": model.QARun(model.Metadata("T-EN-CS-01-T"), [model.QATopic("X-CS-1", [], [
            model.AnswerTypeScore("WHY", 0.5)])]),
        "ir4qa": model.IR4QARun(model.Metadata("T-CS-CS-01-T"), [model.IR4QATopic("X-CS-1", [
            model.RetrievedDoc(1, "D1", 2.0)])]),
        "cclqa": model.CCLQARun(model.Metadata("T-CS-CS-01-T"), [model.CCLQATopic("X-CS-1", [
            model.Answer(1, "甲", ["D1"])])]),
    }
    for name, obj in objects.items():
        path = tmp_path / f"{name}.xml"
        path.write_bytes(to_xml(obj))
        assert read_file(path) == obj, name


@pytest.mark.parametrize("content, message", [
    (b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;">\n'
     b' <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">\n]>\n<TOPIC_SET>&lol2;</TOPIC_SET>',
     ":2:1: DOCTYPE and ENTITY declarations are not allowed"),
    (b'<?xml version="1.0"?>\n<!DOCTYPE t [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><TOPIC_SET>&xxe;</TOPIC_SET>',
     "DOCTYPE and ENTITY declarations are not allowed"),
    (b'<?xml version="1.0"?><!DOCTYPE TOPIC_SET SYSTEM "http://example.invalid/x.dtd"><TOPIC_SET/>',
     "DOCTYPE and ENTITY declarations are not allowed"),
    (b'<?xml version="1.0" encoding="Shift_JIS"?><TOPIC_SET/>', "encoding Shift_JIS is not allowed"),
    ('<?xml version="1.0" encoding="UTF-8"?>\n<TOPIC_SET>\u5317</TOPIC_SET>'.encode("gbk"), ":2:12: invalid UTF-8 byte"),
    ("<TOPIC_SET/>".encode("utf-16"), "UTF-16"),
    (b"", ":1:1: file is empty"),
    (b"<TOPIC_SET>\n  <TOPIC ID='X-CS-1'>\n</TOPIC_SET>", ":3:"),
    (b"<RESULTS/>", "root element is <RESULTS>, expected <TOPIC_SET>"),
    (b'<TOPIC_SET><TOPIC ID="X-CS-1"><QUESTION LANG="CS">q</QUESTION></TOPIC>'
     b'<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="/etc/passwd"/></TOPIC_SET>', "not expected"),
])
def test_hostile_and_broken_files_are_refused_clearly(tmp_path, content, message):
    found = problems_of(tmp_path, content, name="f.xml")
    assert found and any(message in p for p in found), found


def test_files_over_the_size_limit_are_refused_before_parsing(tmp_path, monkeypatch):
    path = tmp_path / "big.xml"
    path.write_bytes(b"<TOPIC_SET>" + b" " * 5000 + b"</TOPIC_SET>")
    monkeypatch.setenv("SEPIA_MAX_XML_BYTES", "1000")
    _, found = validate_file(path)
    assert str(found[0]) == (f"{path}:1:1: file of 5,023 bytes is larger than the limit of 1,000 bytes (raise it with "
                             "SEPIA_MAX_XML_BYTES or --max-size)")
    _, found = validate_file(path, max_bytes=10_000)
    assert not any("limit" in str(p) for p in found)


def test_judgments_tsv_problems(tmp_path):
    path = tmp_path / "j.tsv"
    path.write_text("topic_id\trun_id\tanswer_rank\tnugget_id\tmatch\tassessor\n"
                    "X-CS-1\tR\t1\tN1\t1\ta\n"
                    "X-CS-1\tR\t0\tN1\t2\ta\n"
                    "X-CS-1\tR\t1\tN1\t1\ta\n"
                    "X-CS-1\tR\t1\n", encoding="utf-8")
    _, found = validate_file(path)
    joined = "\n".join(map(str, found))
    assert f"{path}:3:" in joined and "answer_rank must be a positive integer" in joined
    assert "match must be 1, 0 or 0.5, got '2'" in joined
    assert f"{path}:4:1: same judgment already given on line 2" in joined
    assert f"{path}:5:1: expected 6 tab-separated fields, got 3" in joined


def test_cli_exit_codes(tmp_path):
    good = tmp_path / "good.xml"
    good.write_text(cclqa(f'<TOPIC ID="ACLIA2-CS-0001"><CCLQA_RESULT>{answer(1)}</CCLQA_RESULT></TOPIC>'))
    bad = tmp_path / "bad.xml"
    bad.write_text(cclqa(f'<TOPIC ID="ACLIA2-CS-0001"><CCLQA_RESULT>{answer(2)}</CCLQA_RESULT></TOPIC>'))
    runner = CliRunner()
    assert runner.invoke(main, ["validate", str(good)]).exit_code == 0
    result = runner.invoke(main, ["validate", str(good), str(bad)])
    assert result.exit_code == 1
    assert f"{bad}:4:42: " in result.output and str(good) not in result.stdout
    assert runner.invoke(main, ["validate"]).exit_code == 2
    assert runner.invoke(main, ["validate", "--format", "nonsense", str(good)]).exit_code == 2


def test_text_is_kept_exactly(tmp_path):
    text = "  前后有空格 & <tags> 𠮷😀\n第二行  "
    run = model.CCLQARun(model.Metadata("T-CS-CS-01-T"), [model.CCLQATopic("X-CS-1", [model.Answer(1, text)])])
    assert read_bytes(to_xml(run)).topics[0].answers[0].text == text


def test_unknown_documents_are_warned_about_when_the_store_has_the_collection(tmp_path, sepia_home):
    from sepia.store.db import Store
    from sepia.store.models import Document

    path = tmp_path / "run.xml"
    path.write_text(cclqa(f'<TOPIC ID="ACLIA2-CS-0001"><CCLQA_RESULT>{answer(1, docid="D1")}\n'
                          f'{answer(2, docid="NOPE-7")}</CCLQA_RESULT></TOPIC>'))
    assert validate_file(path, missing=missing_in_configured_store)[1] == []  # no store yet, and none is created
    assert not (sepia_home / "sepia.db").exists()
    store = Store()
    with store.transaction() as session:
        session.add(Document(docid="D1", lang="CS", title="t", text="北京"))
    store.dispose()
    assert validate_file(path)[1] == []  # no lookup handed in: no DOCID is checked
    obj, found = validate_file(path, missing=missing_in_configured_store)
    assert obj is not None and [str(p) for p in found] == [
        f"{path}:5:40: warning: document NOPE-7 is not in the CS collection"]
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 0 and "NOPE-7" in result.output


def test_a_flood_of_schema_errors_is_cut_short_with_a_count(tmp_path):
    attributes = " ".join(f'A{i}="x"' for i in range(3000))
    found = problems_of(tmp_path, f"<TOPIC_SET {attributes}/>", name="flood.xml")
    assert len(found) == 1001 and any(p.endswith("2,000 more schema problems not shown") for p in found)


def test_qrels_are_validated_by_their_header_or_when_told(tmp_path):
    """Issue 33: `sepia validate corpora/cs/qrels.tsv` (a file SEPIA ships) failed with the judgments
    header message, and --format had no qrels. A qrels header tells one, as `sepia import` does."""
    from sepia.resources import resource_dir

    runner = CliRunner()
    shipped = resource_dir("corpora") / "cs" / "qrels.tsv"
    result = runner.invoke(main, ["validate", str(shipped)])
    assert result.exit_code == 0 and f"{shipped}: valid qrels file" in result.output, result.output
    bad = tmp_path / "qrels.txt"
    bad.write_text("topic_id\tdocid\tlevel\nX-CS-1\td1\tL2\nX-CS-1\td2\thigh\nX-CS-1\td1\t1\n", encoding="utf-8")
    result = runner.invoke(main, ["validate", str(bad)])
    assert result.exit_code == 1
    assert f"{bad}:3:" in result.output and "level must be" in result.output
    assert f"{bad}:4:1: document d1 is judged twice" in result.output
    told = tmp_path / "relevance.data"
    told.write_text("topic_id\tdocid\tlevel\nX-CS-1\td1\t0\n", encoding="utf-8")
    assert runner.invoke(main, ["validate", "--format", "qrels", str(told)]).exit_code == 0
    judgments = resource_dir("corpora") / "cs" / "judgments.tsv"
    assert runner.invoke(main, ["validate", "--format", "qrels", str(judgments)]).exit_code == 1
    assert "valid judgments file" in runner.invoke(main, ["validate", str(judgments)]).output
