"""The campaign store's votes and judgments as the units of `sepia.metaeval.assessors`, with the
judging screens' seconds per item and the items each assessor has done: what the organisers'
assessor page shows.

A CCLQA item stands for every pooled response with the same text and its judgment is written for
each of them; here such responses are one unit per nugget (the item's own response), credited to
every run that returned one of them, so that equal responses are not counted twice."""
from __future__ import annotations

from collections import defaultdict

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from sepia.metaeval.assessors import Unit
from sepia.store import models as db


def _topics(session: Session) -> dict[str, tuple[str, str]]:
    return {t: (lang, answer_type or "OTHER") for t, lang, answer_type in
            session.execute(select(db.Topic.id, db.Topic.lang, db.Topic.answer_type))}


def _unit(units: dict, topics: dict, kind: str, key: tuple, topic_id: str) -> Unit:
    unit = units.get(key)
    if unit is None:
        lang, answer_type = topics.get(topic_id, ("?", "OTHER"))
        unit = units[key] = Unit(kind, key, topic_id, lang, answer_type)
    return unit


def vote_units(session: Session, topics: dict) -> list[Unit]:
    units: dict[tuple, Unit] = {}
    for topic_id, nugget_id, assessor, vital in session.execute(
            select(db.Nugget.topic_id, db.Vote.nugget_id, db.Vote.assessor, db.Vote.vital).join(db.Nugget)):
        _unit(units, topics, "vote", ("vote", nugget_id), topic_id).add(assessor, 1.0 if vital else 0.0)
    return list(units.values())


def match_units(session: Session, topics: dict) -> list[Unit]:
    item_of: dict[int, int] = dict(session.execute(  # pooled response -> the response that stands for its item
        select(db.pool_member.c.response_id, db.PoolEntry.response_id)
        .join(db.PoolEntry, db.PoolEntry.id == db.pool_member.c.entry_id)
        .where(db.PoolEntry.control_id.is_(None))).all())
    units: dict[tuple, Unit] = {}
    runs: dict[tuple, set] = defaultdict(set)
    for response_id, nugget_id, assessor, match, topic_id, run_id in session.execute(
            select(db.NuggetJudgment.response_id, db.NuggetJudgment.nugget_id, db.NuggetJudgment.assessor,
                   db.NuggetJudgment.match, db.RunTopic.topic_id, db.Run.run_id)
            .join(db.Response, db.Response.id == db.NuggetJudgment.response_id)
            .join(db.RunTopic, db.RunTopic.id == db.Response.run_topic_id).join(db.Run)):
        key = ("match", item_of.get(response_id, response_id), nugget_id)
        _unit(units, topics, "match", key, topic_id).add(assessor, match)
        runs[key].add(run_id)
    for key, unit in units.items():
        unit.runs = tuple(sorted(runs[key]))
    return list(units.values())


def relevance_units(session: Session, topics: dict) -> list[Unit]:
    units: dict[tuple, Unit] = {}
    for topic_id, docid, assessor, level in session.execute(
            select(db.RelevanceJudgment.topic_id, db.RelevanceJudgment.docid, db.RelevanceJudgment.assessor,
                   db.RelevanceJudgment.level)):
        _unit(units, topics, "relevance", ("relevance", topic_id, docid), topic_id).add(assessor, level)
    runs: dict[tuple, set] = defaultdict(set)
    for topic_id, docid, run_id in session.execute(  # the runs that retrieved a judged document
            select(db.RunTopic.topic_id, db.RetrievedDocument.docid, db.Run.run_id).distinct()
            .join(db.RunTopic, db.RunTopic.id == db.RetrievedDocument.run_topic_id).join(db.Run)
            .join(db.RelevanceJudgment, (db.RelevanceJudgment.topic_id == db.RunTopic.topic_id)
                  & (db.RelevanceJudgment.docid == db.RetrievedDocument.docid))):
        runs[("relevance", topic_id, docid)].add(run_id)
    for key, unit in units.items():
        unit.runs = tuple(sorted(runs[key]))
    return list(units.values())


def units(session: Session) -> list[Unit]:
    """Every vote, nugget match and relevance judgment of the campaign, as units."""
    topics = _topics(session)
    return vote_units(session, topics) + match_units(session, topics) + relevance_units(session, topics)


POOL_KINDS = {"cclqa": "match", "ir4qa": "relevance"}


def seconds(session: Session) -> dict[tuple[str, str], list[float]]:
    """(kind, assessor) -> the seconds the judging screen timed on each item they judged."""
    found: dict[tuple[str, str], list[float]] = defaultdict(list)
    for kind, assessor, spent in session.execute(
            select(db.Pool.kind, db.Assignment.assessor, db.Assignment.seconds)
            .join(db.PoolEntry, db.PoolEntry.id == db.Assignment.entry_id).join(db.Pool)):
        if spent is not None:  # an item the screen did not time
            found[POOL_KINDS[kind], assessor].append(spent)
    return dict(found)


def items_done(session: Session) -> dict[tuple[str, str], int]:
    """(kind, assessor) -> pool items judged (control items included: they are judged the same way)."""
    return {(POOL_KINDS[kind], assessor): n for kind, assessor, n in session.execute(
        select(db.Pool.kind, db.Assignment.assessor, func.count())
        .join(db.PoolEntry, db.PoolEntry.id == db.Assignment.entry_id).join(db.Pool)
        .where(db.Assignment.judged_at.is_not(None)).group_by(db.Pool.kind, db.Assignment.assessor))}


def report(session: Session, threshold: float) -> dict:
    """The organisers' assessor report, JSON-ready: accuracy on control items (flagged below the
    threshold), per-assessor quality with items done, Cohen's kappa per pair, and dispute rates by
    topic, answer type, language, run and assessor."""
    from sepia.metaeval.assessors import GROUPS, assessor_quality, dispute_rates, kappa_matrix
    from sepia.store.controls import accuracy

    found = units(session)
    done = items_done(session)
    tables: dict[str, list] = {
        "controls": accuracy(session, threshold),
        "quality": assessor_quality(found, seconds(session)),
        "kappa": kappa_matrix(found),
        "disputes": [r for by in GROUPS for r in dispute_rates(found, by)],
    }
    report = {name: [_defined(r.as_dict()) for r in rows] for name, rows in tables.items()}
    for row in report["quality"]:
        row["done"] = done.get((row["kind"], row["assessor"]))
    return {"threshold": threshold, **report}


def _defined(row: dict) -> dict:
    """An undefined figure (NaN: nothing to measure) as None, so that the JSON is valid."""
    return {k: None if isinstance(v, float) and v != v else v for k, v in row.items()}


def columns(table: str) -> list[str]:
    """The columns of one of the report's tables, also when it has no rows."""
    from dataclasses import fields

    from sepia.metaeval.assessors import AssessorQuality, DisputeRate, PairKappa
    from sepia.store.controls import ControlAccuracy

    kinds = {"controls": ControlAccuracy, "quality": AssessorQuality, "kappa": PairKappa, "disputes": DisputeRate}
    return [f.name for f in fields(kinds[table])] + (["done"] if table == "quality" else [])
