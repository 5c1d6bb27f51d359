"""The XML exchange formats (docs/spec.md, Formats), one entry each: every caller reads this table — the
format detection, the reading and schema checks, the writer, the DOCID check, `sepia import` and
`sepia validate` — so that adding a format is its schema, its module and one entry (docs/architecture.md)."""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from lxml import etree

from sepia.formats import model
from sepia.formats.exchange import cclqa, gold, ir4qa, qa, topic
from sepia.formats.exchange.runs import ReadTopics
from sepia.resources import schema_path


@dataclass(frozen=True)
class Format:
    name: str                  # what --format calls it
    label: str                 # what `sepia validate` calls a valid file of it
    model: type                # the object it is read into and written from
    read: Callable             # (Checks, root element) -> the object; its problems go to the Checks
    write: Callable            # the object -> its root element
    marks: tuple[str, ...] = ()  # paths from the root whose presence tells a file of this format
    result: str | None = None  # a run's: the element in each TOPIC holding its results (which tells the format)
    task: str | None = None    # a run's: the name of its task on the campaign's pages and messages
    items: str | None = None   # a run's: what it ranks per topic, in a submission's receipt
    read_topics: ReadTopics | None = None  # a run's: its topics from the root or one window of it (stream.py)
    cited: Callable | None = None  # the object -> (the collection's language, the DOCIDs it cites in order)
    importer: str | None = None  # "module:function" of `sepia import`: (session, obj, filename, data, replace)
    #                              -> what was imported; a string because the store sits above the formats
    xsd: Path | None = None    # its schema, when not schemas/<name>.xsd

    @property
    def schema(self) -> Path:
        return self.xsd or schema_path(self.name)

    def import_into(self, session, obj, filename: str, data: bytes | None, replace: bool) -> str:
        assert self.importer is not None, "sepia import refuses such files before it writes anything"
        module, function = self.importer.split(":")
        return getattr(importlib.import_module(module), function)(session, obj, filename, data, replace)


RUN_IMPORTER = "sepia.campaign.imports:run"

FORMATS: tuple[Format, ...] = (
    Format("topic", "topic set", model.TopicSet, topic.read, topic.write,
           importer="sepia.campaign.imports:topics"),
    Format("qa", "Question Analysis run", model.QARun, qa.read, qa.write,
           result=qa.RESULT, task="Question Analysis", items="answer types", read_topics=qa.read_topics,
           importer=RUN_IMPORTER),
    Format("ir4qa", "IR4QA run", model.IR4QARun, ir4qa.read, ir4qa.write,
           result=ir4qa.RESULT, task="IR4QA", items="documents", read_topics=ir4qa.read_topics, cited=ir4qa.cited,
           importer=RUN_IMPORTER),
    Format("cclqa", "CCLQA run", model.CCLQARun, cclqa.read, cclqa.write, marks=("METADATA/IR4QA_RUNID",),
           result=cclqa.RESULT, task="CCLQA", items="responses", read_topics=cclqa.read_topics, cited=cclqa.cited,
           importer=RUN_IMPORTER),
    Format("gold", "gold standard", model.GoldStandard, gold.read, gold.write, marks=("TOPIC/NUGGET",),
           cited=gold.cited, importer="sepia.campaign.imports:gold"),
)


def names() -> tuple[str, ...]:
    return tuple(f.name for f in FORMATS)


def run_names() -> tuple[str, ...]:
    return tuple(f.name for f in FORMATS if f.result)


def named(name: str) -> Format:
    """The format of that name; ValueError when there is none."""
    found = next((f for f in FORMATS if f.name == name), None)
    if found is None:
        raise ValueError(f"unknown format {name!r}")
    return found


def format_of(obj) -> Format | None:
    """The format an object is written in; None when it is none of them (judgments, qrels)."""
    return next((f for f in FORMATS if isinstance(obj, f.model)), None)


def run_kind(obj) -> str | None:
    """The name of the run format an object is in (qa, ir4qa, cclqa); None when it is not a run."""
    found = format_of(obj)
    return found.name if found is not None and found.result else None


def detect_format(root: etree._Element) -> str | None:
    """Tell the format from the root's children; None when the file does not say. A file with a
    METADATA is a run, of the format whose result element comes first in its TOPICs, or else of a
    run format one of whose marks it has; any other file is of the format one of whose marks it
    has, or else of the format without marks."""
    if root.tag != "TOPIC_SET":
        return None
    run = root.find("METADATA") is not None
    kinds = [f for f in FORMATS if (f.result is not None) == run]
    if run and (named_by_result := result_format(root)):
        return named_by_result
    marked = [f.name for f in kinds if any(root.find(path) is not None for path in f.marks)]
    if marked or run:
        return next(iter(marked), None)
    return next((f.name for f in kinds if not f.marks), None)


def result_format(root) -> str | None:
    """The run format whose result element (a TOPIC's child) comes first among `root`'s TOPICs."""
    results = {f.result: f.name for f in FORMATS if f.result}
    for topic_element in root.iterfind("TOPIC"):
        for child in topic_element:
            if child.tag in results:
                return results[child.tag]
    return None
