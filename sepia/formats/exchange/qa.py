"""Question Analysis runs: per topic the key terms and answer types a system found."""
from __future__ import annotations

from sepia.formats import model
from sepia.formats.checks import Checks
from sepia.formats.elements import child
from sepia.formats.exchange import runs

RESULT = "QUESTION_ANALYSIS"


def read_topic(checks: Checks, el, topic_id: str) -> model.QATopic:
    terms = [model.KeyTerm(t.text or "", t.get("LANG"),
                           checks.number(t, "SCORE", where=f"topic {topic_id}: key term {t.text!r}: "))
             for t in el.iterfind("QUESTION_ANALYSIS/KEY_TERM")]
    types = [model.AnswerTypeScore((a.text or "").strip(),
                                   checks.number(a, "SCORE", where=f"topic {topic_id}: answer type {a.text!r}: "))
             for a in el.iterfind("QUESTION_ANALYSIS/ANSWER_TYPE")]
    return model.QATopic(topic_id, terms, types)


def write_topic(result, topic: model.QATopic) -> None:
    for term in topic.key_terms:
        child(result, "KEY_TERM", term.text, LANG=term.lang, SCORE=term.score)
    for guess in topic.answer_types:
        child(result, "ANSWER_TYPE", guess.answer_type, SCORE=guess.score)


read_topics = runs.each_topic(read_topic)
read = runs.reader(model.QARun, read_topics)
write = runs.writer(RESULT, write_topic)
