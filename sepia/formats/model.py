"""Plain in-memory forms of the exchange formats (docs/spec.md, Formats), independent of XML and database.

Readers build these from files, writers turn them back into XML, the store imports and exports them,
and scoring reads them. Order is kept everywhere, so that export after import gives the same file.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from sepia import vocab


@dataclass
class Metadata:
    run_id: str
    description: str = ""
    ir4qa_run_id: str | None = None  # CCLQA only: the IR4QA run whose documents it used


# ---------------------------------------------------------------- topics

@dataclass
class LangText:
    lang: str
    text: str


@dataclass
class Topic:
    topic_id: str
    questions: list[LangText]
    narratives: list[LangText] = field(default_factory=list)
    answer_type: str | None = None
    status: str | None = None  # in_progress | completed
    memo: str | None = None
    key_terms: list[LangText] = field(default_factory=list)  # gold key terms, for Question Analysis runs

    def question(self, lang: str) -> str | None:
        return next((q.text for q in self.questions if q.lang == lang), None)


@dataclass
class TopicSet:
    topics: list[Topic]
    lang: str | None = None


# ---------------------------------------------------------------- gold standard

@dataclass
class GoldNugget:
    nugget_id: str
    text: str
    weight: float | None = None  # as written in the file; scoring recomputes it from votes
    sources: list[str] = field(default_factory=list)  # DOCIDs
    votes: list[tuple[str, bool]] = field(default_factory=list)  # (assessor, vital), in file order
    vital_count: int | None = None  # counts given without individual votes
    voter_count: int | None = None

    @property
    def vital_votes(self) -> int | None:
        """v(n): how many assessors voted this nugget vital, or None when nothing is recorded."""
        if self.votes:
            return sum(1 for _, vital in self.votes if vital)
        return self.vital_count

    @property
    def voters(self) -> int | None:
        if self.votes:
            return len(self.votes)
        return self.voter_count


@dataclass
class GoldTopic:
    topic_id: str
    answer_type: str
    questions: list[LangText] = field(default_factory=list)
    nuggets: list[GoldNugget] = field(default_factory=list)


@dataclass
class GoldStandard:
    lang: str | None
    topics: list[GoldTopic]

    def topic(self, topic_id: str) -> GoldTopic | None:
        return next((t for t in self.topics if t.topic_id == topic_id), None)


def topic_lang(gold: GoldStandard, topic: GoldTopic) -> str:
    """A gold topic's language: the one its ID names, else the gold standard's, else EN."""
    return vocab.topic_language(topic.topic_id) or gold.lang or "EN"


# ---------------------------------------------------------------- runs

@dataclass
class KeyTerm:
    text: str
    lang: str | None = None
    score: float | None = None


@dataclass
class AnswerTypeScore:
    answer_type: str
    score: float | None = None


@dataclass
class QATopic:
    topic_id: str
    key_terms: list[KeyTerm] = field(default_factory=list)
    answer_types: list[AnswerTypeScore] = field(default_factory=list)


@dataclass
class QARun:
    metadata: Metadata
    topics: list[QATopic]


@dataclass(slots=True)  # an IR4QA run holds up to a million of them: a fifth less memory without a __dict__
class RetrievedDoc:
    rank: int
    docid: str
    score: float | None = None


@dataclass
class IR4QATopic:
    topic_id: str
    documents: list[RetrievedDoc] = field(default_factory=list)


@dataclass
class IR4QARun:
    metadata: Metadata
    topics: list[IR4QATopic]


@dataclass
class Answer:
    """One system response (SR): its text is never truncated."""
    rank: int
    text: str
    docids: list[str] = field(default_factory=list)


@dataclass
class CCLQATopic:
    topic_id: str
    answers: list[Answer] = field(default_factory=list)


@dataclass
class CCLQARun:
    metadata: Metadata
    topics: list[CCLQATopic]

    @property
    def run_id(self) -> str:
        return self.metadata.run_id

    def topic(self, topic_id: str) -> CCLQATopic | None:
        return next((t for t in self.topics if t.topic_id == topic_id), None)


# ---------------------------------------------------------------- judgments (TSV)

@dataclass(frozen=True, slots=True)  # a TREC RAG campaign's file holds hundreds of thousands: no __dict__ each
class Judgment:
    """One row of the human nugget judgments TSV."""
    topic_id: str
    run_id: str
    answer_rank: int
    nugget_id: str
    match: float  # 1 (contains the nugget), 0 (does not), 0.5 (partial support); True/False read as 1/0
    assessor: str
