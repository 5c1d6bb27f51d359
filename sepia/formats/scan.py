"""A valid IR4QA or CCLQA run read straight from its text, without a tree (issue 23): a parse plus lists.

lxml's parse, the XSD and taking the values back out of the tree cost several times what scoring a
run costs. So the topics are read here by regular expressions over the decoded text, in a strict
layout that only well-formed, schema-valid XML can have: the elements and attributes in the spec's
order, attributes in double quotes, values with no reference (but the five named ones in an answer's
TEXT) and no character a parser would refuse or change, ranks "1".."n" in order, white space only
between the elements. The head of the file (up to the first TOPIC: declaration, root, METADATA) is
parsed by lxml and checked by the XSD and the reader, as the first window of sepia.formats.stream is.
Any other layout, or any problem at all, gives None, and the tree readers take the file: they accept
every file accepted here and read it the same, so the answers never depend on the way it was read.
"""
from __future__ import annotations

import re
from typing import Callable

from lxml import etree

from sepia import vocab
from sepia.formats import model
from sepia.formats.checks import Checks
from sepia.formats.errors import FormatError
from sepia.formats.schema import MAX_CHILDREN, _crowded, _schema
from sepia.formats.xmlsafe import LoadedXml, _parser

_S = "[ \t\r\n]"  # XML's white space (str's \s also matches characters XML calls text)
# An attribute value as the parser hands it back: no reference, no character XML refuses, none it
# would normalize (tab, line ends).
_VALUE = '[^"<&\x00-\x1f\ufffe\uffff]'
_DOUBLE = r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?"  # a subset of what xs:double accepts
# XML 1.0 in UTF-8 (a file that says ASCII is refused by lxml for any other byte).
_DECLARATION = re.compile(r"""(?:\ufeff)?<\?xml[ \t\r\n]+version=(["'])1\.0\1(?:[ \t\r\n]+encoding=(["'])(?i:utf-?8)\2)?"""
                          r"""(?:[ \t\r\n]+standalone=(["'])(?:yes|no)\3)?[ \t\r\n]*\?>""")
_FIRST_TOPIC = re.compile(r"<TOPIC[ \t\r\n/>]")
_TOPIC_END = re.compile(rf"{_S}*</TOPIC>{_S}*")
_ROOT_END = re.compile(rf"</TOPIC_SET>{_S}*\Z")
_RANKS = [str(rank) for rank in range(1, MAX_CHILDREN + 1)]
_TOPIC_ID_LENGTH = 64
_RESULTS = {"ir4qa": "IR4QA_RESULT", "cclqa": "CCLQA_RESULT"}
# The topic ID as the XSD's TopicId pattern has it (its length is checked beside).
_TOPICS = {format_name: re.compile(rf'<TOPIC{_S}+ID="([A-Za-z0-9]+-(?:EN|CS|CT|JA)-[0-9]+)"{_S}*>{_S}*'
                                   rf"<{result}{_S}*(/?)>") for format_name, result in _RESULTS.items()}

# White space after an element, not before: a search for "<DOCUMENT" skips text at C speed, where a
# leading [ \t\r\n]* would be tried again at every character of a long run of spaces.
_DOCUMENT = re.compile(rf'<DOCUMENT{_S}+RANK="([0-9]{{1,4}})"{_S}+DOCID="({_VALUE}{{1,200}})"'
                       rf"(?:{_S}+SCORE=\"{_DOUBLE}\")?{_S}*/>{_S}*")
# An answer's TEXT: no markup, no "\r" (read as "\n"); "&" only in a named reference, checked beside.
# Its DOCIDs: no white space at all, as str.strip() knows it (the reader strips them).
_TEXT = "[^<\r\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]*"
_DOCID = "[^\\s<&>\x00-\x1f\ufffe\uffff]{1,200}"
_ANSWER = re.compile(rf'<ANSWER{_S}+RANK="([0-9]{{1,4}})"{_S}*>{_S}*(?:<TEXT>({_TEXT})</TEXT>|<TEXT{_S}*/>)'
                     rf"((?:{_S}*<DOCID>{_DOCID}</DOCID>)*){_S}*</ANSWER>{_S}*")
_DOCIDS = re.compile(f"<DOCID>({_DOCID})</DOCID>")
_REFERENCE = re.compile("&(?!(?:amp|lt|gt|quot|apos);)")  # any but the five named ones
_NAMED = (("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&apos;", "'"), ("&amp;", "&"))  # "&amp;" last


def scan_rankings(loaded: LoadedXml) -> tuple[str, dict[str, list[str]]] | None:
    """A valid IR4QA run's ID and each topic's DOCIDs in rank order, when the file is in the layout
    read here; else None (the file may still be valid: the tree readers say)."""
    found = _scan(loaded, "ir4qa", _docids)
    return None if found is None else (found[0].run_id, dict(found[1]))


def scan_cclqa(loaded: LoadedXml) -> model.CCLQARun | None:
    """A valid CCLQA run, when the file is in the layout read here; else None, as `scan_rankings`."""
    found = _scan(loaded, "cclqa", _answers)
    return None if found is None else model.CCLQARun(found[0], [model.CCLQATopic(*topic) for topic in found[1]])


def _scan(loaded: LoadedXml, format_name: str, read: Callable[[str], list | None]):
    """The run's metadata and (topic ID, what `read` makes of its result's content) of each topic."""
    text = loaded.data.decode("utf-8")  # xmlsafe has checked the encoding
    if text.startswith(("<?", "\ufeff<?")) and not _DECLARATION.match(text) or "]]>" in text:
        return None  # not XML 1.0 in UTF-8, or a declaration not looked into; "]]>" may end a CDATA section
    first = _FIRST_TOPIC.search(text)
    if first is None:
        return None
    head = _head(loaded, text[:first.start()].encode("utf-8"), format_name)
    if head is None:
        return None
    metadata, lang = head
    topic_re, end_tag = _TOPICS[format_name], f"</{_RESULTS[format_name]}>"
    topics: list[tuple[str, list]] = []
    seen: set[str] = set()
    position = first.start()
    while (topic := topic_re.match(text, position)) is not None:
        topic_id = topic.group(1)
        if topic_id in seen or len(topic_id) > _TOPIC_ID_LENGTH or (
                lang and vocab.topic_language(topic_id) not in (None, lang)):
            return None
        seen.add(topic_id)
        if topic.group(2):  # an empty result: <IR4QA_RESULT/>, <CCLQA_RESULT/>
            content: list | None = []
            position = topic.end()
        else:
            end = text.find(end_tag, topic.end())
            content = read(text[topic.end():end]) if end >= 0 else None
            position = end + len(end_tag)
        if content is None:
            return None
        topics.append((topic_id, content))
        closed = _TOPIC_END.match(text, position)
        if closed is None:
            return None
        position = closed.end()
    return (metadata, topics) if _ROOT_END.match(text, position) else None


def _split(pattern: re.Pattern, block: str, groups: int) -> list[str] | None:
    """The groups of each element `pattern` matches in `block` (each element with the white space
    after it), in one flat list; None unless the elements are all there is (white space before the
    first aside), at most MAX_CHILDREN of them, ranked "1".."n" in order (the first group)."""
    parts = pattern.split(block)  # leading text, then the groups and the text after each element
    step = groups + 1
    count = len(parts) // step
    if count > MAX_CHILDREN or parts[0].strip(" \t\r\n") or parts[step::step].count("") != count \
            or parts[1::step] != _RANKS[:count]:
        return None
    return parts


def _docids(block: str) -> list[str] | None:
    """The DOCIDs of an IR4QA_RESULT's content, each once."""
    parts = _split(_DOCUMENT, block, 2)
    if parts is None:
        return None
    docids = parts[2::3]
    return docids if len(set(docids)) == len(docids) else None


def _answers(block: str) -> list[model.Answer] | None:
    """The answers of a CCLQA_RESULT's content."""
    parts = _split(_ANSWER, block, 3)
    if parts is None:
        return None
    texts = [text or "" for text in parts[2::4]]  # None: <TEXT/>
    if "&" in block:
        if any(_REFERENCE.search(text) for text in texts):
            return None
        for reference, character in _NAMED:
            texts = [text.replace(reference, character) for text in texts]
    docids = list(map(_DOCIDS.findall, parts[3::4]))
    if block.count("<DOCID>") > MAX_CHILDREN and max(map(len, docids)) > MAX_CHILDREN:
        return None
    return list(map(model.Answer, range(1, len(texts) + 1), texts, docids))


def _head(loaded: LoadedXml, head: bytes, format_name: str) -> tuple[model.Metadata, str | None] | None:
    """The metadata and the run's target language, from the file up to its first TOPIC closed by
    </TOPIC_SET>, when that is well-formed, valid, and has nothing to report."""
    try:
        root = etree.fromstring(head + b"</TOPIC_SET>", _parser())
    except etree.XMLSyntaxError:
        return None
    if root.tag != "TOPIC_SET" or _crowded(root, format_name) or not _schema(format_name).validate(root):
        return None
    reader = Checks(loaded, schema_valid=True)
    try:
        metadata, run_id = reader.metadata(root)
    except FormatError:  # a problem's place is looked up in the whole tree, and the file was not well-formed
        return None
    if reader.problems:
        return None
    return metadata, run_id.target_lang if run_id else None
