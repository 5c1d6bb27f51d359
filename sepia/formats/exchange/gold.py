"""Gold standards: TOPIC_SET of TOPICs with their NUGGETs, each nugget's sources and votes."""
from __future__ import annotations

from lxml import etree

from sepia.formats import model
from sepia.formats.checks import Checks
from sepia.formats.elements import child, set_attributes
from sepia.vocab import nugget_key


def read(checks: Checks, root) -> model.GoldStandard:
    topics = []
    for el, topic_id, questions in checks.topics_with_questions(root):
        nuggets, seen = [], set()
        texts: dict[str, str] = {}  # a text's key -> the first nugget with it
        for n in el.iterfind("NUGGET"):
            nugget_id = n.get("ID", "")
            if nugget_id in seen:
                checks.error(n, f"topic {topic_id}: nugget {nugget_id} appears more than once")
            seen.add(nugget_id)
            nugget = _nugget(checks, n, topic_id)
            first = texts.setdefault(nugget_key(nugget.text), nugget_id)
            if first != nugget_id:
                checks.error(n, f"topic {topic_id}: nugget {nugget_id} has the text of nugget {first}: a topic's "
                                "nuggets are unique (after NFKC and white-space folding)")
            nuggets.append(nugget)
        topics.append(model.GoldTopic(topic_id, el.get("ANSWER_TYPE", ""), questions, nuggets))
    return model.GoldStandard(root.get("LANG"), topics)


def _nugget(checks: Checks, el, topic_id: str) -> model.GoldNugget:
    nugget_id = el.get("ID", "")
    votes, assessors = [], set()
    for vote in el.iterfind("VOTE"):
        assessor = vote.get("ASSESSOR", "")
        if assessor in assessors:
            checks.error(vote, f"topic {topic_id}: nugget {nugget_id} has two votes by {assessor}")
        assessors.add(assessor)
        votes.append((assessor, vote.get("VITAL") == "1"))
    vital_count = checks.number(el, "VITAL_VOTES", int)
    voter_count = checks.number(el, "VOTERS", int)
    if vital_count is not None and voter_count is not None and vital_count > voter_count:
        checks.error(el, f"topic {topic_id}: nugget {nugget_id} has VITAL_VOTES={vital_count} "
                         f"but only VOTERS={voter_count}")
    if votes:
        vital = sum(1 for _, v in votes if v)
        if vital_count is not None and vital_count != vital:
            checks.error(el, f"topic {topic_id}: nugget {nugget_id} says VITAL_VOTES={vital_count} "
                             f"but its VOTEs have {vital} vital")
        if voter_count is not None and voter_count != len(votes):
            checks.error(el, f"topic {topic_id}: nugget {nugget_id} says VOTERS={voter_count} "
                             f"but has {len(votes)} VOTEs")
    if votes:  # the counts are then derived from the votes (and were checked against them above)
        vital_count = voter_count = None
    return model.GoldNugget(
        nugget_id, el.findtext("TEXT") or "", checks.number(el, "WEIGHT", where=f"topic {topic_id}: nugget {nugget_id}: "),
        [s.get("DOCID", "") for s in el.iterfind("SOURCE")], votes, vital_count, voter_count)


def write(obj: model.GoldStandard) -> etree._Element:
    root = etree.Element("TOPIC_SET")
    set_attributes(root, LANG=obj.lang)
    for topic in obj.topics:
        el = child(root, "TOPIC", ID=topic.topic_id, ANSWER_TYPE=topic.answer_type)
        for q in topic.questions:
            child(el, "QUESTION", q.text, LANG=q.lang)
        for n in topic.nuggets:
            nugget = child(el, "NUGGET", ID=n.nugget_id, WEIGHT=n.weight, VITAL_VOTES=n.vital_votes, VOTERS=n.voters)
            child(nugget, "TEXT", n.text)
            for docid in n.sources:
                child(nugget, "SOURCE", DOCID=docid)
            for assessor, vital in n.votes:
                child(nugget, "VOTE", ASSESSOR=assessor, VITAL=int(vital))
    return root


def cited(obj: model.GoldStandard) -> tuple[str | None, list[str]]:
    """The nuggets' sources."""
    return obj.lang, [d for t in obj.topics for n in t.nuggets for d in n.sources]
