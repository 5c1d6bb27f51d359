"""Gold standards (nuggets, their sources and votes) into the campaign store and back."""
from __future__ import annotations

from typing import Iterable

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session, selectinload

from sepia.formats import model
from sepia.scoring.weights import nugget_weights
from sepia.store import models as db
from sepia.store.bulk import CHUNK, batches, inserted_ids
from sepia.store.errors import ImportRefused
from sepia.store.exchange.topics import of_topics, topic_lang


def import_gold(session: Session, gold: model.GoldStandard, replace: bool = False) -> int:
    """Add the gold standard's nuggets and votes; topics it names are created when missing.

    A topic that already has nuggets is refused unless `replace`, which swaps its nuggets whole.
    Nuggets, their sources and votes are inserted a batch at a time without an ORM object each
    (6,000 nuggets took 10.5 s of CPU that way; the file's reading and checks take a fraction)."""
    ids = [t.topic_id for t in gold.topics]
    existing: dict[str, db.Topic] = {}
    with_nuggets: set[str] = set()
    for i in range(0, len(ids), CHUNK):
        chunk = ids[i:i + CHUNK]
        existing.update((t.id, t) for t in session.scalars(select(db.Topic).where(db.Topic.id.in_(chunk))))
        with_nuggets.update(session.scalars(select(db.Nugget.topic_id).where(db.Nugget.topic_id.in_(chunk)).distinct()))
    clashes = [t for t in ids if t in with_nuggets]
    if clashes and not replace:
        raise ImportRefused([f"topic {t} already has nuggets (use replace to overwrite)" for t in clashes])
    texts = []  # the questions of the topics created
    for topic in gold.topics:
        row = existing.get(topic.topic_id)
        if row is None:
            row = existing[topic.topic_id] = db.Topic(id=topic.topic_id, lang=topic_lang(topic.topic_id, gold.lang),
                                                      status="completed")
            session.add(row)
            texts += [{"topic_id": topic.topic_id, "kind": "question", "lang": q.lang, "text": q.text, "position": i}
                      for i, q in enumerate(topic.questions)]
        row.answer_type = topic.answer_type
    for i in range(0, len(clashes), CHUNK):  # the old nuggets go first (the new ones reuse their labels),
        session.execute(delete(db.Nugget).where(db.Nugget.topic_id.in_(clashes[i:i + CHUNK])))  # theirs with them
    session.flush()
    nuggets = [(topic.topic_id, i, n) for topic in gold.topics for i, n in enumerate(topic.nuggets)]
    nugget_ids = inserted_ids(session, db.Nugget, [
        {"topic_id": topic_id, "label": n.nugget_id, "text": n.text, "position": i, "weight": n.weight,
         "vital_count": None if n.votes else n.vital_count, "voter_count": None if n.votes else n.voter_count}
        for topic_id, i, n in nuggets])
    connection, now = session.connection(), db.utcnow()
    sources = [{"nugget_id": pk, "docid": d, "position": i} for pk, (_t, _i, n) in zip(nugget_ids, nuggets)
               for i, d in enumerate(n.sources)]
    votes = [{"nugget_id": pk, "assessor": a, "vital": v, "created_at": now}
             for pk, (_t, _i, n) in zip(nugget_ids, nuggets) for a, v in n.votes]
    for model_, rows in ((db.TopicText, texts), (db.NuggetSource, sources), (db.Vote, votes)):
        for batch in batches(rows):
            connection.execute(insert(model_), batch)
    for row in existing.values():
        session.expire(row, ["nuggets", "texts"])  # the ORM's lists, if loaded, predate these rows
    return len(nuggets)


def export_gold(session: Session, lang: str | None = None, topic_ids: Iterable[str] | None = None
                ) -> model.GoldStandard:
    """The gold standard of the topics that have nuggets (of one language, or the ones named).

    WEIGHT is the weight a file gave, or else the pyramid weight of the current votes. SOURCE lists
    the documents given on import, then those of the answer texts the nugget was extracted from."""
    query = (select(db.Topic).join(db.Nugget).distinct().order_by(db.Topic.id)
             .options(selectinload(db.Topic.texts),
                      selectinload(db.Topic.nuggets).selectinload(db.Nugget.votes),
                      selectinload(db.Topic.nuggets).selectinload(db.Nugget.sources),
                      selectinload(db.Topic.nuggets).selectinload(db.Nugget.answer_texts)))
    topics = []
    for row in session.scalars(of_topics(query, lang, topic_ids)):
        nuggets = [gold_nugget(n) for n in sorted(row.nuggets, key=lambda n: n.position)]
        pyramid, _ = nugget_weights(nuggets, "pyramid")
        for nugget, weight in zip(nuggets, pyramid):
            if nugget.weight is None:
                nugget.weight = round(weight, 4)
        questions = [model.LangText(t.lang, t.text) for t in sorted(row.texts, key=lambda t: t.position)
                     if t.kind == "question"]
        topics.append(model.GoldTopic(row.id, row.answer_type or "OTHER", questions, nuggets))
    return model.GoldStandard(lang, topics)


def gold_nugget(row: db.Nugget) -> model.GoldNugget:
    sources = [s.docid for s in sorted(row.sources, key=lambda s: s.position)]
    sources += [a.docid for a in row.answer_texts if a.docid not in sources]
    return model.GoldNugget(row.label, row.text, row.weight, list(dict.fromkeys(sources)),
                            [(v.assessor, v.vital) for v in sorted(row.votes, key=lambda v: v.id)],
                            row.vital_count, row.voter_count)
