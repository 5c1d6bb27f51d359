"""What a topic's edit form changes, the conflict check of optimistic locking, and answer texts."""
from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from sepia.store.models import AnswerText, Document, Topic, TopicText, utcnow
from sepia.vocab import ANSWER_TYPES, LANGUAGES, TOPIC_COMPLETED, TOPIC_ID_RE, TOPIC_IN_PROGRESS
from sepia.limits import ANSWER_MAX_CHARS, TOPIC_FIELD_MAX_CHARS, over_limit
from sepia.store.topic_view import TopicLike

# The form's fields, in the order the conflict page lists them.
FIELDS = ("question_target", "question_en", "narrative_target", "narrative_en",
          "answer_type", "key_terms_target", "key_terms_en", "memo", "completed")
FIELD_LABELS = {
    "question_target": "Question (target language)", "question_en": "Question (English)",
    "narrative_target": "Narrative (target language)", "narrative_en": "Narrative (English)",
    "answer_type": "Answer type", "key_terms_target": "Key terms (target language)",
    "key_terms_en": "Key terms (English)", "memo": "Memo", "completed": "Completed",
}
MAX_KEY_TERMS = 100  # a language's gold key terms of one topic (ACLIA's topics had a handful)


class TopicError(ValueError):
    """A form that cannot be saved as it is; the message tells the user what to change."""


def _text_slots(topic_lang: str) -> dict[str, tuple[str, str]]:
    """Form field -> (kind, lang). An English topic has no separate target-language fields."""
    slots = {"question_en": ("question", "EN"), "narrative_en": ("narrative", "EN")}
    if topic_lang != "EN":
        slots["question_target"] = ("question", topic_lang)
        slots["narrative_target"] = ("narrative", topic_lang)
    return slots


def _key_term_slots(topic_lang: str) -> dict[str, str]:
    """Form field -> the language of the gold key terms it lists, one a line."""
    return {"key_terms_en": "EN"} if topic_lang == "EN" else {"key_terms_target": topic_lang, "key_terms_en": "EN"}


def _lines(text: str) -> str:
    """One key term a line, each stripped, once, without empty lines."""
    return "\n".join(dict.fromkeys(line.strip() for line in text.splitlines() if line.strip()))


def values_of(topic: TopicLike) -> dict[str, object]:
    """The topic as the edit form shows it."""
    values: dict[str, object] = {name: "" for name in FIELDS}
    for field, (kind, lang) in _text_slots(topic.lang).items():
        values[field] = topic.text_of(kind, lang) or ""
    for field, lang in _key_term_slots(topic.lang).items():
        values[field] = "\n".join(topic.texts_of("key_term", lang))
    values["answer_type"] = topic.answer_type or ""
    values["memo"] = topic.memo or ""
    values["completed"] = topic.status == TOPIC_COMPLETED
    return values


def values_from_form(form, topic_lang: str) -> dict[str, object]:
    values: dict[str, object] = {name: "" for name in FIELDS}
    for field in _text_slots(topic_lang):
        values[field] = (form.get(field) or "").strip()
    for field in _key_term_slots(topic_lang):
        values[field] = _lines(form.get(field) or "")
    values["answer_type"] = (form.get("answer_type") or "").strip()
    values["memo"] = (form.get("memo") or "").strip()
    values["completed"] = form.get("completed") in ("1", "on", "true")
    return values


def check_lengths(values: dict[str, object]) -> None:
    for field, value in values.items():
        if isinstance(value, str):
            _bounded(value, TOPIC_FIELD_MAX_CHARS, FIELD_LABELS[field])


def _bounded(value: str, limit: int, what: str) -> str:
    if (problem := over_limit(what, value, limit)) is not None:
        raise TopicError(problem)
    return value


def differences(mine: dict, theirs: dict) -> list[dict]:
    """The fields where two versions of a topic disagree, for the conflict page."""
    return [{"field": f, "label": FIELD_LABELS[f], "mine": mine[f], "theirs": theirs[f]}
            for f in FIELDS if mine[f] != theirs[f]]


def apply(topic: Topic, values: dict, username: str) -> None:
    """Write the form's values into the topic; the caller has checked the version."""
    check_lengths(values)
    answer_type = values["answer_type"] or None
    if answer_type is not None and answer_type not in ANSWER_TYPES:
        raise TopicError(f"Unknown answer type {answer_type!r}.")
    if values["completed"]:
        missing = []
        question_field = "question_en" if topic.lang == "EN" else "question_target"
        if not values[question_field]:
            missing.append("a question in the target language")
        if topic.lang != "EN" and not values["question_en"]:
            missing.append("an English question")
        if answer_type is None:
            missing.append("an answer type")
        if not topic.answer_texts:
            missing.append("at least one saved answer text")
        if missing:
            raise TopicError("A completed topic needs " + ", ".join(missing) + ".")
    for field in _key_term_slots(topic.lang):
        if len(values[field].splitlines()) > MAX_KEY_TERMS:
            raise TopicError(f"{FIELD_LABELS[field]}: at most {MAX_KEY_TERMS} key terms, one a line.")
    for field, (kind, lang) in _text_slots(topic.lang).items():
        _set_text(topic, kind, lang, values[field])
    _set_key_terms(topic, [(lang, values[field]) for field, lang in _key_term_slots(topic.lang).items()])
    topic.answer_type = answer_type
    topic.memo = values["memo"]
    topic.status = TOPIC_COMPLETED if values["completed"] else TOPIC_IN_PROGRESS
    # Always touch the row, so that the version moves on even when only a question changed.
    topic.updated_by = username
    topic.updated_at = utcnow()


def _set_text(topic: Topic, kind: str, lang: str, text: str) -> None:
    existing = next((t for t in topic.texts if t.kind == kind and t.lang == lang), None)
    if not text:
        if existing is not None:
            topic.texts.remove(existing)
        return
    if existing is not None:
        existing.text = text
        return
    # Target language first, English after it, questions before narratives.
    position = (0 if kind == "question" else 2) + (1 if lang == "EN" and topic.lang != "EN" else 0)
    topic.texts.append(TopicText(kind=kind, lang=lang, text=text, position=position))


def _set_key_terms(topic: Topic, lists: list[tuple[str, str]]) -> None:
    """The topic's gold key terms in these languages become these (language, one a line), after
    its other texts and in this order; terms that stay keep their rows, and key terms in other
    languages (an imported topic's) stay as they are."""
    langs = {lang for lang, _ in lists}
    replaced = [t for t in topic.texts if t.kind == "key_term" and t.lang in langs]
    kept = {(t.lang, t.text): t for t in replaced}
    position = max((t.position for t in topic.texts if t not in replaced), default=-1) + 1
    wanted = []
    for lang, lines in lists:
        for text in lines.splitlines():
            row = kept.pop((lang, text), None) or TopicText(kind="key_term", lang=lang, text=text)
            row.position, position = position, position + 1
            wanted.append(row)
    topic.texts = [t for t in topic.texts if t not in replaced] + wanted


# ---------------------------------------------------------------- new topics

def next_topic_id(session: Session, lang: str) -> str:
    """The next free ID in the campaign's style: the most used prefix, the language, 4 digits."""
    ids = session.scalars(select(Topic.id)).all()
    prefixes: dict[str, int] = {}
    numbers = [0]
    for topic_id in ids:
        match = TOPIC_ID_RE.match(topic_id)
        if match:
            prefixes[match.group(1)] = prefixes.get(match.group(1), 0) + 1
            if match.group(2) == lang:
                numbers.append(int(match.group(3)))
    prefix = max(prefixes, key=prefixes.__getitem__) if prefixes else "SEPIA"
    return f"{prefix}-{lang}-{max(numbers) + 1:04d}"


def create_topic(session: Session, lang: str, topic_id: str, username: str) -> Topic:
    if lang not in LANGUAGES:
        raise TopicError(f"Unknown language {lang!r}.")
    topic_id = topic_id.strip() or next_topic_id(session, lang)
    match = TOPIC_ID_RE.match(topic_id)
    if not match:
        raise TopicError(f"{topic_id!r} is not a topic ID like ACLIA2-{lang}-0001.")
    if match.group(2) != lang:
        raise TopicError(f"The topic ID {topic_id} names language {match.group(2)}, not {lang}.")
    if session.get(Topic, topic_id) is not None:
        raise TopicError(f"Topic {topic_id} exists already.")
    topic = Topic(id=topic_id, lang=lang, status=TOPIC_IN_PROGRESS, memo="", updated_by=username)
    session.add(topic)
    session.flush()
    return topic


# ---------------------------------------------------------------- answer texts

@dataclass
class Passage:
    docid: str
    start: int | None
    end: int | None
    text: str


def check_passage(session: Session, topic: Topic, passage: Passage) -> AnswerText:
    """An answer text for the topic, after checking that the passage is really in the document.

    With offsets, the text must equal the document's text between them (code points, as Python
    counts); without, the first occurrence of the text gives them.
    """
    text = _bounded(passage.text, ANSWER_MAX_CHARS, "An answer text")
    if not text or not text.strip():
        raise TopicError("Select or type the passage's text.")
    document = session.scalars(select(Document).where(Document.docid == passage.docid)).first()
    if document is None:
        raise TopicError(f"No document {passage.docid!r} in the collections.")
    if document.lang != topic.lang:
        raise TopicError(f"Document {passage.docid} is in {document.lang}, the topic in {topic.lang}.")
    start, end = passage.start, passage.end
    if start is None and end is None:
        start = document.text.find(text)
        if start < 0:
            raise TopicError(f"The text does not occur in document {passage.docid}.")
        end = start + len(text)
    elif start is None or end is None or not (0 <= start < end <= len(document.text)):
        raise TopicError("The passage's offsets are outside the document.")
    elif document.text[start:end] != text:
        raise TopicError("The passage's text does not match the document at its offsets.")
    if any(a.docid == document.docid and a.start == start and a.end == end for a in topic.answer_texts):
        raise TopicError(f"This passage of {document.docid} [{start}–{end}) is saved already.")
    return AnswerText(topic_id=topic.id, docid=document.docid, start=start, end=end, text=text)


def parse_offset(value) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and re.fullmatch(r"[0-9]{1,12}", value.strip()):
        return int(value)
    raise TopicError(f"{value!r} is not a character offset.")
