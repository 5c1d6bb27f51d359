"""The campaign store: one SQLAlchemy 2 model per thing an evaluation campaign keeps.

Assessors appear in votes and judgments by name, not by account, so that gold standards and
judgment files from outside (other tools, earlier campaigns) import without inventing users; the
web tool writes the account's username there.
"""
from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    LargeBinary,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from sepia import limits
from sepia.vocab import TOPIC_IN_PROGRESS, TOPIC_STATUSES


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def as_utc(moment: datetime) -> datetime:
    """A stored time as an aware UTC datetime (SQLite hands back naive ones for what was UTC)."""
    return moment.astimezone(timezone.utc) if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


class Base(DeclarativeBase):
    pass


# ---------------------------------------------------------------- people

ROLES = ("organiser", "topic_developer", "assessor", "participant")


class Team(Base):
    __tablename__ = "team"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    users: Mapped[list[User]] = relationship(back_populates="team")


class User(Base):
    __tablename__ = "user_account"
    __table_args__ = (CheckConstraint(f"role IN {ROLES}", name="ck_user_role"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(100), unique=True)
    password_hash: Mapped[str] = mapped_column(String(255))
    role: Mapped[str] = mapped_column(String(20))
    display_name: Mapped[str] = mapped_column(String(200), default="")
    team_id: Mapped[int | None] = mapped_column(ForeignKey("team.id"))
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    # The target languages an assessor works in ("CS JA"); None: every language.
    languages: Mapped[str | None] = mapped_column(String(20))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    team: Mapped[Team | None] = relationship(back_populates="users")
    login_sessions: Mapped[list[LoginSession]] = relationship(cascade="all, delete-orphan")


class LoginSession(Base):
    """A logged-in browser. The cookie carries a random token, the store only its SHA-256: logging
    out deletes the row, so a copied cookie stops working too."""
    __tablename__ = "login_session"
    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class LoginFailure(Base):
    """A failed log-in, kept while it counts towards the throttle of its account and its address."""
    __tablename__ = "login_failure"
    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(100), index=True)
    address: Mapped[str] = mapped_column(String(64), index=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)


# ---------------------------------------------------------------- collections

class Document(Base):
    """One document of a target-language collection, fetched by its DOCID for display and checks."""
    __tablename__ = "document"
    id: Mapped[int] = mapped_column(primary_key=True)
    docid: Mapped[str] = mapped_column(String(limits.DOCID), unique=True)
    lang: Mapped[str] = mapped_column(String(2), index=True)
    title: Mapped[str] = mapped_column(Text, default="")
    date: Mapped[str | None] = mapped_column(String(40))
    text: Mapped[str] = mapped_column(Text)
    source: Mapped[str | None] = mapped_column(String(500))


# ---------------------------------------------------------------- topics, answers, nuggets

class TopicSet(Base):
    """A set of topics evaluated together (a dry run, a formal run), with its submission windows."""
    __tablename__ = "topic_set"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    description: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    windows: Mapped[list[TaskWindow]] = relationship(
        back_populates="topic_set", cascade="all, delete-orphan", order_by="TaskWindow.opens_at")


class Topic(Base):
    __tablename__ = "topic"
    __table_args__ = (CheckConstraint(f"status IN {TOPIC_STATUSES}", name="ck_topic_status"),)
    id: Mapped[str] = mapped_column(String(limits.TOPIC_ID), primary_key=True)  # e.g. ACLIA2-CS-0001
    lang: Mapped[str] = mapped_column(String(2), index=True)  # target (collection) language
    # No ON DELETE action: SQLite adds this column in place (see migration 0003) and cannot reflect
    # one; a topic set is emptied before it is deleted.
    topic_set_id: Mapped[int | None] = mapped_column(ForeignKey("topic_set.id"), index=True)
    answer_type: Mapped[str | None] = mapped_column(String(20))
    memo: Mapped[str | None] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(20), default=TOPIC_IN_PROGRESS)
    # A retired topic keeps its nuggets and votes but leaves every list and queue.
    retired: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # Optimistic locking: a save carries the version it started from; a stale one is a conflict.
    version: Mapped[int] = mapped_column(Integer, default=1)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)
    updated_by: Mapped[str | None] = mapped_column(String(100))
    texts: Mapped[list[TopicText]] = relationship(
        back_populates="topic", cascade="all, delete-orphan", order_by="TopicText.position")
    answer_texts: Mapped[list[AnswerText]] = relationship(
        back_populates="topic", cascade="all, delete-orphan", order_by="AnswerText.id")
    nuggets: Mapped[list[Nugget]] = relationship(
        back_populates="topic", cascade="all, delete-orphan", order_by="Nugget.position")
    __mapper_args__ = {"version_id_col": version}

    def texts_of(self, kind: str, lang: str) -> list[str]:
        return [t.text for t in self.texts if t.kind == kind and t.lang == lang]

    def text_of(self, kind: str, lang: str) -> str | None:
        return next(iter(self.texts_of(kind, lang)), None)


class TopicText(Base):
    """A question, a narrative or a gold key term of a topic in one language (QUESTION LANG /
    NARRATIVE LANG / KEY_TERM LANG)."""
    __tablename__ = "topic_text"
    __table_args__ = (CheckConstraint("kind IN ('question', 'narrative', 'key_term')", name="ck_topic_text_kind"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    topic_id: Mapped[str] = mapped_column(ForeignKey("topic.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(10))
    lang: Mapped[str] = mapped_column(String(2))
    text: Mapped[str] = mapped_column(Text)
    position: Mapped[int] = mapped_column(Integer, default=0)
    topic: Mapped[Topic] = relationship(back_populates="texts")


nugget_answer_text = Table(
    "nugget_answer_text",
    Base.metadata,
    Column("nugget_id", ForeignKey("nugget.id", ondelete="CASCADE"), primary_key=True),
    Column("answer_text_id", ForeignKey("answer_text.id", ondelete="CASCADE"), primary_key=True),
)


class AnswerText(Base):
    """An answer-bearing passage a topic developer saved: text, document and character offsets."""
    __tablename__ = "answer_text"
    id: Mapped[int] = mapped_column(primary_key=True)
    topic_id: Mapped[str] = mapped_column(ForeignKey("topic.id", ondelete="CASCADE"), index=True)
    docid: Mapped[str] = mapped_column(String(limits.DOCID))
    start: Mapped[int | None] = mapped_column(Integer)  # offset of the first character in the document
    end: Mapped[int | None] = mapped_column(Integer)  # offset one past the last character
    text: Mapped[str] = mapped_column(Text)
    created_by: Mapped[str | None] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    topic: Mapped[Topic] = relationship(back_populates="answer_texts")
    nuggets: Mapped[list[Nugget]] = relationship(secondary=nugget_answer_text, back_populates="answer_texts")


class Nugget(Base):
    __tablename__ = "nugget"
    __table_args__ = (UniqueConstraint("topic_id", "label", name="uq_nugget_label"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    topic_id: Mapped[str] = mapped_column(ForeignKey("topic.id", ondelete="CASCADE"), index=True)
    label: Mapped[str] = mapped_column(String(limits.NUGGET_ID))  # the NUGGET ID of the gold standard, e.g. N003
    text: Mapped[str] = mapped_column(Text)
    position: Mapped[int] = mapped_column(Integer, default=0)
    # A weight given from outside (a gold standard without individual votes).
    weight: Mapped[float | None] = mapped_column(Float)
    # Vote counts given from outside, when the individual votes are not known.
    vital_count: Mapped[int | None] = mapped_column(Integer)
    voter_count: Mapped[int | None] = mapped_column(Integer)
    created_by: Mapped[str | None] = mapped_column(String(100))
    topic: Mapped[Topic] = relationship(back_populates="nuggets")
    answer_texts: Mapped[list[AnswerText]] = relationship(secondary=nugget_answer_text, back_populates="nuggets")
    sources: Mapped[list[NuggetSource]] = relationship(
        cascade="all, delete-orphan", order_by="NuggetSource.position")
    votes: Mapped[list[Vote]] = relationship(cascade="all, delete-orphan", order_by="Vote.id")
    # Optimistic locking, as for topics: an edit carries the version it started from.
    version: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    __mapper_args__ = {"version_id_col": version}


class NuggetSource(Base):
    """A document a nugget was taken from, when no saved answer text records it (imported gold)."""
    __tablename__ = "nugget_source"
    id: Mapped[int] = mapped_column(primary_key=True)
    nugget_id: Mapped[int] = mapped_column(ForeignKey("nugget.id", ondelete="CASCADE"), index=True)
    docid: Mapped[str] = mapped_column(String(limits.DOCID))
    position: Mapped[int] = mapped_column(Integer, default=0)


class Vote(Base):
    """One assessor's vital / not-vital decision on one nugget."""
    __tablename__ = "vote"
    __table_args__ = (UniqueConstraint("nugget_id", "assessor", name="uq_vote"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    nugget_id: Mapped[int] = mapped_column(ForeignKey("nugget.id", ondelete="CASCADE"), index=True)
    assessor: Mapped[str] = mapped_column(String(limits.ASSESSOR))
    vital: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# ---------------------------------------------------------------- runs

RUN_KINDS = ("qa", "ir4qa", "cclqa")


class Run(Base):
    __tablename__ = "run"
    # A team's IR4QA and CCLQA runs may share an ID (the CCLQA run names the IR4QA run it used).
    __table_args__ = (CheckConstraint(f"kind IN {RUN_KINDS}", name="ck_run_kind"),
                      UniqueConstraint("run_id", "kind", name="uq_run_id_kind"))
    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[str] = mapped_column(String(limits.RUN_ID), index=True)  # TEAM-SRC-TGT-NN-X
    kind: Mapped[str] = mapped_column(String(10))
    team: Mapped[str] = mapped_column(String(limits.TEAM), index=True)
    source_lang: Mapped[str] = mapped_column(String(2))
    target_lang: Mapped[str] = mapped_column(String(2))
    priority: Mapped[int] = mapped_column(Integer)
    variant: Mapped[str] = mapped_column(String(2))
    description: Mapped[str] = mapped_column(Text, default="")
    ir4qa_run: Mapped[str | None] = mapped_column(String(limits.RUN_ID))  # the IR4QA run a CCLQA run used
    submitted_by: Mapped[str | None] = mapped_column(String(100))
    submitted_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    topics: Mapped[list[RunTopic]] = relationship(
        back_populates="run", cascade="all, delete-orphan", order_by="RunTopic.position")


class RunTopic(Base):
    """The part of a run that answers one topic, in file order (an empty TOPIC element counts)."""
    __tablename__ = "run_topic"
    __table_args__ = (UniqueConstraint("run_id", "topic_id", name="uq_run_topic"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("run.id", ondelete="CASCADE"), index=True)
    topic_id: Mapped[str] = mapped_column(String(limits.TOPIC_ID), index=True)
    position: Mapped[int] = mapped_column(Integer, default=0)
    run: Mapped[Run] = relationship(back_populates="topics")
    responses: Mapped[list[Response]] = relationship(
        back_populates="run_topic", cascade="all, delete-orphan", order_by="Response.rank")
    documents: Mapped[list[RetrievedDocument]] = relationship(
        cascade="all, delete-orphan", order_by="RetrievedDocument.rank")
    key_terms: Mapped[list[KeyTerm]] = relationship(cascade="all, delete-orphan", order_by="KeyTerm.position")
    answer_types: Mapped[list[AnswerTypeGuess]] = relationship(
        cascade="all, delete-orphan", order_by="AnswerTypeGuess.position")


class Response(Base):
    """One system response (SR) of a CCLQA run: never truncated."""
    __tablename__ = "response"
    __table_args__ = (UniqueConstraint("run_topic_id", "rank", name="uq_response_rank"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    run_topic_id: Mapped[int] = mapped_column(ForeignKey("run_topic.id", ondelete="CASCADE"), index=True)
    rank: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    run_topic: Mapped[RunTopic] = relationship(back_populates="responses")
    docids: Mapped[list[ResponseDocument]] = relationship(
        cascade="all, delete-orphan", order_by="ResponseDocument.position")


class ResponseDocument(Base):
    __tablename__ = "response_document"
    id: Mapped[int] = mapped_column(primary_key=True)
    response_id: Mapped[int] = mapped_column(ForeignKey("response.id", ondelete="CASCADE"), index=True)
    docid: Mapped[str] = mapped_column(String(limits.DOCID))
    position: Mapped[int] = mapped_column(Integer, default=0)


class RetrievedDocument(Base):
    """One ranked document of an IR4QA run."""
    __tablename__ = "retrieved_document"
    __table_args__ = (UniqueConstraint("run_topic_id", "rank", name="uq_retrieved_rank"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    run_topic_id: Mapped[int] = mapped_column(ForeignKey("run_topic.id", ondelete="CASCADE"), index=True)
    rank: Mapped[int] = mapped_column(Integer)
    docid: Mapped[str] = mapped_column(String(limits.DOCID))
    score: Mapped[float | None] = mapped_column(Float)


class KeyTerm(Base):
    """A key term of a Question Analysis run."""
    __tablename__ = "key_term"
    id: Mapped[int] = mapped_column(primary_key=True)
    run_topic_id: Mapped[int] = mapped_column(ForeignKey("run_topic.id", ondelete="CASCADE"), index=True)
    lang: Mapped[str | None] = mapped_column(String(2))
    score: Mapped[float | None] = mapped_column(Float)
    text: Mapped[str] = mapped_column(Text)
    position: Mapped[int] = mapped_column(Integer, default=0)


class AnswerTypeGuess(Base):
    """An answer type a Question Analysis run proposes, with its score."""
    __tablename__ = "answer_type_guess"
    id: Mapped[int] = mapped_column(primary_key=True)
    run_topic_id: Mapped[int] = mapped_column(ForeignKey("run_topic.id", ondelete="CASCADE"), index=True)
    answer_type: Mapped[str] = mapped_column(String(20))
    score: Mapped[float | None] = mapped_column(Float)
    position: Mapped[int] = mapped_column(Integer, default=0)


class TaskWindow(Base):
    """When one task of one topic set takes runs, and when its results are released (times in UTC)."""
    __tablename__ = "task_window"
    __table_args__ = (CheckConstraint(f"task IN {RUN_KINDS}", name="ck_task_window_task"),
                      UniqueConstraint("topic_set_id", "task", name="uq_task_window"))
    id: Mapped[int] = mapped_column(primary_key=True)
    topic_set_id: Mapped[int] = mapped_column(ForeignKey("topic_set.id", ondelete="CASCADE"), index=True)
    task: Mapped[str] = mapped_column(String(10))
    opens_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    closes_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    release_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))  # None: not scheduled
    max_runs: Mapped[int] = mapped_column(Integer, default=5)  # per team and language pair
    publish_full_table: Mapped[bool] = mapped_column(Boolean, default=False)  # every team sees every run
    topic_set: Mapped[TopicSet] = relationship(back_populates="windows")


class Submission(Base):
    """One uploaded run file, kept byte for byte. A re-upload of the same run ID supersedes the
    earlier one, which stays here (superseded_at set): nothing a team sent is ever lost."""
    __tablename__ = "submission"
    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[str] = mapped_column(String(limits.RUN_ID), index=True)
    kind: Mapped[str] = mapped_column(String(10))
    team: Mapped[str] = mapped_column(String(limits.TEAM), index=True)
    topic_set_id: Mapped[int | None] = mapped_column(ForeignKey("topic_set.id", ondelete="SET NULL"))
    filename: Mapped[str] = mapped_column(String(255))
    sha256: Mapped[str] = mapped_column(String(64))
    size: Mapped[int] = mapped_column(Integer)
    topics: Mapped[int] = mapped_column(Integer)
    items: Mapped[int] = mapped_column(Integer)  # responses (CCLQA), documents (IR4QA), answer types (QA)
    submitted_by: Mapped[str] = mapped_column(String(100))
    submitted_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    superseded_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    content: Mapped[bytes] = mapped_column(LargeBinary)  # last, so SQLite can write it in pieces (io.large_binary)


class ApiToken(Base):
    """A participant's personal token for `sepia submit`; only its SHA-256 is kept."""
    __tablename__ = "api_token"
    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user_account.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(100))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


# ---------------------------------------------------------------- pools and judgments

class Pool(Base):
    """Responses (CCLQA) or documents (IR4QA) gathered from runs by priority for assessment."""
    __tablename__ = "pool"
    __table_args__ = (CheckConstraint("kind IN ('cclqa', 'ir4qa')", name="ck_pool_kind"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    kind: Mapped[str] = mapped_column(String(10))
    depth: Mapped[int] = mapped_column(Integer)
    max_priority: Mapped[int | None] = mapped_column(Integer)  # runs with priority above this stay out
    lang: Mapped[str | None] = mapped_column(String(2))  # the target language pooled; None: all
    priorities: Mapped[str | None] = mapped_column(String(100))  # e.g. "1,2": only runs of these priorities
    # Pre-mark the BINARIZED matcher's decision on the judging screen (off: a suggestion biases people).
    suggest: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # Training: after answering a control item the assessor sees the expected answer and its reason.
    training: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    entries: Mapped[list[PoolEntry]] = relationship(cascade="all, delete-orphan", order_by="PoolEntry.id")


class PoolEntry(Base):
    """One item to judge: a document of a topic (IR4QA), or a response text of a topic (CCLQA) that
    stands for every pooled response whose normalised text is the same (its members)."""
    __tablename__ = "pool_entry"
    id: Mapped[int] = mapped_column(primary_key=True)
    pool_id: Mapped[int] = mapped_column(ForeignKey("pool.id", ondelete="CASCADE"), index=True)
    topic_id: Mapped[str] = mapped_column(String(limits.TOPIC_ID), index=True)
    response_id: Mapped[int | None] = mapped_column(ForeignKey("response.id", ondelete="CASCADE"))
    docid: Mapped[str | None] = mapped_column(String(limits.DOCID))
    # Set on a control item mixed into the pool's queues (sepia.store.controls): judged like the
    # others, blind, but its answers go to control_answer, never to the judgments that score runs.
    # No ON DELETE action (SQLite adds the column in place and cannot reflect one, as for
    # topic.topic_set_id): sepia.store.controls removes these entries before their control item.
    control_id: Mapped[int | None] = mapped_column(ForeignKey("control_item.id"), index=True)
    members: Mapped[list[Response]] = relationship(secondary="pool_member", order_by="Response.id")
    assignments: Mapped[list[Assignment]] = relationship(
        back_populates="entry", cascade="all, delete-orphan", order_by="Assignment.id")


pool_member = Table(
    "pool_member",
    Base.metadata,
    Column("entry_id", ForeignKey("pool_entry.id", ondelete="CASCADE"), primary_key=True),
    Column("response_id", ForeignKey("response.id", ondelete="CASCADE"), primary_key=True),
)


class Assignment(Base):
    """A pool item in an assessor's queue, at a position of a random order fixed for that assessor."""
    __tablename__ = "assignment"
    __table_args__ = (UniqueConstraint("entry_id", "assessor", name="uq_assignment"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    entry_id: Mapped[int] = mapped_column(ForeignKey("pool_entry.id", ondelete="CASCADE"), index=True)
    assessor: Mapped[str] = mapped_column(String(limits.ASSESSOR), index=True)
    position: Mapped[int] = mapped_column(Integer)
    comment: Mapped[str] = mapped_column(Text, default="")
    skipped: Mapped[bool] = mapped_column(Boolean, default=False)
    judged_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    # Seconds the item was on the judging screen before its saves (summed), as the browser timed them.
    seconds: Mapped[float | None] = mapped_column(Float)
    entry: Mapped[PoolEntry] = relationship(back_populates="assignments")


class NuggetJudgment(Base):
    """An assessor's decision that a system response contains (or not) a nugget."""
    __tablename__ = "nugget_judgment"
    __table_args__ = (UniqueConstraint("response_id", "nugget_id", "assessor", name="uq_nugget_judgment"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    response_id: Mapped[int] = mapped_column(ForeignKey("response.id", ondelete="CASCADE"), index=True)
    nugget_id: Mapped[int] = mapped_column(ForeignKey("nugget.id", ondelete="CASCADE"), index=True)
    assessor: Mapped[str] = mapped_column(String(limits.ASSESSOR))
    match: Mapped[float] = mapped_column(Float)  # 1, 0 or 0.5 (partial support); migration 0004
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class SupportJudgment(Base):
    """An assessor's judgment of whether a document a response cites supports it (TREC RAG's citation
    support): 1 full, 0.5 partial, 0 none. Migration 0011."""
    __tablename__ = "support_judgment"
    __table_args__ = (UniqueConstraint("response_id", "docid", "assessor", name="uq_support_judgment"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    response_id: Mapped[int] = mapped_column(ForeignKey("response.id", ondelete="CASCADE"), index=True)
    docid: Mapped[str] = mapped_column(String(limits.DOCID))
    assessor: Mapped[str] = mapped_column(String(limits.ASSESSOR))
    support: Mapped[float] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class RelevanceJudgment(Base):
    """Graded relevance of a pooled document for a topic: level 0 (L0, non-relevant) up to Lk."""
    __tablename__ = "relevance_judgment"
    __table_args__ = (UniqueConstraint("topic_id", "docid", "assessor", name="uq_relevance_judgment"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    topic_id: Mapped[str] = mapped_column(String(limits.TOPIC_ID), index=True)
    docid: Mapped[str] = mapped_column(String(limits.DOCID))
    assessor: Mapped[str] = mapped_column(String(limits.ASSESSOR))
    level: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ControlItem(Base):
    """An item with a known answer (an adjudicated item of a dry run, or one written for training),
    mixed blind into assessors' queues to measure their accuracy (qualification)."""
    __tablename__ = "control_item"
    __table_args__ = (CheckConstraint("kind IN ('cclqa', 'ir4qa')", name="ck_control_item_kind"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(10))
    topic_id: Mapped[str] = mapped_column(String(limits.TOPIC_ID), index=True)
    response_id: Mapped[int | None] = mapped_column(ForeignKey("response.id", ondelete="CASCADE"))  # CCLQA
    docid: Mapped[str | None] = mapped_column(String(limits.DOCID))  # IR4QA
    # The expected answer: CCLQA, the IDs of the topic's nuggets the response contains, space
    # separated ("" = none of them); IR4QA, the relevance level.
    expected: Mapped[str] = mapped_column(Text)
    reason: Mapped[str] = mapped_column(Text, default="")
    source: Mapped[str] = mapped_column(String(200), default="")  # e.g. "pool CS-dry item 12"
    created_by: Mapped[str | None] = mapped_column(String(100))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ControlAnswer(Base):
    """An assessor's answer to a control item mixed into a pool, and whether it was the expected one."""
    __tablename__ = "control_answer"
    __table_args__ = (UniqueConstraint("entry_id", "assessor", name="uq_control_answer"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    entry_id: Mapped[int] = mapped_column(ForeignKey("pool_entry.id", ondelete="CASCADE"), index=True)
    control_id: Mapped[int] = mapped_column(ForeignKey("control_item.id", ondelete="CASCADE"), index=True)
    assessor: Mapped[str] = mapped_column(String(limits.ASSESSOR), index=True)
    answer: Mapped[str] = mapped_column(Text)  # in the form of ControlItem.expected
    correct: Mapped[bool] = mapped_column(Boolean)
    answered_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# ---------------------------------------------------------------- results

class EvaluationResult(Base):
    """A stored score: one row per run, matcher, settings and topic (topic NULL = the run's mean)."""
    __tablename__ = "evaluation_result"
    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("run.id", ondelete="CASCADE"), index=True)
    measure: Mapped[str] = mapped_column(String(limits.MEASURE))  # e.g. F3, AP, ntcir:Q, nDCG@10 (sepia.ir4qa.registry)
    matcher: Mapped[str | None] = mapped_column(String(20))
    settings: Mapped[str] = mapped_column(Text, default="{}")  # JSON of the parameters used, as shown
    # what the scores are kept and found by: the settings' values hashed (sepia.store.results.settings_key)
    settings_id: Mapped[str] = mapped_column(String(64), index=True)
    topic_id: Mapped[str | None] = mapped_column(String(limits.TOPIC_ID))
    answer_type: Mapped[str | None] = mapped_column(String(20))
    value: Mapped[float] = mapped_column(Float)
    recall: Mapped[float | None] = mapped_column(Float)
    precision: Mapped[float | None] = mapped_column(Float)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ReleasedSettings(Base):
    """Scoring settings of CCLQA (`Settings.describe`, and their `settings_key` as evaluation_result keeps
    it) whose scores the organisers released to the teams beside the default settings'
    (sepia.web.results). Migration 0015."""
    __tablename__ = "released_settings"
    id: Mapped[int] = mapped_column(primary_key=True)
    settings: Mapped[str] = mapped_column(Text, unique=True)
    settings_id: Mapped[str] = mapped_column(String(64), unique=True, index=True)  # as evaluation_result's (0019)
    label: Mapped[str] = mapped_column(String(200))  # how the teams' tables name them
    released_by: Mapped[str] = mapped_column(String(100))
    released_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# ---------------------------------------------------------------- judging plans

class JudgingPlan(Base):
    """Which topics of a pool humans judge: a uniform random sample of each target language's topics
    (within each answer type when stratified), drawn with a recorded seed (sepia.store.plans)."""
    __tablename__ = "judging_plan"
    __table_args__ = (CheckConstraint("strata IN ('none', 'type')", name="ck_judging_plan_strata"),
                      CheckConstraint("unit IN ('topics', 'items')", name="ck_judging_plan_unit"))
    id: Mapped[int] = mapped_column(primary_key=True)
    pool_id: Mapped[int] = mapped_column(ForeignKey("pool.id", ondelete="CASCADE"), unique=True)
    budget: Mapped[str] = mapped_column(String(20))  # as asked: "30%" or "5" topics per language
    strata: Mapped[str] = mapped_column(String(10), default="none")
    seed: Mapped[int] = mapped_column(Integer)
    # "items": every topic planned, a sample of each one's nuggets judged (PlanNugget); migration 0013
    unit: Mapped[str] = mapped_column(String(10), default="topics", server_default="topics")
    # an item-level plan's active wave (wave 1, `sepia.services.plan_waves`): its seed and the pairs it
    # was to expect; None before it is drawn. Migration 0020
    wave_seed: Mapped[int | None] = mapped_column(Integer)
    wave_expected: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    topics: Mapped[list[PlanTopic]] = relationship(cascade="all, delete-orphan", order_by="PlanTopic.id")
    nuggets: Mapped[list[PlanNugget]] = relationship(cascade="all, delete-orphan", order_by="PlanNugget.id")


class PlanEstimate(Base):
    """A judging plan's estimates as last computed (`sepia.services.plan_estimates`, BINARIZED, 95%):
    the JSON report or, when the estimate was refused, an empty one and the reason among the warnings
    (a JSON list). The web tool shows them until an organiser estimates again. Migration 0012."""
    __tablename__ = "plan_estimate"
    id: Mapped[int] = mapped_column(primary_key=True)
    plan_id: Mapped[int] = mapped_column(ForeignKey("judging_plan.id", ondelete="CASCADE"), unique=True)
    report: Mapped[str] = mapped_column(Text)
    warnings: Mapped[str] = mapped_column(Text, default="[]")
    computed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class PlanNugget(Base):
    """A (response, nugget) pair of an item-level plan: humans judge the nugget for the response of
    run `run_id` to its topic (all its answers). Wave 0 is each response's own uniform sample of the
    topic's nuggets (probability: sampled / K); a later wave's pairs are drawn from those not yet
    planned, each with its own probability given the waves before (`sepia.metaeval.active`). A row
    without a run judges the nugget for every run's response (plans drawn before migration 0017,
    which all have one wave). Migrations 0013, 0017."""
    __tablename__ = "plan_nugget"
    __table_args__ = (UniqueConstraint("plan_id", "topic_id", "run_id", "label", name="uq_plan_nugget"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    plan_id: Mapped[int] = mapped_column(ForeignKey("judging_plan.id", ondelete="CASCADE"), index=True)
    topic_id: Mapped[str] = mapped_column(String(limits.TOPIC_ID))
    run_id: Mapped[str | None] = mapped_column(String(limits.RUN_ID))  # Run.run_id of a CCLQA run
    label: Mapped[str] = mapped_column(String(limits.NUGGET_ID))
    wave: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    probability: Mapped[float] = mapped_column(Float)


class PlanTopic(Base):
    """A topic of a judging plan: its stratum (language, and answer type when stratified), the draw
    that chose it (0 = when the plan was made, 1, 2, ... = topics added later) with that draw's seed,
    and its inclusion probability (planned topics of the stratum / topics of the stratum)."""
    __tablename__ = "plan_topic"
    __table_args__ = (UniqueConstraint("plan_id", "topic_id", name="uq_plan_topic"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    plan_id: Mapped[int] = mapped_column(ForeignKey("judging_plan.id", ondelete="CASCADE"), index=True)
    topic_id: Mapped[str] = mapped_column(String(limits.TOPIC_ID))
    stratum: Mapped[str] = mapped_column(String(40))
    draw: Mapped[int] = mapped_column(Integer, default=0)
    seed: Mapped[int] = mapped_column(Integer)
    probability: Mapped[float] = mapped_column(Float)


# ---------------------------------------------------------------- guidelines for assessors

class Guideline(Base):
    """One version of the guidelines of one judging task (`sepia.store.guidelines.TASKS`), as an
    organiser saved it: every save is a new version, numbered 1, 2, ... per task. Migration 0014."""
    __tablename__ = "guideline"
    __table_args__ = (UniqueConstraint("task", "version", name="uq_guideline"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    task: Mapped[str] = mapped_column(String(20))
    version: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    author: Mapped[str] = mapped_column(String(limits.ASSESSOR))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class GuidelineRead(Base):
    """An assessor's acknowledgement that they read one version of a task's guidelines. Migration 0014."""
    __tablename__ = "guideline_read"
    __table_args__ = (UniqueConstraint("guideline_id", "assessor", name="uq_guideline_read"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    guideline_id: Mapped[int] = mapped_column(ForeignKey("guideline.id", ondelete="CASCADE"), index=True)
    assessor: Mapped[str] = mapped_column(String(limits.ASSESSOR))
    read_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


# ---------------------------------------------------------------- rubric judging

class RubricVersion(Base):
    """One version of the campaign's rubric (`sepia.formats.rubric`, TOML text) as an organiser set it;
    the highest version is the rubric assessors grade with. Migration 0016."""
    __tablename__ = "rubric_version"
    id: Mapped[int] = mapped_column(primary_key=True)
    version: Mapped[int] = mapped_column(Integer, unique=True)
    text: Mapped[str] = mapped_column(Text)
    author: Mapped[str] = mapped_column(String(limits.ASSESSOR))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class RubricAssignment(Base):
    """A run's answer to a topic (a run_topic) in an assessor's rubric grading queue, at a position of
    a random order fixed for that assessor (`sepia.store.rubric.assign_answers`). While there are
    none, every assessor grades every answer. Migration 0021."""
    __tablename__ = "rubric_assignment"
    __table_args__ = (UniqueConstraint("run_topic_id", "assessor", name="uq_rubric_assignment"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    run_topic_id: Mapped[int] = mapped_column(ForeignKey("run_topic.id", ondelete="CASCADE"), index=True)
    assessor: Mapped[str] = mapped_column(String(limits.ASSESSOR), index=True)
    position: Mapped[int] = mapped_column(Integer)


class RubricGrade(Base):
    """An assessor's grade of one run's answer to one topic (a run_topic) on one rubric dimension.
    Migration 0016."""
    __tablename__ = "rubric_grade"
    __table_args__ = (UniqueConstraint("run_topic_id", "assessor", "dimension", name="uq_rubric_grade"),)
    id: Mapped[int] = mapped_column(primary_key=True)
    run_topic_id: Mapped[int] = mapped_column(ForeignKey("run_topic.id", ondelete="CASCADE"), index=True)
    assessor: Mapped[str] = mapped_column(String(limits.ASSESSOR), index=True)
    dimension: Mapped[str] = mapped_column(String(40))
    grade: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
