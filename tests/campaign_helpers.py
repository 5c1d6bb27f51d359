"""Run files and schedules for the participants' tests: runs written as a team would write them, and
topic sets whose windows sit where a test needs them relative to now."""
from __future__ import annotations

from datetime import timedelta
from xml.sax.saxutils import escape

from sepia.store.models import TaskWindow, Topic, TopicSet, utcnow

HOUR = timedelta(hours=1)


def run_xml(kind: str, run_id: str, topics: dict[str, list], ir4qa_run: str | None = None) -> bytes:
    """A run file: `topics` maps topic IDs to answers (CCLQA: texts), DOCIDs (IR4QA) or answer types (QA)."""
    meta = f"<RUNID>{run_id}</RUNID><DESCRIPTION>test run</DESCRIPTION>"
    if ir4qa_run:
        meta += f"<IR4QA_RUNID>{ir4qa_run}</IR4QA_RUNID>"
    body = []
    for topic_id, items in topics.items():
        if kind == "cclqa":
            inner = "".join(f'<ANSWER RANK="{i}"><TEXT>{escape(text)}</TEXT></ANSWER>' for i, text in enumerate(items, 1))
            body.append(f'<TOPIC ID="{topic_id}"><CCLQA_RESULT>{inner}</CCLQA_RESULT></TOPIC>')
        elif kind == "ir4qa":
            inner = "".join(f'<DOCUMENT RANK="{i}" DOCID="{d}" SCORE="{10 - i}"/>' for i, d in enumerate(items, 1))
            body.append(f'<TOPIC ID="{topic_id}"><IR4QA_RESULT>{inner}</IR4QA_RESULT></TOPIC>')
        else:
            inner = "".join(f'<ANSWER_TYPE SCORE="0.5">{t}</ANSWER_TYPE>' for t in items)
            body.append(f'<TOPIC ID="{topic_id}"><QUESTION_ANALYSIS>{inner}</QUESTION_ANALYSIS></TOPIC>')
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<TOPIC_SET><METADATA>{meta}</METADATA>'
            + "".join(body) + "</TOPIC_SET>\n").encode("utf-8")


def schedule(store, name: str, topic_ids: list[str], windows: dict[str, tuple], max_runs: int = 5) -> int:
    """A topic set of these topics with windows {task: (opens, closes, release)} as offsets in hours
    from now (release None: not released). Returns the set's ID."""
    now = utcnow()
    with store.transaction() as session:
        topic_set = TopicSet(name=name)
        for task, (opens, closes, release) in windows.items():
            topic_set.windows.append(TaskWindow(
                task=task, opens_at=now + opens * HOUR, closes_at=now + closes * HOUR,
                release_at=None if release is None else now + release * HOUR, max_runs=max_runs))
        session.add(topic_set)
        session.flush()
        for topic in session.query(Topic).filter(Topic.id.in_(topic_ids)):
            topic.topic_set_id = topic_set.id
        return topic_set.id


def move_window(store, set_id: int, task: str, opens: float, closes: float, release: float | None) -> None:
    """Shift a window, as time passing would."""
    now = utcnow()
    with store.transaction() as session:
        window = session.query(TaskWindow).filter_by(topic_set_id=set_id, task=task).one()
        window.opens_at, window.closes_at = now + opens * HOUR, now + closes * HOUR
        window.release_at = None if release is None else now + release * HOUR
