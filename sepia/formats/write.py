"""Write `sepia.formats.model` objects as the spec's XML (UTF-8, indented, text kept exactly)."""
from __future__ import annotations

import logging
from functools import singledispatch

from lxml import etree

from sepia.formats import model
from sepia.formats.xmlchars import describe, first_unwritable, without_unwritable

log = logging.getLogger(__name__)


def _number(value: float) -> str:
    """Shortest text that reads back as the same float (repr), without a pointless '.0'."""
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else repr(float(value))


def _set(element, **attributes) -> None:
    for name, value in attributes.items():
        if value is not None:
            value = _number(value) if isinstance(value, float) else str(value)
            try:
                element.set(name, value)
            except ValueError:  # lxml refuses what XML cannot carry: looked for only then, at no cost otherwise
                element.set(name, _writable(value, element, name))


def _child(parent, tag: str, text: str | None = None, **attributes):
    element = etree.SubElement(parent, tag)
    if text is not None:
        try:
            element.text = text
        except ValueError:
            element.text = _writable(text, element, tag)
    _set(element, **attributes)
    return element


def _writable(value: str, element, what: str) -> str:
    """A value stored before the web tool refused such characters (a NUL, a vertical tab): exported
    without them, with a warning that names the record, rather than not at all."""
    clean, dropped = without_unwritable(value)
    if not dropped:
        raise ValueError(f"{_record(element)}: {what} cannot be written as XML")
    log.warning("warning: %s: %d character(s) XML cannot carry (first %s) dropped from %s",
                _record(element), dropped, describe(first_unwritable(value)), what)
    return clean


def _record(element) -> str:
    """Where an element is, by the IDs and ranks of it and its ancestors: TOPIC ACLIA2-CS-0001, NUGGET N001."""
    keyed = [(el.tag, el.get("ID") or el.get("RANK")) for el in reversed([element, *element.iterancestors()])]
    return ", ".join(f"{tag} {key}" for tag, key in keyed if key) or element.tag


def _metadata(root, metadata: model.Metadata) -> None:
    meta = _child(root, "METADATA")
    _child(meta, "RUNID", metadata.run_id)
    _child(meta, "DESCRIPTION", metadata.description)
    if metadata.ir4qa_run_id is not None:
        _child(meta, "IR4QA_RUNID", metadata.ir4qa_run_id)


@singledispatch
def build(obj) -> etree._Element:
    raise TypeError(f"cannot write {type(obj).__name__} as XML")


@build.register
def _(obj: model.TopicSet):
    root = etree.Element("TOPIC_SET")
    _set(root, LANG=obj.lang)
    for topic in obj.topics:
        el = _child(root, "TOPIC", ID=topic.topic_id, ANSWER_TYPE=topic.answer_type, STATUS=topic.status)
        for q in topic.questions:
            _child(el, "QUESTION", q.text, LANG=q.lang)
        for n in topic.narratives:
            _child(el, "NARRATIVE", n.text, LANG=n.lang)
        for k in topic.key_terms:
            _child(el, "KEY_TERM", k.text, LANG=k.lang)
        if topic.memo is not None:
            _child(el, "MEMO", topic.memo)
    return root


@build.register
def _(obj: model.GoldStandard):
    root = etree.Element("TOPIC_SET")
    _set(root, LANG=obj.lang)
    for topic in obj.topics:
        el = _child(root, "TOPIC", ID=topic.topic_id, ANSWER_TYPE=topic.answer_type)
        for q in topic.questions:
            _child(el, "QUESTION", q.text, LANG=q.lang)
        for n in topic.nuggets:
            nugget = _child(el, "NUGGET", ID=n.nugget_id, WEIGHT=n.weight,
                            VITAL_VOTES=n.vital_votes, VOTERS=n.voters)
            _child(nugget, "TEXT", n.text)
            for docid in n.sources:
                _child(nugget, "SOURCE", DOCID=docid)
            for assessor, vital in n.votes:
                _child(nugget, "VOTE", ASSESSOR=assessor, VITAL=int(vital))
    return root


def _run(obj, result_tag: str, fill) -> etree._Element:
    """A run file: METADATA, then per topic TOPIC/<result_tag> filled by `fill(result, topic)`."""
    root = etree.Element("TOPIC_SET")
    _metadata(root, obj.metadata)
    for topic in obj.topics:
        fill(_child(_child(root, "TOPIC", ID=topic.topic_id), result_tag), topic)
    return root


def _qa_topic(result, topic: model.QATopic) -> None:
    for term in topic.key_terms:
        _child(result, "KEY_TERM", term.text, LANG=term.lang, SCORE=term.score)
    for guess in topic.answer_types:
        _child(result, "ANSWER_TYPE", guess.answer_type, SCORE=guess.score)


def _ir4qa_topic(result, topic: model.IR4QATopic) -> None:
    for doc in topic.documents:
        _child(result, "DOCUMENT", RANK=doc.rank, DOCID=doc.docid, SCORE=doc.score)


def _cclqa_topic(result, topic: model.CCLQATopic) -> None:
    for answer in topic.answers:
        el = _child(result, "ANSWER", RANK=answer.rank)
        _child(el, "TEXT", answer.text)
        for docid in answer.docids:
            _child(el, "DOCID", docid)


build.register(model.QARun, lambda obj: _run(obj, "QUESTION_ANALYSIS", _qa_topic))
build.register(model.IR4QARun, lambda obj: _run(obj, "IR4QA_RESULT", _ir4qa_topic))
build.register(model.CCLQARun, lambda obj: _run(obj, "CCLQA_RESULT", _cclqa_topic))


def to_xml(obj) -> bytes:
    """The object as a UTF-8 XML document."""
    root = build(obj)
    etree.indent(root, space="  ")
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + etree.tostring(root, encoding="UTF-8", pretty_print=True)
