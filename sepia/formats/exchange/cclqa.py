"""CCLQA runs: per topic ranked answers (system responses), each with the documents it cites."""
from __future__ import annotations

from sepia.formats import model
from sepia.formats.checks import Checks
from sepia.formats.elements import child
from sepia.formats.exchange import runs

RESULT = "CCLQA_RESULT"


def read_topic(checks: Checks, el, topic_id: str) -> model.CCLQATopic:
    answers = el.findall("CCLQA_RESULT/ANSWER")
    checks.ranks(answers, "answer", topic_id)
    return model.CCLQATopic(topic_id, [
        model.Answer(checks.number(a, "RANK", int) or 0, a.findtext("TEXT") or "",
                     [(d.text or "").strip() for d in a.iterfind("DOCID")])
        for a in answers])


_each_topic = runs.each_topic(read_topic)


def read_topics(checks: Checks, root, lang: str | None, seen: set[str]) -> list[model.CCLQATopic]:
    """The topics (runs.each_topic), those of a file that passed the XSD in one walk."""
    return _valid_topics(checks, root, lang, seen) if checks.schema_valid else _each_topic(checks, root, lang, seen)


def _valid_topics(checks: Checks, root, lang: str | None, seen: set[str]) -> list[model.CCLQATopic]:
    """The topics of a file that passed the XSD, in one walk over the tree that also checks the topic
    IDs: the schema fixes the nesting (TOPIC, ANSWER, then its TEXT, then its DOCIDs), so no path
    lookups are needed."""
    topics = []
    for el in root.iterchildren("TOPIC"):
        topic_id = checks.topic_id(el, seen, lang)
        answers: list[list] = []  # [rank, text, DOCIDs] of each ANSWER, filled in as the walk reaches them
        ranks: list[int] = []
        docids: list[str] = []
        for node in el.iter("ANSWER", "TEXT", "DOCID"):
            tag = node.tag
            if tag == "TEXT":
                answers[-1][1] = node.text or ""
            elif tag == "DOCID":
                docids.append((node.text or "").strip())
            else:
                rank = int(node.get("RANK"))
                ranks.append(rank)
                docids = []
                answers.append([rank, "", docids])
        if ranks != list(range(1, len(ranks) + 1)):  # not plainly 1..n: the full check says why
            checks.ranks(el.findall("CCLQA_RESULT/ANSWER"), "answer", topic_id)
        topics.append(model.CCLQATopic(topic_id, [model.Answer(*a) for a in answers]))
    return topics


def write_topic(result, topic: model.CCLQATopic) -> None:
    for answer in topic.answers:
        el = child(result, "ANSWER", RANK=answer.rank)
        child(el, "TEXT", answer.text)
        for docid in answer.docids:
            child(el, "DOCID", docid)


def cited(run: model.CCLQARun) -> tuple[str | None, list[str]]:
    """The documents the answers cite, of the run's target language."""
    return runs.target_lang(run), [d for t in run.topics for a in t.answers for d in a.docids]


read = runs.reader(model.CCLQARun, read_topics)
write = runs.writer(RESULT, write_topic)
