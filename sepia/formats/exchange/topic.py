"""Topic sets: TOPIC_SET of TOPICs with their questions, narratives and key terms."""
from __future__ import annotations

from lxml import etree

from sepia import vocab
from sepia.formats import model
from sepia.formats.checks import Checks
from sepia.formats.elements import child, set_attributes


def read(checks: Checks, root) -> model.TopicSet:
    topics = []
    for el, topic_id, questions in checks.topics_with_questions(root):
        narratives = checks.lang_texts(el, "NARRATIVE", topic_id)
        _question_languages(checks, el, topic_id, questions)
        key_terms = [model.LangText(k.get("LANG", ""), k.text or "") for k in el.iterfind("KEY_TERM")]
        topics.append(model.Topic(topic_id, questions, narratives, el.get("ANSWER_TYPE"),
                                  el.get("STATUS"), el.findtext("MEMO"), key_terms))
    return model.TopicSet(topics, root.get("LANG"))


def _question_languages(checks: Checks, topic, topic_id: str, questions: list[model.LangText]) -> None:
    target = vocab.topic_language(topic_id)
    langs = {q.lang for q in questions}
    if target and questions and target not in langs:
        checks.error(topic, f"topic {topic_id}: no QUESTION in its target language {target}")
    elif questions and "EN" not in langs:
        checks.warning(topic, f"topic {topic_id}: no English QUESTION")


def write(obj: model.TopicSet) -> etree._Element:
    root = etree.Element("TOPIC_SET")
    set_attributes(root, LANG=obj.lang)
    for topic in obj.topics:
        el = child(root, "TOPIC", ID=topic.topic_id, ANSWER_TYPE=topic.answer_type, STATUS=topic.status)
        for q in topic.questions:
            child(el, "QUESTION", q.text, LANG=q.lang)
        for n in topic.narratives:
            child(el, "NARRATIVE", n.text, LANG=n.lang)
        for k in topic.key_terms:
            child(el, "KEY_TERM", k.text, LANG=k.lang)
        if topic.memo is not None:
            child(el, "MEMO", topic.memo)
    return root
