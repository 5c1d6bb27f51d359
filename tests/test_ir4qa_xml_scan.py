"""IR4QA and CCLQA runs read from their text (sepia.formats.scan, issue 23): whatever the scan
accepts, the reading through the tree accepts too and reads the same; what it does not, it leaves
to the tree readers."""
from __future__ import annotations

import random
import re

import pytest

from sepia.formats import model, scan, stream
from sepia.formats.errors import FormatError
from sepia.formats.read import read_file
from sepia.formats.write import to_xml
from sepia.formats.xmlsafe import parse_xml
from sepia.ir4qa.evaluate import read_xml_rankings
from test_ir4qa_xml_rankings import RUN_ID, random_run, through_objects


# Pieces a mutation puts somewhere in a file: each either leaves it valid with the same rankings
# (white space, a comment between elements) or changes what a parser reads or accepts.
PIECES = ["&amp;", "&#65;", "&lt;", "\t", "\r\n", "\r", "\n", " ", "\x01", "\x85", "\u3000", "\ufffe", "]]>",
          "<!-- c -->", "<?pi x?>", "<![CDATA[x]]>", '"', "'", "=", "/", ">", "<", "0", "1", "+", "-", "e", ".",
          "X", "é", " SCORE=\"1.5\"", " SCORE=\"1e400\"", " SCORE=\"+1\"", " SCORE=\".5\"", " SCORE=\"1e\"",
          " EXTRA=\"1\"", "<DOCUMENT RANK=\"1\" DOCID=\"D\"/>", "</TOPIC>", "<TOPIC ID=\"ACLIA2-CS-0099\">",
          "\ufeff", "A" * 201, "&#x41;", "&foo;", "&quot;", "<TEXT/>", "<DOCID>X</DOCID>", "<DOCID></DOCID>",
          "</ANSWER>", '<ANSWER RANK="1">', "\u2028"]
# Pieces put at the start of a value (an ID, a DOCID, a RUNID, a TEXT)
IN_VALUES = ["&amp;", "&lt;", "&#x41;", "&foo;", "]]>", "\r", "\r\n", "\t", " ", "\u3000", "\x85", "\x01", "\ufffe",
             '"', "<", ">", "A" * 201, "<!-- c -->"]
TEXT = "叠不台ほマ WHO  \t\n&<>\"'"


def random_cclqa(rng: random.Random) -> model.CCLQARun:
    topics = []
    for t in rng.sample(range(1, 40), rng.randrange(1, 5)):
        topics.append(model.CCLQATopic(f"ACLIA2-CS-{t:04d}", [
            model.Answer(r, "".join(rng.choices(TEXT, k=rng.randrange(0, 12))),
                         [f"XIN_CMN_{rng.randrange(99):04d}" for _ in range(rng.randrange(3))])
            for r in range(1, rng.randrange(1, 8))]))
    return model.CCLQARun(model.Metadata(RUN_ID, "random", rng.choice([None, "TEAM-CS-CS-02-T"])), topics)


RANDOM_RUNS = {"ir4qa": lambda rng: random_run(rng, 6, 12), "cclqa": random_cclqa}
SCANS = {"ir4qa": scan.scan_rankings, "cclqa": scan.scan_cclqa}
FULL_RUNS = {  # every kind of value in every topic
    "ir4qa": model.IR4QARun(model.Metadata(RUN_ID, "d"), [model.IR4QATopic(f"ACLIA2-CS-000{t}", [
        model.RetrievedDoc(r, f"XIN_{t}.{r}", 0.5) for r in (1, 2, 3)]) for t in (1, 2)]),
    "cclqa": model.CCLQARun(model.Metadata(RUN_ID, "d"), [model.CCLQATopic(f"ACLIA2-CS-000{t}", [
        model.Answer(r, f"答{t}.{r}", [f"XIN_{t}.{r}"]) for r in (1, 2, 3)]) for t in (1, 2)]),
}


def mutated(text: str, rng: random.Random) -> str:
    """One to three random edits: a piece inserted anywhere or at the start of a value, a span
    deleted, or attributes and tags written the way another layout could write them."""
    for _ in range(rng.randrange(1, 4)):
        i, j = sorted(rng.randrange(len(text) + 1) for _ in range(2))
        j = min(j, i + 12)
        edit = rng.randrange(6)
        if edit == 5:  # inside a value
            at = [m.end() for m in re.finditer(r'ID="|<RUNID>|<TEXT>|<DOCID>', text)]
            k = rng.choice(at) if at else 0
            text = text[:k] + rng.choice(IN_VALUES) + text[k:]
        elif edit == 0:
            text = text[:i] + rng.choice(PIECES) + text[i:]
        elif edit == 1:
            text = text[:i] + text[j:]
        elif edit == 2:
            text = text.replace('" DOCID="', rng.choice(['"\tDOCID="', '"\n DOCID="', '"  DOCID="', "' DOCID='"]), 1)
        elif edit == 3:
            text = text.replace('RANK="', rng.choice(['RANK="0', 'RANK=" ', 'RANK = "', 'RANK="+']), 1)
        else:
            text = text.replace("/>", rng.choice([" />", "></DOCUMENT>", "\t/>", "/ >"]), 1)
    return text


def through_the_tree(path, format_name: str, monkeypatch):
    """The run as the tree readers read it (a FormatError when they refuse it)."""
    with monkeypatch.context() as patched:
        patched.setattr(stream, "scan_cclqa", lambda loaded: None)
        patched.setattr(stream, "scan_rankings", lambda loaded: None)
        return through_objects(path) if format_name == "ir4qa" else read_file(path, "cclqa")


def scanned_as_the_tree_reads(path, data: str, format_name: str, monkeypatch):
    """The scan of `data` written at `path`, checked to be what the tree reads or None, and None
    when the tree refuses the file."""
    path.write_bytes(data.encode("utf-8"))
    fast = SCANS[format_name](parse_xml(path.read_bytes(), str(path)))
    try:
        expected = through_the_tree(path, format_name, monkeypatch)
    except FormatError:
        assert fast is None
        return None
    assert fast in (None, expected)
    return fast


@pytest.mark.parametrize("format_name", ["ir4qa", "cclqa"])
def test_what_the_scan_accepts_is_read_the_same_through_the_tree(tmp_path, format_name, monkeypatch):
    rng = random.Random(23)
    path = tmp_path / f"{RUN_ID}.xml"
    scan_run = SCANS[format_name]
    read = read_xml_rankings if format_name == "ir4qa" else lambda p: read_file(p, "cclqa")
    scanned = refused = 0
    for _ in range(1500):
        data = mutated(to_xml(RANDOM_RUNS[format_name](rng)).decode("utf-8"), rng).encode("utf-8")
        try:
            loaded = parse_xml(data, str(path))
        except FormatError:
            continue  # refused before any reading (encoding, DOCTYPE, empty)
        fast = scan_run(loaded)
        path.write_bytes(data)
        try:
            expected = through_the_tree(path, format_name, monkeypatch)
        except FormatError as refusal:
            assert fast is None, data
            with pytest.raises(FormatError) as also:
                read(path)
            assert also.value.problems == refusal.problems
            refused += 1
            continue
        if fast is not None:
            assert fast == expected, data
            scanned += 1
        assert read(path) == expected
    assert scanned > 150 and refused > 500  # both kinds of file were met often enough to tell


@pytest.mark.parametrize("piece", IN_VALUES)
@pytest.mark.parametrize("format_name, place", [("ir4qa", 'DOCID="'), ("ir4qa", 'ID="'), ("cclqa", "<TEXT>"),
                                                ("cclqa", "</TEXT>"), ("cclqa", "<DOCID>"), ("cclqa", "<RUNID>")])
def test_a_value_the_parser_refuses_or_changes_is_left_to_the_tree(tmp_path, piece, format_name, place, monkeypatch):
    """Each piece at the start (or end) of every value of a kind: read as the tree reads it, or left to it."""
    data = to_xml(FULL_RUNS[format_name]).decode("utf-8")
    data = data.replace(place, place + piece) if place[1] != "/" else data.replace(place, piece + place)
    scanned_as_the_tree_reads(tmp_path / f"{RUN_ID}.xml", data, format_name, monkeypatch)


@pytest.mark.parametrize("declaration", [
    '<?xml version="1.0" encoding="UTF-8"?>', "<?xml version='1.0' encoding='utf8' standalone='yes'?>",
    '<?xml version="1.0"?>', '<?xml version="1.0" encoding="us-ascii"?>', '<?xml version="1.0" encoding="ASCII"?>',
    '<?xml version="1.1" encoding="UTF-8"?>', '\ufeff<?xml version="1.0" encoding="UTF-8"?>', "\ufeff", "",
    '<?xml-stylesheet href="a.xsl"?>'])
@pytest.mark.parametrize("format_name", ["ir4qa", "cclqa"])
def test_a_declaration_the_scan_does_not_know_is_left_to_the_tree(tmp_path, declaration, format_name, monkeypatch):
    """A file that says ASCII but holds other characters is refused by lxml: the scan must not take it."""
    data = to_xml(FULL_RUNS[format_name]).decode("utf-8").replace("XIN_1.1", "XIN_é")
    fast = scanned_as_the_tree_reads(tmp_path / f"{RUN_ID}.xml", declaration + data.split("?>", 1)[1], format_name,
                                     monkeypatch)
    assert fast is not None or "1.1" in declaration or "ASCII" in declaration.upper() or "stylesheet" in declaration


@pytest.mark.parametrize("layout", [
    lambda x: x,
    lambda x: x.replace('" DOCID', '"\t\tDOCID').replace("/>", " />"),
    lambda x: x.replace("\n", "\r\n"),
    lambda x: x.replace("\n", "").replace("  ", ""),
    lambda x: x.replace("<TOPIC_SET>", "<!-- a run -->\n<TOPIC_SET>"),
])
def test_a_plain_run_is_read_from_its_text(tmp_path, layout, monkeypatch):
    run = random_run(random.Random(5))
    path = tmp_path / f"{RUN_ID}.xml"
    path.write_bytes(layout(to_xml(run).decode("utf-8")).encode("utf-8"))
    expected = through_objects(path)
    monkeypatch.setattr(stream, "_Rankings", None)  # the tree reader would fail
    assert read_xml_rankings(path) == expected
