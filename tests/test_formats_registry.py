"""The table of XML exchange formats: detection from a file's elements, and what each entry names."""
import importlib

import pytest
from lxml import etree

from sepia.formats import model, registry
from sepia.formats.errors import FormatError
from sepia.formats.read import read_bytes
from sepia.store.models import RUN_KINDS

META = "<METADATA><RUNID>TEAM-CS-CS-01-T</RUNID><DESCRIPTION/></METADATA>"


@pytest.mark.parametrize("xml, expected", [
    ("<TOPIC_SET/>", "topic"),
    ("<TOPIC_SET><TOPIC ID='A-CS-1'><QUESTION LANG='CS'>q</QUESTION></TOPIC></TOPIC_SET>", "topic"),
    ("<TOPIC_SET><TOPIC ID='A-CS-1'/><TOPIC ID='A-CS-2'><NUGGET ID='N1'/></TOPIC></TOPIC_SET>", "gold"),
    (f"<TOPIC_SET>{META}<TOPIC ID='A-CS-1'><QUESTION_ANALYSIS/></TOPIC></TOPIC_SET>", "qa"),
    (f"<TOPIC_SET>{META}<TOPIC ID='A-CS-1'><IR4QA_RESULT/></TOPIC></TOPIC_SET>", "ir4qa"),
    (f"<TOPIC_SET>{META}<TOPIC ID='A-CS-1'><CCLQA_RESULT/></TOPIC></TOPIC_SET>", "cclqa"),
    # the first result element in document order decides, whatever the table's order
    (f"<TOPIC_SET>{META}<TOPIC ID='A-CS-1'/><TOPIC ID='A-CS-2'><CCLQA_RESULT/></TOPIC>"
     "<TOPIC ID='A-CS-3'><QUESTION_ANALYSIS/></TOPIC></TOPIC_SET>", "cclqa"),
    # a run without topics: only a CCLQA run says which it is (the IR4QA run it used)
    ("<TOPIC_SET><METADATA><RUNID>R</RUNID><IR4QA_RUNID>S</IR4QA_RUNID></METADATA></TOPIC_SET>", "cclqa"),
    (f"<TOPIC_SET>{META}</TOPIC_SET>", None),
    (f"<TOPIC_SET>{META}<TOPIC ID='A-CS-1'><NUGGET/></TOPIC></TOPIC_SET>", None),  # a run is never gold
    ("<RUN/>", None),
])
def test_the_format_is_told_from_the_elements(xml, expected):
    assert registry.detect_format(etree.fromstring(xml)) == expected


def test_a_file_that_does_not_say_is_refused_with_the_formats_named():
    with pytest.raises(FormatError, match=r"name it with --format topic\|qa\|ir4qa\|cclqa\|gold$"):
        read_bytes(f"<TOPIC_SET>{META}</TOPIC_SET>".encode())
    with pytest.raises(ValueError, match="unknown format 'notes'"):
        read_bytes(b"<TOPIC_SET/>", "notes")


def test_each_object_has_one_format_and_runs_a_kind():
    run = model.CCLQARun(model.Metadata("TEAM-CS-CS-01-T"), [])
    assert registry.format_of(run).name == "cclqa" and registry.run_kind(run) == "cclqa"
    assert registry.run_kind(model.TopicSet([])) is None and registry.format_of([]) is None
    assert registry.run_names() == ("qa", "ir4qa", "cclqa") == RUN_KINDS  # the store's CHECK constraint
    assert len({f.model for f in registry.FORMATS}) == len({f.name for f in registry.FORMATS}) == len(registry.FORMATS)


@pytest.mark.parametrize("kind", registry.FORMATS, ids=lambda f: f.name)
def test_what_an_entry_names_exists(kind):
    assert kind.schema.is_file()
    module, function = kind.importer.split(":")
    assert callable(getattr(importlib.import_module(module), function))
    assert (kind.result is None) == (kind.read_topics is None) == (kind.task is None) == (kind.items is None)
