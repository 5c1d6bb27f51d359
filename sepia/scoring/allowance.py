"""The character allowance C per match: by default the mean character length of the gold nuggets of
the same language and answer type over the whole gold standard (ACLIA's nugget statistics)."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from sepia import vocab
from sepia.formats.model import GoldStandard, topic_lang
from sepia.text.tokenize import char_length


def mean_nugget_lengths(gold: GoldStandard) -> dict[tuple[str, str], float]:
    lengths: dict[tuple[str, str], list[int]] = defaultdict(list)
    for topic in gold.topics:
        for nugget in topic.nuggets:
            lengths[(topic_lang(gold, topic), topic.answer_type)].append(char_length(nugget.text))
    return {key: sum(v) / len(v) for key, v in lengths.items()}


@dataclass
class Allowance:
    """C for each (language, answer type): overrides first (per type, then global), then the gold's means."""
    means: dict[tuple[str, str], float]
    per_type: dict[str, float] = field(default_factory=dict)
    everywhere: float | None = None

    def __call__(self, lang: str, answer_type: str) -> float:
        if answer_type in self.per_type:
            return self.per_type[answer_type]
        if self.everywhere is not None:
            return self.everywhere
        return self.means.get((lang, answer_type), 0.0)

    def describe(self) -> str:
        if self.everywhere is not None and not self.per_type:
            return f"C = {self.everywhere:g} for every type"
        parts = [f"{t}={c:g}" for t, c in self.per_type.items()]
        if self.everywhere is not None:
            parts.append(f"other types {self.everywhere:g}")
        return "C = mean gold nugget length per language and type" + (f"; overrides {', '.join(parts)}" if parts else "")


def parse_overrides(values: tuple[str, ...] | list[str]) -> tuple[dict[str, float], float | None]:
    """`--allowance 24` sets C everywhere; `--allowance DEFINITION=24.9` for one answer type."""
    per_type: dict[str, float] = {}
    everywhere = None
    for value in values:
        name, sep, number = value.rpartition("=")
        try:
            c = float(number)
        except ValueError:
            raise ValueError(f"allowance {value!r} is not a number or TYPE=number") from None
        if c < 0:
            raise ValueError(f"allowance {value!r} is negative")
        if not sep:
            everywhere = c
        elif name.upper() in vocab.ANSWER_TYPES:
            per_type[name.upper()] = c
        else:
            raise ValueError(f"allowance {value!r}: unknown answer type {name!r}")
    return per_type, everywhere
