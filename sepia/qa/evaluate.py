"""Score Question Analysis runs against a topic set: answer-type accuracy (overall, by the topics'
answer type, and as a confusion matrix) and key-term recall and precision where topics have key terms.

A run is scored on the topics of the set in its target language (`KECIR-EN-CS-01-T` on the CS
topics). A topic the run leaves out counts: its answer type is wrong (predicted: none) and it finds no
key term. Topics without an answer type are left out of the accuracy, topics without gold key terms
in the run's languages out of the key-term means, each with a warning.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from sepia import vocab
from sepia.formats.model import QARun, Topic
from sepia.qa.answer_types import predicted_type
from sepia.qa.key_terms import KeyTermMatch, match_key_terms

# How the runs are scored, as the JSON reports and the store (with the scores) keep it.
SETTINGS = {
    "answer_type": "the run's ANSWER_TYPE with the highest SCORE (equal scores: the first in the file; a missing "
                   "SCORE ranks last); a topic the run leaves out counts as wrong",
    "key_terms": "gold KEY_TERMs of the topic in the run's source and target languages; texts equal after NFKC "
                 "and lower case (and LANG equal when the run gives one); recall and precision macro averaged "
                 "over the topics with gold key terms",
}


@dataclass(frozen=True)
class QATopicScore:
    topic_id: str
    gold_type: str | None
    predicted_type: str | None
    key_terms: KeyTermMatch | None  # None when the topic has no gold key term in the run's languages

    @property
    def correct(self) -> bool:
        return self.gold_type is not None and self.gold_type == self.predicted_type

    def as_dict(self) -> dict:
        kt = self.key_terms
        return {"topic_id": self.topic_id, "gold_type": self.gold_type, "predicted_type": self.predicted_type,
                "correct": self.correct,
                "key_terms": None if kt is None else {"gold": kt.gold, "found": kt.found, "given": kt.given,
                                                      "correct": kt.correct, "recall": kt.recall,
                                                      "precision": kt.precision}}


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


@dataclass
class QARunScore:
    run_id: str
    topics: list[QATopicScore]
    warnings: list[str] = field(default_factory=list)

    @property
    def language_pair(self) -> str:
        return vocab.language_pair_of(self.run_id)

    @property
    def typed(self) -> list[QATopicScore]:
        """The topics with a gold answer type: those the accuracy is over."""
        return [t for t in self.topics if t.gold_type]

    @property
    def accuracy(self) -> float | None:
        return _mean([float(t.correct) for t in self.typed])

    @property
    def by_type(self) -> dict[str, float]:
        """Accuracy over the topics of each gold answer type, in the vocabulary's order."""
        groups: dict[str, list[float]] = defaultdict(list)
        for t in self.topics:
            if t.gold_type:
                groups[t.gold_type].append(float(t.correct))
        return {a: sum(groups[a]) / len(groups[a]) for a in vocab.ANSWER_TYPES if a in groups}

    @property
    def confusion(self) -> dict[str, dict[str | None, int]]:
        """gold type -> predicted type (None when the run gave none) -> number of topics."""
        counts: dict[str, Counter[str | None]] = defaultdict(Counter)
        for t in self.topics:
            if t.gold_type:
                counts[t.gold_type][t.predicted_type] += 1
        return {gold: dict(counts[gold]) for gold in vocab.ANSWER_TYPES if gold in counts}

    @property
    def with_key_terms(self) -> list[KeyTermMatch]:
        return [t.key_terms for t in self.topics if t.key_terms is not None]

    @property
    def key_term_recall(self) -> float | None:
        """Macro average over the topics that have gold key terms; None when none has."""
        return _mean([k.recall for k in self.with_key_terms])

    @property
    def key_term_precision(self) -> float | None:
        return _mean([k.precision for k in self.with_key_terms])

    def as_dict(self) -> dict:
        return {"run_id": self.run_id, "language_pair": self.language_pair, "accuracy": self.accuracy,
                "typed_topics": len(self.typed), "by_type": self.by_type,
                # JSON keys are strings: "-" stands for no answer type given, as in the table
                "confusion": {gold: {p or "-": n for p, n in row.items()} for gold, row in self.confusion.items()},
                "key_term_recall": self.key_term_recall, "key_term_precision": self.key_term_precision,
                "key_term_topics": len(self.with_key_terms), "topics": [t.as_dict() for t in self.topics]}


def evaluate_qa_run(topics: Sequence[Topic], run: QARun) -> QARunScore:
    """One run against the topic set (see the module's docstring)."""
    run_id = run.metadata.run_id
    parsed = vocab.parse_run_id(run_id)
    languages = {parsed.source_lang, parsed.target_lang} if parsed else set()
    own = [t for t in topics if parsed is None or vocab.topic_language(t.topic_id) == parsed.target_lang]
    answered = {t.topic_id: t for t in run.topics}
    scores, warnings = [], []
    for topic in own:
        gold_terms = [k for k in topic.key_terms if k.lang in languages]
        qa_topic = answered.get(topic.topic_id)
        scores.append(QATopicScore(topic.topic_id, topic.answer_type, predicted_type(qa_topic),
                                   match_key_terms(gold_terms, qa_topic.key_terms if qa_topic else ())
                                   if gold_terms else None))
    untyped = [t.topic_id for t in own if not t.answer_type]
    if untyped:
        warnings.append(f"topics without an answer type, left out of the accuracy: {', '.join(untyped)}")
    known = {t.topic_id for t in own}
    warnings += [f"run {run_id}: topic {t} is not in the topic set (ignored)" for t in answered if t not in known]
    if not own:
        warnings.append(f"run {run_id}: the topic set has no topic in its target language")
    return QARunScore(run_id, scores, warnings)


def evaluate_qa(topics: Sequence[Topic], runs: Iterable[QARun]) -> list[QARunScore]:
    """Every run, best accuracy first (then key-term recall, then run ID)."""
    return ranked_qa(evaluate_qa_run(topics, run) for run in runs)


def ranked_qa(results: Iterable[QARunScore]) -> list[QARunScore]:
    return sorted(results, key=lambda r: (-(r.accuracy or 0.0), -(r.key_term_recall or 0.0), r.run_id))
