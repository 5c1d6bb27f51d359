"""The shapes the language modules fill in. Documents, topics and nuggets are numbered; the numbers
become `SEPIA-<LANG>-0001` style IDs and nugget IDs `N001`... in the written files."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Doc:
    number: int
    date: str  # YYYY-MM-DD
    headline: str
    text: str  # paragraphs separated by a newline


@dataclass(frozen=True)
class Nugget:
    text: str
    sources: tuple[int, ...]  # document numbers that state the information
    votes: str  # one "1" (vital) or "0" (not vital) per assessor, in Collection.assessors order


@dataclass(frozen=True)
class Topic:
    number: int
    answer_type: str
    question: str  # in the collection's language
    question_en: str
    narrative: str
    narrative_en: str
    nuggets: tuple[Nugget, ...]
    memo: str = ""


@dataclass(frozen=True)
class Answer:
    """One system response and how the assessors judged it.

    `judged` holds, per assessor who judged it, the numbers of the nuggets that assessor found in the
    text (every other nugget of the topic was judged absent). `verbatim` answers are copied from one
    of their documents; the others paraphrase. `low_overlap` names nuggets judged present although
    fewer than half of their characters occur in the answer; `high_overlap` names nuggets judged
    absent although more than half of their characters occur (the tests check both claims)."""
    text: str
    docs: tuple[int, ...]
    judged: dict[str, tuple[int, ...]]
    verbatim: bool = True
    low_overlap: tuple[int, ...] = ()
    high_overlap: tuple[int, ...] = ()


@dataclass(frozen=True)
class CCLQARun:
    run_id: str
    description: str
    # topic number -> keys into Collection.answers[topic] in rank order; a topic left out has no
    # TOPIC element, an empty tuple gives a TOPIC with an empty CCLQA_RESULT
    answers: dict[int, tuple[str, ...]]
    ir4qa_run_id: str | None = None


@dataclass(frozen=True)
class IR4QARun:
    run_id: str
    description: str
    rankings: dict[int, tuple[int, ...]]  # topic number -> document numbers, best first


@dataclass(frozen=True)
class Collection:
    lang: str  # CS, CT or JA
    assessors: tuple[str, str, str]
    docs: tuple[Doc, ...]
    topics: tuple[Topic, ...]
    answers: dict[int, dict[str, Answer]]  # topic number -> answer key -> answer
    runs: tuple[CCLQARun, ...]
    ir4qa_runs: tuple[IR4QARun, ...]
    qrels: dict[int, dict[int, int]]  # topic number -> document number -> relevance level 0..2
    double_judged: tuple[int, ...]  # topics on which a second assessor judged every answer
    # topic number -> its gold key terms: (in the collection's language, in English)
    key_terms: dict[int, tuple[tuple[str, ...], tuple[str, ...]]]

    def doc_id(self, number: int) -> str:
        # Newswire-style, as NTCIR's (XIN_CMN_20080301.0001): never mistaken for a topic ID.
        return f"SEPIA_{self.lang}_DOC.{number:04d}"

    def topic_id(self, number: int) -> str:
        return f"SEPIA-{self.lang}-{number:04d}"


def nugget_id(number: int) -> str:
    return f"N{number:03d}"
