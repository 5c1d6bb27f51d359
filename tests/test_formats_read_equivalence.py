"""The one-walk CCLQA reader for schema-valid files gives what the general reader gives."""
from hypothesis import given, settings
from hypothesis import strategies as st

from sepia.formats.errors import FormatError
from sepia.formats.model import Answer, CCLQARun, CCLQATopic, Metadata
from sepia.formats.checks import Checks
from sepia.formats.exchange import cclqa
from sepia.formats.read import read_bytes
from sepia.formats.write import to_xml
from sepia.formats.xmlsafe import parse_xml

xml_text = st.text(st.characters(blacklist_categories=("Cs", "Cc")) | st.sampled_from("\n\t "), max_size=20)
docids = st.lists(st.from_regex(r"[A-Z_0-9]{1,12}", fullmatch=True), max_size=3)
answer = st.builds(Answer, st.just(0), xml_text, docids)
runs = st.builds(
    lambda topics: CCLQARun(Metadata("TEAM-CS-CS-01-T", "d"), [
        CCLQATopic(f"ACLIA2-CS-{i + 1:04d}", [Answer(r + 1, a.text, a.docids) for r, a in enumerate(answers)])
        for i, answers in enumerate(topics)]),
    st.lists(st.lists(answer, max_size=4), max_size=4))


def both_ways(data: bytes):
    loaded = parse_xml(data, "TEAM-CS-CS-01-T.xml")
    results = []
    for valid in (True, False):
        checks = Checks(loaded, schema_valid=valid)
        results.append((cclqa.read(checks, loaded.root), checks.problems))
    return results


@settings(max_examples=100, deadline=None)
@given(runs)
def test_fast_reader_equals_general_reader(run):
    data = to_xml(run)
    fast, general = both_ways(data)
    assert fast == general
    assert read_bytes(data, "cclqa", "TEAM-CS-CS-01-T.xml") == run


def test_comments_spaces_and_shuffled_ranks():
    data = b"""<?xml version="1.0" encoding="UTF-8"?>
<TOPIC_SET><METADATA><RUNID>TEAM-CS-CS-01-T</RUNID><DESCRIPTION/></METADATA>
<TOPIC ID="ACLIA2-CS-0001"><!-- c --><CCLQA_RESULT>
  <ANSWER RANK=" 2 "><!-- c --><TEXT>b<!-- inside -->c</TEXT><!-- c --><DOCID> D1 </DOCID><DOCID>D2</DOCID></ANSWER>
  <ANSWER RANK="+01"><TEXT/></ANSWER>
</CCLQA_RESULT></TOPIC></TOPIC_SET>"""
    fast, general = both_ways(data)
    assert fast == general
    assert fast[0].topics[0].answers == [Answer(2, "b", ["D1", "D2"]), Answer(1, "", [])]


def test_rank_problems_are_reported_the_same_way():
    data = b"""<TOPIC_SET><METADATA><RUNID>TEAM-CS-CS-01-T</RUNID><DESCRIPTION/></METADATA>
<TOPIC ID="ACLIA2-CS-0001"><CCLQA_RESULT><ANSWER RANK="1"><TEXT>a</TEXT></ANSWER>
<ANSWER RANK="1"><TEXT>b</TEXT></ANSWER><ANSWER RANK="4"><TEXT>c</TEXT></ANSWER></CCLQA_RESULT></TOPIC></TOPIC_SET>"""
    fast, general = both_ways(data)
    assert fast == general and len(fast[1]) == 2
    try:
        read_bytes(data, "cclqa", "TEAM-CS-CS-01-T.xml")
    except FormatError as exc:
        assert exc.problems == sorted(general[1])
    else:
        raise AssertionError("duplicate and missing ranks must be errors")
