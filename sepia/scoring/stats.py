"""Nugget statistics of a gold standard by language and answer type, as in ACLIA's overview."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from sepia import vocab
from sepia.formats.model import GoldStandard, topic_lang
from sepia.text.tokenize import char_length
from sepia.scoring.weights import Scheme, nugget_weights


@dataclass(frozen=True)
class NuggetStats:
    lang: str
    answer_type: str
    topics: int
    nuggets: int
    mean_nuggets: float  # per topic
    mean_length: float  # characters per nugget, white space not counted: the default allowance C
    mean_weight: float

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def nugget_stats(gold: GoldStandard, scheme: Scheme = "pyramid") -> list[NuggetStats]:
    """One row per (language, answer type) with nuggets, then one 'ALL' row per language."""
    groups: dict[tuple[str, str], list] = defaultdict(list)
    for topic in gold.topics:
        weights, _ = nugget_weights(topic.nuggets, scheme)
        groups[(topic_lang(gold, topic), topic.answer_type)].append((topic, weights))
    rows = []
    for lang in sorted({key[0] for key in groups}, key=_lang_order):
        keys = sorted((k for k in groups if k[0] == lang), key=lambda k: _type_order(k[1]))
        for key in keys:
            rows.append(_row(lang, key[1], groups[key]))
        rows.append(_row(lang, "ALL", [item for k in keys for item in groups[k]]))
    return rows


def _row(lang: str, answer_type: str, items: list) -> NuggetStats:
    nuggets = [n for topic, _ in items for n in topic.nuggets]
    weights = [w for _, ws in items for w in ws]
    lengths = [char_length(n.text) for n in nuggets]
    return NuggetStats(lang, answer_type, len(items), len(nuggets), len(nuggets) / len(items),
                       sum(lengths) / len(lengths) if lengths else 0.0,
                       sum(weights) / len(weights) if weights else 0.0)


def _lang_order(lang: str) -> int:
    return vocab.LANGUAGES.index(lang) if lang in vocab.LANGUAGES else len(vocab.LANGUAGES)


def _type_order(answer_type: str) -> int:
    return vocab.ANSWER_TYPES.index(answer_type) if answer_type in vocab.ANSWER_TYPES else len(vocab.ANSWER_TYPES)
