"""The adversarial probes' perturbations (`sepia metaeval adversarial`): from each topic's faithful
response (one answer per gold nugget, holding the nugget's text), a response that a trustworthy
matcher scores lower. One small definition per perturbation in PROBES.

A perturbation applies to a topic only when it changes the response (a topic without numbers has
no changed-numbers probe); random choices are seeded by the seed, the topic and the probe.
"""
from __future__ import annotations

import random
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

from sepia.metaeval.entities import Entity, Gazetteer, entity_spans
from sepia.text.numbers import MONTHS, NUMBER_RE, NUMBER_WORDS, month_number
from sepia.text.tokenize import Tokenizer

_NEXT_CJK_DIGIT = dict(zip("〇一二三四五六七八九两兩", "一二三四五六七八九一三三"))
_AUXILIARY = re.compile(r"\b(is|are|was|were|has|have|had|will|would|can|could|did|does|do|should|must)\b",
                        re.IGNORECASE)
_NEGATED = {"CS": ("并非", ""), "CT": ("並非", ""), "JA": ("", "ではない")}  # prefix, suffix


@dataclass
class ProbeContext:
    """The faithful responses of every topic, with what the perturbations need to know of them."""
    topic_ids: list[str]
    langs: list[str]
    faithful: list[list[str]]
    seed: int = 0
    _entities: dict[int, list[tuple[str, str]]] = field(default_factory=dict)
    _gazetteer: Gazetteer | None = None

    def rng(self, probe: str, i: int) -> random.Random:
        return random.Random(f"{self.seed}:{probe}:{self.topic_ids[i]}")

    def others(self, i: int) -> list[int]:
        """The other topics, next first, those of the same language before the rest."""
        n = len(self.topic_ids)
        order = [(i + k) % n for k in range(1, n)]
        return [j for j in order if self.langs[j] == self.langs[i]] + [j for j in order if self.langs[j] != self.langs[i]]

    def gazetteer(self) -> Gazetteer:
        """The English gazetteer of every topic's text (sepia.metaeval.entities)."""
        if self._gazetteer is None:
            self._gazetteer = Gazetteer.from_texts(a for answers in self.faithful for a in answers)
        return self._gazetteer

    def spans(self, i: int, answer: str) -> list[Entity]:
        """The entities of one of topic i's answers."""
        return entity_spans(answer, self.langs[i], self.gazetteer() if self.langs[i] == "EN" else None)

    def entities(self, i: int) -> list[tuple[str, str]]:
        """(name, kind) of each entity of topic i's answers, in order."""
        if i not in self._entities:
            self._entities[i] = [(a[e.start:e.end], e.kind) for a in self.faithful[i] for e in self.spans(i, a)]
        return self._entities[i]


def _next_digit(digits: str) -> str:
    """The last digit up by one (full-width digits too): 2007 -> 2008, 1,000 -> 1,001."""
    last = max(k for k, c in enumerate(digits) if c.isdigit())
    return digits[:last] + str((unicodedata.digit(digits[last]) + 1) % 10) + digits[last + 1:]


def _changed_number(match: re.Match) -> str:
    text = match.group(0)
    if match["range"]:
        return text[:-2] + _next_digit(match["short"])
    if match["word"]:
        words = list(NUMBER_WORDS)
        changed = words[(words.index(text.lower()) + 1) % len(words)]
        return changed.capitalize() if text[:1].isupper() else changed
    if match["arabic"]:
        return _next_digit(match["arabic"]) + (match["scale"] or "")
    if match["cjk"]:
        at = next((k for k, c in enumerate(text) if c in _NEXT_CJK_DIGIT), None)
        return "二" + text if at is None else text[:at] + _NEXT_CJK_DIGIT[text[at]] + text[at + 1:]
    month = MONTHS[month_number(text) % 12]  # the next month, written out
    return month.capitalize() if text[:1].isupper() else month


def numbers(ctx: ProbeContext, i: int) -> list[str]:
    """Every number and date changed: a digit up by one, a CJK numeral to the next, a month to the next."""
    return [NUMBER_RE.sub(_changed_number, a) for a in ctx.faithful[i]]


class Swap(NamedTuple):
    start: int
    end: int
    kind: str
    replacement: str


def entity_swaps(ctx: ProbeContext, i: int) -> list[list[Swap]]:
    """For each answer of topic i, its entities and what replaces each: an entity of the same kind
    from another topic (the next ones first), taken in turn, never the same name; an entity whose
    kind no other topic has stays."""
    pool: dict[str, list[str]] = {}
    for j in ctx.others(i):
        for name, kind in ctx.entities(j):
            pool.setdefault(kind, [])
            if name not in pool[kind]:
                pool[kind].append(name)
    turn: dict[str, int] = {}
    swaps = []
    for answer in ctx.faithful[i]:
        found = []
        for entity in ctx.spans(i, answer):
            names = [n for n in pool.get(entity.kind, []) if n != answer[entity.start:entity.end]]
            if names:
                k = turn.get(entity.kind, 0)
                turn[entity.kind] = k + 1
                found.append(Swap(entity.start, entity.end, entity.kind, names[k % len(names)]))
        swaps.append(found)
    return swaps


def entities(ctx: ProbeContext, i: int) -> list[str]:
    """Each named entity replaced by another topic's of the same kind (sepia.metaeval.entities)."""
    swapped = []
    for answer, swaps in zip(ctx.faithful[i], entity_swaps(ctx, i)):
        pieces, at = [], 0
        for swap in swaps:
            pieces += [answer[at:swap.start], swap.replacement]
            at = swap.end
        swapped.append("".join(pieces) + answer[at:])
    return swapped


def negation(ctx: ProbeContext, i: int) -> list[str]:
    """A negation in every answer: 并非/並非 before it (CS, CT), ではない after it (JA); in English
    `not` after the first auxiliary verb, or `It is not true that` before the answer."""
    lang = ctx.langs[i]
    if lang in _NEGATED:
        before, after = _NEGATED[lang]
        return [f"{before}{a}{after}" for a in ctx.faithful[i]]
    return [_AUXILIARY.sub(r"\1 not", a, count=1) if _AUXILIARY.search(a) else f"It is not true that {a}"
            for a in ctx.faithful[i]]


def shuffle(ctx: ProbeContext, i: int) -> list[str]:
    """Each answer's characters in a random order."""
    rng = ctx.rng("shuffle", i)
    return ["".join(rng.sample(a, len(a))) for a in ctx.faithful[i]]


def salad(ctx: ProbeContext, i: int) -> list[str]:
    """Word salad: every token of the topic's nuggets, shuffled together and dealt out again into as
    many answers, separated by spaces."""
    tokens = [t for a in ctx.faithful[i] for t in Tokenizer().tokens(a)]
    ctx.rng("salad", i).shuffle(tokens)
    n = len(ctx.faithful[i])
    return [" ".join(tokens[k::n]) for k in range(n)]


def padding(ctx: ProbeContext, i: int) -> list[str]:
    """The faithful answers, then another topic's faithful answers as unrelated text."""
    other = next(iter(ctx.others(i)), None)
    return list(ctx.faithful[i]) + (list(ctx.faithful[other]) if other is not None else [])


@dataclass(frozen=True)
class Probe:
    name: str
    label: str
    perturb: Callable[[ProbeContext, int], list[str]]


PROBES = {p.name: p for p in (
    Probe("numbers", "numbers and dates changed", numbers),
    Probe("entities", "named entities swapped (same kind)", entities),
    Probe("negation", "negation inserted", negation),
    Probe("shuffle", "characters shuffled", shuffle),
    Probe("salad", "nugget words only (word salad)", salad),
    Probe("padding", "padded with unrelated text", padding),
)}
