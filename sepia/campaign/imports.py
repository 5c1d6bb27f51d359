"""An organiser's import of an exchange file into the store (`sepia import`): the importers that
sepia/formats/registry.py names, each (session, object, file name, file bytes, replace) -> what was
imported. The caller commits; ImportRefused leaves the store as it was."""
from __future__ import annotations

from sqlalchemy.orm import Session

from sepia.campaign.submission import import_run_file
from sepia.formats import model
from sepia.store.exchange.gold import import_gold
from sepia.store.exchange.topics import import_topics


def topics(session: Session, topic_set: model.TopicSet, filename: str, data: bytes | None, replace: bool) -> str:
    return f"{import_topics(session, topic_set, replace)} topics"


def gold(session: Session, gold: model.GoldStandard, filename: str, data: bytes | None, replace: bool) -> str:
    return f"{import_gold(session, gold, replace)} nuggets in {len(gold.topics)} topics"


def run(session: Session, run, filename: str, data: bytes | None, replace: bool) -> str:
    """A run, and its bytes as its team's current submission (campaign.submission.import_run_file)."""
    assert data is not None, "sepia import passes the bytes of every XML file"
    row = import_run_file(session, run, filename, data, replace)
    return f"{row.kind} run {row.run_id}"
