"""What the run formats share: a METADATA, then one TOPIC after another, each holding one result
element (QUESTION_ANALYSIS, IR4QA_RESULT, CCLQA_RESULT) that a format module reads and writes."""
from __future__ import annotations

from typing import Callable

from lxml import etree

from sepia import vocab
from sepia.formats.checks import Checks
from sepia.formats.elements import child, metadata

# (checks, the TOPICs' parent, the run's target language, the topic IDs seen before) -> the topics
ReadTopics = Callable[[Checks, etree._Element, "str | None", "set[str]"], list]


def each_topic(read_topic: Callable) -> ReadTopics:
    """The topics among a root's children (all of the file's, or one window of them: `seen` holds the
    topic IDs of the windows before), each read by `read_topic(checks, element, topic_id)`, their IDs
    checked."""
    def read_topics(checks: Checks, root, lang: str | None, seen: set[str]) -> list:
        return [read_topic(checks, el, checks.topic_id(el, seen, lang)) for el in root.iterfind("TOPIC")]
    return read_topics


def reader(model_class: type, read_topics: ReadTopics) -> Callable:
    """A run format's reader: the METADATA, then the topics `read_topics` gives."""
    def read(checks: Checks, root):
        run_metadata, run_id = checks.metadata(root)
        return model_class(run_metadata, read_topics(checks, root, run_id.target_lang if run_id else None, set()))
    return read


def writer(result_tag: str, write_topic: Callable) -> Callable:
    """A run format's writer: METADATA, then per topic TOPIC/<result_tag> filled by `write_topic(result, topic)`."""
    def write(obj) -> etree._Element:
        root = etree.Element("TOPIC_SET")
        metadata(root, obj.metadata)
        for topic in obj.topics:
            write_topic(child(child(root, "TOPIC", ID=topic.topic_id), result_tag), topic)
        return root
    return write


def target_lang(run) -> str | None:
    """The language a run answers in (of the documents it cites), from its run ID."""
    parsed = vocab.parse_run_id(run.metadata.run_id)
    return parsed.target_lang if parsed else None
