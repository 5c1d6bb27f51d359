"""A run file read window by window, so that memory follows the file rather than its tree.

The whole tree of a run takes some 15 times the file (900,000 DOCUMENT elements of a 55 MB IR4QA run:
860 MB), so a run is parsed incrementally: every few thousand elements the TOPICs parsed so far are
moved out of the tree, checked against the XSD (the windows sepia.formats.schema validates anyway)
and read by the same reader, and dropped. What needs the whole file is kept in compact form: the
METADATA, the run ID, the topic IDs seen. This is for files with nothing to report: at the first
problem of any kind (or a file that is not a run) the caller reads the file whole instead, which
places every problem exactly as before, so the answers do not depend on which way a file was read.
"""
from __future__ import annotations

from lxml import etree

from sepia import vocab
from sepia.formats import model, registry
from sepia.formats.checks import Checks
from sepia.formats.exchange import ir4qa
from sepia.formats.scan import scan_cclqa, scan_rankings
from sepia.formats.schema import STAND_IN, WINDOW, _crowded, _schema
from sepia.formats.xmlsafe import LoadedXml, iterparse

# A window closes after the TOPIC that brings it to this many elements (or to schema.WINDOW children of
# the root): about 10 MB of tree.
WINDOW_ELEMENTS = 10_000
# The children a run's root may have; any other is left in the root, and the file is then read whole.
ROOT_CHILDREN = ("METADATA", "TOPIC")
_descendants = etree.XPath("count(descendant::*)")


class _NotClean(Exception):
    """The file has something to report, or is not a run: read it whole."""


def read_clean_run(loaded: LoadedXml, format_name: str | None = None):
    """The run a valid run file holds, read with a bounded tree; None when the file is not a run of
    `format_name` (detected when None) or has any problem: then read it whole to say which."""
    if format_name not in (None, *registry.run_names()):
        return None
    if format_name in (None, "cclqa") and (run := scan_cclqa(loaded)) is not None:
        return run  # in the layout sepia.formats.scan reads from the text
    try:
        return _Windows(loaded, format_name).read()
    except (_NotClean, etree.XMLSyntaxError):
        return None


class _Windows:
    def __init__(self, loaded: LoadedXml, format_name: str | None):
        self.loaded, self.format_name = loaded, format_name
        self.reader = Checks(loaded, schema_valid=True)
        self.metadata: model.Metadata | None = None
        self.run_id: vocab.RunId | None = None
        self.topics: list = []
        self.seen: set[str] = set()

    def read(self):
        window, elements, root = [], 0, None
        # each root child once it is complete (lxml skips the elements inside it without a Python call)
        for _event, element in iterparse(self.loaded.data, tag=ROOT_CHILDREN):
            if root is None:
                root = element.getroottree().getroot()
            if element.getparent() is root:
                window.append(element)
                elements += 1 + int(_descendants(element))
                if element.tag == "TOPIC" and (elements >= WINDOW_ELEMENTS or len(window) >= WINDOW):
                    self.take(root, window)
                    window, elements = [], 0
        if window:
            self.take(root, window)
        if root is None or self.metadata is None or next(root.iterchildren(etree.Element), None) is not None:
            raise _NotClean  # a root without children, or with a child no run has
        return self.result()

    def result(self):
        assert self.format_name is not None and self.metadata is not None  # read() saw the first window
        return registry.named(self.format_name).model(self.metadata, self.topics)

    def take(self, root, window: list) -> None:
        """Check and read one window of the root's children, moved out of the tree."""
        first = self.metadata is None
        if root.tag != "TOPIC_SET":
            raise _NotClean
        part = etree.Element(root.tag, dict(root.attrib) if first else {})
        if not first:
            part.append(etree.fromstring(STAND_IN))
        part.extend(window)
        if first:
            self.format_name = self.format_name or _run_format(part)
        format_name = self.format_name
        if format_name is None:
            raise _NotClean
        if _crowded(part, format_name) or not _schema(format_name).validate(part):
            raise _NotClean
        if first:
            self.metadata, self.run_id = self.reader.metadata(part)
        self.topics += self.read_topics(part, format_name)
        if self.reader.problems:
            raise _NotClean

    def read_topics(self, part, format_name: str) -> list:
        lang = self.run_id.target_lang if self.run_id else None
        read_topics = registry.named(format_name).read_topics
        assert read_topics is not None  # every run format's entry has one (tests/test_formats_registry.py)
        return read_topics(self.reader, part, lang, self.seen)


class _Rankings(_Windows):
    """An IR4QA run's topics as DOCIDs in rank order: the attributes the ranking needs as lists of
    strings, no object per document."""

    def __init__(self, loaded: LoadedXml):
        super().__init__(loaded, "ir4qa")

    def read_topics(self, part, format_name: str) -> list:
        lang = self.run_id.target_lang if self.run_id else None
        topics = []
        for el in part.iterchildren("TOPIC"):
            topic_id = self.reader.topic_id(el, self.seen, lang)
            docids = _plain_docids(el)
            if docids is None:  # not plainly ranked 1..n: the general reading checks it and sorts
                docs = ir4qa.read_topic(self.reader, el, topic_id).documents
                docids = [d.docid for d in sorted(docs, key=lambda d: d.rank)]
            topics.append((topic_id, docids))
        return topics

    def result(self):
        assert self.metadata is not None  # read() saw the first window
        return self.metadata.run_id, dict(self.topics)


def read_clean_rankings(loaded: LoadedXml) -> tuple[str, dict[str, list[str]]] | None:
    """A valid IR4QA run's ID and each topic's DOCIDs in rank order (what `read_clean_run` and
    `sepia.ir4qa.evaluate.rankings_of` give, at a fraction of the cost); None as `read_clean_run`.
    A run in the layout sepia.formats.scan reads is read from its text, any other window by window."""
    scanned = scan_rankings(loaded)
    if scanned is not None:
        return scanned
    try:
        return _Rankings(loaded).read()
    except (_NotClean, etree.XMLSyntaxError):
        return None


# True when some DOCUMENT's RANK is not its position: XPath reads "01" as 1 and "+1" as NaN, and a
# file that passed the XSD has integer ranks, so whatever this passes int() reads as 1..n too.
_MISRANKED = etree.XPath("boolean(IR4QA_RESULT/DOCUMENT[@RANK != position()])")
_DOCIDS = etree.XPath("IR4QA_RESULT/DOCUMENT/@DOCID", smart_strings=False)
_SCORES = etree.XPath("IR4QA_RESULT/DOCUMENT/@SCORE", smart_strings=False)


def _plain_docids(topic) -> list[str] | None:
    """A schema-valid topic's DOCIDs when its ranks read 1..n in order, its scores read as numbers and
    no document is ranked twice (exchange.ir4qa._plain_ranking's test), else None (also for ranks such
    as "+1", which the general reading takes)."""
    if _MISRANKED(topic):
        return None
    try:
        list(map(float, _SCORES(topic)))
    except ValueError:  # a SCORE libxml2's xs:double lets through ("1e"): the general reading reports it
        return None
    docids = _DOCIDS(topic)
    return docids if len(set(docids)) == len(docids) else None


def _run_format(part) -> str | None:
    """The run format the first window's topics name (registry.detect_format's answer for the file)."""
    return registry.result_format(part) if part.find("METADATA") is not None else None
