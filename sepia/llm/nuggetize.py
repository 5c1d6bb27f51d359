"""Nugget suggestions: the model reads a topic's question and its saved answer passages and proposes
nuggets, each with the passages (so the DOCIDs) it comes from. A suggestion is only that: the nugget
creator accepts, edits or discards it, and the votes stay human."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from sepia.llm import prompts
from sepia.llm.assessor import Assessor
from sepia.llm.client import LLMError
from sepia.llm.labels import json_values

MAX_NUGGETS = 12


@dataclass(frozen=True)
class Passage:
    docid: str
    text: str


@dataclass(frozen=True)
class Suggestion:
    text: str
    docids: tuple[str, ...]
    passages: tuple[int, ...]  # indexes into the passages given


def payload(assessor: Assessor, lang: str, question: str, passages: Sequence[Passage], most: int) -> dict:
    listed = "\n\n".join(f"[{i}] ({p.docid}) {' '.join(p.text.split())}" for i, p in enumerate(passages, 1))
    messages = prompts.packaged("nuggetize", lang).messages(question=question, passages=listed, max=str(most))
    return {"model": assessor.model, "temperature": 0, "max_tokens": 64 * most, "messages": messages}


def suggest(assessor: Assessor, lang: str, question: str, passages: Sequence[Passage],
            most: int = MAX_NUGGETS) -> list[Suggestion]:
    """The model's nuggets for one topic (cached as every request is); LLMError when its answer holds
    no list of nuggets."""
    if not passages:
        return []
    record = assessor.ask(payload(assessor, lang, question, passages, most))
    found = read(record["content"], passages)
    if found is None:
        raise LLMError(f"the model {assessor.model} answered no list of nuggets: "
                       f"{' '.join(record['content'].split())[:80]!r}")
    return found[:most]


def read(text: str, passages: Sequence[Passage]) -> list[Suggestion] | None:
    """Suggestions from the model's answer: {"nuggets": [{"text", "sources"}]} or a bare list, sources
    as passage numbers or DOCIDs (those naming no passage are dropped); None when there is no list."""
    for value in json_values(text):
        listed = value.get("nuggets") if isinstance(value, dict) else value
        if not isinstance(listed, list):
            return None
        found = []
        for entry in listed:
            text_of = entry.get("text") if isinstance(entry, dict) else entry
            if not isinstance(text_of, str) or not text_of.strip():
                continue
            sources = entry.get("sources", []) if isinstance(entry, dict) else []
            picked = sorted({i for s in (sources if isinstance(sources, list) else [sources])
                             if (i := _passage(s, passages)) is not None})
            found.append(Suggestion(" ".join(text_of.split()), tuple(dict.fromkeys(passages[i].docid for i in picked)),
                                    tuple(picked)))
        return found
    return None


def _passage(source, passages: Sequence[Passage]) -> int | None:
    if isinstance(source, int) and not isinstance(source, bool) and 1 <= source <= len(passages):
        return source - 1
    if isinstance(source, str):
        stripped = source.strip().strip("[]()")
        if stripped.isdigit():
            return _passage(int(stripped), passages)
        return next((i for i, p in enumerate(passages) if p.docid == stripped), None)
    return None
