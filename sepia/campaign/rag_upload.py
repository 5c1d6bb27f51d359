"""A TREC RAG AG/RAG answer file (JSON lines) uploaded as it is, through the web tool or `sepia
submit`: checked with the track's rules and turned into the CCLQA run it stands for, which is then
checked and stored like an uploaded XML run (its JSONL bytes are what the team's submission keeps).

The file's `narrative_id`s are SEPIA's topic IDs (the organiser hands out the topics with
`sepia convert to-rag-topics` without a map) or the track's own: the campaign's topics that
`sepia convert rag-topics` named from the track's IDs carry them (`RAG2025-EN-7` is the track's `7`,
`RAG2024-EN-145979` its `2024-145979`), so those are mapped back; any other ID is refused. The run ID is TEAM-EN-EN-NN-T with the submitting team: an answer file whose
`run_id` the team has uploaded before keeps that run's NN (and replaces it); a new one takes the
team's smallest free NN. The run is always the uploader's team's: a file whose `team_id` names
another team (the track's name for a team is often not its SEPIA name) is stored so, and its receipt
says what it was stored as.
"""
from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from sepia import vocab
from sepia.convert.nuggetizer import LANG
from sepia.convert.rag_answers import DESCRIPTION, convert_rag_answers
from sepia.convert.rag_topics import track_topic_ids
from sepia.convert.validate import starts_with_object
from sepia.formats.errors import FormatError, Problem
from sepia.formats.write import to_xml
from sepia.store.models import Run, Topic


def is_answer_file(data: bytes) -> bool:
    return starts_with_object(data)


def answer_file_xml(session: Session, team: str, filename: str, data: bytes) -> tuple[bytes, list[str]]:
    """The CCLQA run XML of an answer file, and what its receipt must say about how it was stored;
    raises FormatError listing the file's problems."""
    conversion = convert_rag_answers(filename, _campaign_topic_ids(session), team=team, data=data,
                                     known_from="by SEPIA's topic ID or the track's")
    taken: dict[str, int] = {}
    for run_id, description in session.execute(select(Run.run_id, Run.description).where(
            Run.team == team, Run.kind == "cclqa", Run.run_id.like(f"%-{LANG}-{LANG}-%"))):
        parsed = vocab.parse_run_id(run_id)
        if parsed:
            taken[description] = parsed.priority
    description = DESCRIPTION.format(conversion.original_run_id)
    priority = taken.get(description) or min(set(range(1, 100)) - set(taken.values()), default=None)
    if priority is None:
        raise FormatError([Problem(filename, 1, 1, f"team {team} has runs 01 to 99 already")])
    run_id = conversion.run.metadata.run_id = f"{team}-{LANG}-{LANG}-{priority:02d}-T"
    notes = []
    if conversion.original_team_id.casefold() != team.casefold():
        notes.append(f"The file's team_id {conversion.original_team_id!r} is not your team: stored as team "
                     f"{team}'s run {run_id} (its run_id {conversion.original_run_id!r} kept in the description).")
    return to_xml(conversion.run), notes


def _campaign_topic_ids(session: Session) -> dict[str, str]:
    """The campaign's English topic IDs, each known by itself and by the track ID it was named from."""
    stored = session.scalars(select(Topic.id).where(Topic.id.like(f"%-{LANG}-%"))).all()
    return track_topic_ids(stored) | {topic_id: topic_id for topic_id in stored}
