"""Emptying the campaign store of its campaign data."""
from __future__ import annotations

from sqlalchemy import delete
from sqlalchemy.orm import Session

from sepia.store import models as db


def delete_all(session: Session) -> None:
    """Empty the campaign data (not the accounts): used by `sepia demo` to start afresh."""
    for table in (db.NuggetJudgment, db.PoolEntry, db.ControlItem, db.Pool, db.RelevanceJudgment, db.EvaluationResult,
                  db.ReleasedSettings, db.Submission, db.Run, db.Topic, db.TaskWindow, db.TopicSet, db.Document):
        session.execute(delete(table))
