"""IR4QA runs: per topic a ranked list of documents."""
from __future__ import annotations

from sepia.formats import model
from sepia.formats.checks import Checks
from sepia.formats.elements import child
from sepia.formats.exchange import runs

RESULT = "IR4QA_RESULT"


def read_topic(checks: Checks, el, topic_id: str) -> model.IR4QATopic:
    docs = el.findall("IR4QA_RESULT/DOCUMENT")  # at most 1,000: schema.MAX_CHILDREN
    if checks.schema_valid and (plain := _plain_ranking(docs)) is not None:
        return model.IR4QATopic(topic_id, plain)
    checks.ranks(docs, "document", topic_id)
    seen: set[str] = set()
    for d in docs:
        if d.get("DOCID") in seen:
            checks.error(d, f"topic {topic_id}: document {d.get('DOCID')} is ranked twice")
        seen.add(d.get("DOCID"))
    return model.IR4QATopic(topic_id, [
        model.RetrievedDoc(checks.number(d, "RANK", int) or 0, d.get("DOCID", ""),
                           checks.number(d, "SCORE", where=f"topic {topic_id}: document {d.get('DOCID')}: "))
        for d in docs])


def _plain_ranking(docs: list) -> list[model.RetrievedDoc] | None:
    """The documents of a schema-valid ranking (RANK and SCORE are numbers, DOCID is there) in one
    pass, when it has nothing to report: ranks 1..n in order, no document twice; else None, and the
    general reading says what is wrong. Half the time of an IR4QA run's reading was spent here."""
    ranked = [(int(attrib["RANK"]), attrib["DOCID"], attrib.get("SCORE")) for attrib in (d.attrib for d in docs)]
    if any(rank != i for i, (rank, _docid, _score) in enumerate(ranked, 1)) or \
            len({docid for _rank, docid, _score in ranked}) != len(ranked):
        return None
    try:
        return [model.RetrievedDoc(rank, docid, None if score is None else float(score))
                for rank, docid, score in ranked]
    except ValueError:  # a SCORE libxml2 let through ("1e"): the general reading says so
        return None


def write_topic(result, topic: model.IR4QATopic) -> None:
    for doc in topic.documents:
        child(result, "DOCUMENT", RANK=doc.rank, DOCID=doc.docid, SCORE=doc.score)


def cited(run: model.IR4QARun) -> tuple[str | None, list[str]]:
    """The ranked documents, of the run's target language."""
    return runs.target_lang(run), [d.docid for t in run.topics for d in t.documents]


read_topics = runs.each_topic(read_topic)
read = runs.reader(model.IR4QARun, read_topics)
write = runs.writer(RESULT, write_topic)
