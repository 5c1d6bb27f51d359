"""What the topic, nugget and voting pages show of a topic, read with a few Core queries into plain
objects that have the mapped classes' attribute names (templates and `voting` read either: what
both have is `TopicLike`, which mypy and tests/test_web_page_costs.py hold them to).

For a topic of a dozen nuggets, loading the mapped objects took the ORM about ten times as long as
the same rows read as plain rows, and that was most of a page's time (tools/bench_web.py). Views
that change a topic still load the mapped objects; these are for reading only.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, Sequence, runtime_checkable

from sqlalchemy import BindParameter, bindparam, select
from sqlalchemy.engine import Connection, Row

from sepia.store.models import AnswerText, Nugget, NuggetSource, Topic, TopicText, Vote, nugget_answer_text

_topic, _text, _answer = Topic.__table__, TopicText.__table__, AnswerText.__table__
_nugget, _vote, _source, _link = Nugget.__table__, Vote.__table__, NuggetSource.__table__, nugget_answer_text
_of_topic: BindParameter[str] = bindparam("topic_id")

LANG = select(_topic.c.id, _topic.c.lang).where(_topic.c.id == _of_topic)
TOPIC = select(_topic.c.id, _topic.c.lang, _topic.c.status, _topic.c.answer_type, _topic.c.memo,
               _topic.c.version, _topic.c.updated_by).where(_topic.c.id == _of_topic)
TEXTS = (select(_text.c.kind, _text.c.lang, _text.c.text).where(_text.c.topic_id == _of_topic)
         .order_by(_text.c.position, _text.c.id))
ANSWERS = (select(_answer.c.id, _answer.c.docid, _answer.c.start, _answer.c.end, _answer.c.text,
                  _answer.c.created_by).where(_answer.c.topic_id == _of_topic).order_by(_answer.c.id))
NUGGETS = (select(_nugget.c.id, _nugget.c.label, _nugget.c.text, _nugget.c.version)
           .where(_nugget.c.topic_id == _of_topic).order_by(_nugget.c.position, _nugget.c.id))
# The rows below a topic's nuggets, each with the nugget it belongs to first.
VOTES = (select(_vote.c.nugget_id, _vote.c.assessor, _vote.c.vital)
         .join(_nugget, _nugget.c.id == _vote.c.nugget_id).where(_nugget.c.topic_id == _of_topic).order_by(_vote.c.id))
SOURCES = (select(_source.c.nugget_id, _source.c.docid)
           .join(_nugget, _nugget.c.id == _source.c.nugget_id).where(_nugget.c.topic_id == _of_topic)
           .order_by(_source.c.position, _source.c.id))
LINKS = (select(_link.c.nugget_id, _link.c.answer_text_id)
         .join(_nugget, _nugget.c.id == _link.c.nugget_id).where(_nugget.c.topic_id == _of_topic)
         .order_by(_link.c.answer_text_id))


# What a page may read of a topic, whether it was loaded as mapped objects (`Topic`) or read into a
# `TopicView`; votes and texts of a view are plain rows, which have the same names.

@runtime_checkable
class VoteLike(Protocol):
    @property
    def assessor(self) -> str: ...

    @property
    def vital(self) -> bool: ...


@runtime_checkable
class TextLike(Protocol):
    @property
    def kind(self) -> str: ...

    @property
    def lang(self) -> str: ...

    @property
    def text(self) -> str: ...


@runtime_checkable
class NuggetLike(Protocol):
    @property
    def id(self) -> int: ...

    @property
    def label(self) -> str: ...

    @property
    def text(self) -> str: ...

    @property
    def version(self) -> int: ...

    @property
    def votes(self) -> Sequence[VoteLike]: ...


@runtime_checkable
class TopicLike(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def lang(self) -> str: ...

    @property
    def status(self) -> str: ...

    @property
    def answer_type(self) -> str | None: ...

    @property
    def memo(self) -> str | None: ...

    @property
    def version(self) -> int: ...

    @property
    def updated_by(self) -> str | None: ...

    @property
    def texts(self) -> Sequence[TextLike]: ...

    @property
    def nuggets(self) -> Sequence[NuggetLike]: ...

    def texts_of(self, kind: str, lang: str) -> list[str]: ...

    def text_of(self, kind: str, lang: str) -> str | None: ...


@dataclass
class NuggetView:
    id: int
    label: str
    text: str
    version: int
    votes: list[Row] = field(default_factory=list)  # (assessor, vital), in the order cast
    sources: list[Row] = field(default_factory=list)  # (docid)
    answer_texts: list[Row] = field(default_factory=list)  # the topic's answer texts it comes from


@dataclass
class TopicView:
    id: str
    lang: str
    status: str
    answer_type: str | None
    memo: str | None
    version: int
    updated_by: str | None
    texts: Sequence[Row] = field(default_factory=list)  # (kind, lang, text)
    answer_texts: Sequence[Row] = field(default_factory=list)
    nuggets: list[NuggetView] = field(default_factory=list)

    text_of = Topic.text_of
    texts_of = Topic.texts_of


if TYPE_CHECKING:  # mypy holds both models of a topic to the protocol
    def _both(topic: Topic, view: TopicView) -> tuple[TopicLike, TopicLike]:
        return topic, view


def read_lang(connection: Connection, topic_id: str) -> Row | None:
    """(id, lang) of the topic, or None when there is none."""
    return connection.execute(LANG, {"topic_id": topic_id}).first()


def read_topic(connection: Connection, topic_id: str, *, answers: bool = False, nuggets: bool = False,
               votes: bool = False, links: bool = False) -> TopicView | None:
    """The topic with its texts, and what the flags ask for: answer texts; nuggets; the nuggets'
    votes; the nuggets' answer texts and source documents (`links`, which needs `answers`). None
    when there is no such topic. One query per part, whatever the number of nuggets."""
    params = {"topic_id": topic_id}
    row = connection.execute(TOPIC, params).first()
    if row is None:
        return None
    topic = TopicView(*row, texts=connection.execute(TEXTS, params).all())
    if answers:
        topic.answer_texts = connection.execute(ANSWERS, params).all()
    if nuggets:
        topic.nuggets = [NuggetView(*n) for n in connection.execute(NUGGETS, params)]
        # Each query sees the store as it is then: rows of a nugget or an answer text added after
        # the nuggets or answer texts were read are left out, as if added after the whole read.
        by_id = {n.id: n for n in topic.nuggets}
        if votes:
            for vote in connection.execute(VOTES, params):
                if vote.nugget_id in by_id:
                    by_id[vote.nugget_id].votes.append(vote)
        if links:
            for source in connection.execute(SOURCES, params):
                if source.nugget_id in by_id:
                    by_id[source.nugget_id].sources.append(source)
            answer_of = {a.id: a for a in topic.answer_texts}
            for link in connection.execute(LINKS, params):
                if link.nugget_id in by_id and link.answer_text_id in answer_of:
                    by_id[link.nugget_id].answer_texts.append(answer_of[link.answer_text_id])
    return topic
