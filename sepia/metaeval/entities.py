"""Named entities in a nugget's text, for the adversarial probes' entity swap: the spans a swap
replaces, each whole and with its kind, so that a swap puts an entity of the same kind in its place.

Chinese (simplified, and traditional through the offset-keeping conversion the search uses) by
jieba's part-of-speech tags for person, place, organisation and other proper names (nr, ns, nt,
nz: the kind; with jieba's HMM for names outside its dictionary), none beside an ideograph jieba
cannot tag (a piece of a longer name); Japanese by Sudachi's 固有名詞
(proper noun; its third level, 人名/地名/一般, the kind), neighbouring ones of a kind joined (a
family name and a given name are one person).

English by a gazetteer built from the campaign's own text (`Gazetteer.from_texts` over every
nugget): no named-entity recogniser of a well-kept library installs here without downloading a
model at run time. An entity is a run of capitalised words (`Patriot Act`, `Dame Van Winkle`),
joined by of/the/de/van/... where a capitalised word follows (`Bank of America`), an acronym kept
whole (`U.S.`, `FBI`), a possessive 's left outside; month and weekday names are never part of
one (`September 11 attacks` has none). A sentence's first word is capitalised anyway, so it
starts an entity only when it is neither a stop word nor written in lower case anywhere in the
campaign, and the campaign writes it capitalised inside a sentence too or it opens a run of several
words (`The Senate` is `Senate`; `Police killed` has none when `police` occurs; `Multiple Federal
agencies` has none when `multiple` occurs, and is taken for one when it never does). A single word
the campaign also writes in lower case is none anywhere (`Black` beside `black`). Its
kind comes from simple cues (`KINDS`): the last word (Act, War: law or event; Union, Department:
organisation; River, Island: place; in X of Y the word before of), a title before it (Sen., President: person), a preposition of
place before it (in, at, from: place), the form (an acronym; a demonym such as British, European),
else a name; an entity's kind is the commonest over its occurrences in the campaign.
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, NamedTuple

from sepia.text.numbers import MONTHS

_PROPER_TAGS = ("nr", "ns", "nt", "nz")


class Entity(NamedTuple):
    start: int
    end: int
    kind: str


# ---------------------------------------------------------------- Chinese and Japanese

@lru_cache(maxsize=1)
def _chinese_pos():
    import jieba.posseg

    from sepia.search.chinese import jieba_tokenizer

    return jieba.posseg.POSTokenizer(jieba_tokenizer())


def chinese_entities(text: str, traditional: bool = False) -> list[Entity]:
    from sepia.search.chinese import to_simplified

    simplified = to_simplified(text) if traditional else text
    pairs = list(_chinese_pos().cut(simplified, HMM=True))  # the HMM finds names the dictionary lacks (刘伯明)
    found, at = [], 0
    for k, pair in enumerate(pairs):
        start = simplified.find(pair.word, at)
        at = start + len(pair.word)
        beside = pairs[max(k - 1, 0):k] + pairs[k + 1:k + 2]
        if pair.flag.startswith(_PROPER_TAGS) and len(pair.word) > 1 and not any(map(_unknown_piece, beside)):
            found.append(Entity(start, at, pair.flag[:2]))
    return found


def _unknown_piece(pair) -> bool:
    """An ideograph jieba knows nothing of (tag x): a name beside it is a piece of a longer one
    (拉尼 of 拉尼娜)."""
    return pair.flag == "x" and any("\u4e00" <= c <= "\u9fff" for c in pair.word)


def japanese_entities(text: str) -> list[Entity]:
    from sepia.search.japanese import sudachi_tokenizer

    found: list[Entity] = []
    for m in sudachi_tokenizer().tokenize(text):
        pos = m.part_of_speech()
        if pos[1] != "固有名詞":
            continue
        if found and found[-1].end == m.begin() and found[-1].kind == pos[2]:
            found[-1] = found[-1]._replace(end=m.end())  # 山田 + 太郎: one person
        else:
            found.append(Entity(m.begin(), m.end(), pos[2]))
    return found


# ---------------------------------------------------------------- English

# Acronyms with full stops first, so that U.S. is one token; words keep inner ' - &.
_TOKEN = re.compile(r"(?:[A-Za-z]\.){2,}|\w[\w'’&-]*|[^\w\s]")
_SENTENCE_END = frozenset(".!?:")
_CONNECTORS = frozenset("of the de del der da van von la le for".split())
_CALENDAR = frozenset(MONTHS + ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
                      + tuple(m[:3] for m in MONTHS) + ("sept", "mon", "tue", "tues", "wed", "thu", "thur",
                                                        "thurs", "fri", "sat", "sun"))
_TITLES = frozenset("mr mrs ms dr sen senator rep representative gov governor president prof professor judge "
                    "justice king queen prince princess sir lord lady general gen capt captain st jr sr pope "
                    "minister chancellor mayor".split())
_PLACE_BEFORE = frozenset("in at from near across throughout within into".split())
_POSSESSIVE = re.compile(r"['’]s?$")
_DEMONYM = re.compile(r"^[A-Z][a-z]+(?:an|ans|ish|ese|ians)$")
# The kinds, each by the last word of the entity (lower case).
KINDS = {
    "law or event": frozenset("act acts treaty agreement law bill war wars revolution attack attacks crisis "
                              "conference olympics games summit accord amendment constitution convention protocol "
                              "pandemic election elections cup festival movement era rebellion report".split()),
    "organisation": frozenset("union inc corp corporation company co association university college institute "
                              "department agency commission committee council bank party senate congress house "
                              "court ministry organization organisation foundation group board office bureau "
                              "service administration authority fund league society school museum network times "
                              "post news government army navy force club laboratory hospital church "
                              "democrats republicans".split()),
    "place": frozenset("river mountain mountains lake sea ocean island islands city county state states province "
                       "valley coast bay gulf sound street park republic kingdom peninsula desert region york jersey "
                       "america europe asia africa".split()),
}


def _is_acronym(word: str) -> bool:
    letters = word.rstrip("s") if len(word) > 2 else word
    return sum(c.isupper() for c in letters) >= 2 and not any(c.islower() for c in letters)


def _capitalised(word: str) -> bool:
    return word[:1].isupper() and word.lower() not in _CALENDAR


@dataclass
class Gazetteer:
    """What the campaign's text says of its words: those it writes capitalised inside a sentence,
    those it writes in lower case, and each entity's kinds over its occurrences."""
    inside: set[str] = field(default_factory=set)
    lower: set[str] = field(default_factory=set)
    kinds: dict[str, Counter] = field(default_factory=dict)

    @classmethod
    def from_texts(cls, texts: Iterable[str]) -> Gazetteer:
        texts = list(texts)
        gazetteer = cls()
        for text in texts:
            tokens = _tokens(text)
            for k, (word, _start) in enumerate(tokens):
                if word[:1].isupper() and not _starts_sentence(tokens, k):
                    gazetteer.inside.add(_bare(word))
                elif word[:1].islower():
                    gazetteer.lower.add(_bare(word))
        for text in texts:
            for entity in gazetteer._occurrences(text):
                gazetteer.kinds.setdefault(text[entity.start:entity.end], Counter())[entity.kind] += 1
        return gazetteer

    def entities(self, text: str) -> list[Entity]:
        """The entities of `text`, each of its name's commonest kind in the campaign."""
        found = []
        for entity in self._occurrences(text):
            kinds = self.kinds.get(text[entity.start:entity.end])
            found.append(entity._replace(kind=kinds.most_common(1)[0][0]) if kinds else entity)
        return found

    def _occurrences(self, text: str) -> list[Entity]:
        tokens = _tokens(text)
        found, k = [], 0
        while k < len(tokens):
            if not _capitalised(tokens[k][0]) or not tokens[k][0][0].isalnum():
                k += 1
                continue
            run = [k]
            while True:
                nxt = run[-1] + 1
                if nxt < len(tokens) and tokens[nxt][0].lower() in _CONNECTORS and nxt + 1 < len(tokens) \
                        and _capitalised(tokens[nxt + 1][0]) and tokens[nxt + 1][0][0].isalnum():
                    run += [nxt, nxt + 1]
                elif nxt < len(tokens) and _capitalised(tokens[nxt][0]) and tokens[nxt][0][0].isalnum() \
                        and not _possessive(tokens[run[-1]][0]):
                    run.append(nxt)
                else:
                    break
            k = run[-1] + 1
            entity = self._entity(text, tokens, run)
            if entity:
                found.append(entity)
        return found

    def _entity(self, text: str, tokens: list[tuple[str, int]], run: list[int]) -> Entity | None:
        from sepia.text.english import stop_words

        stop = stop_words()
        if _starts_sentence(tokens, run[0]):
            first = _bare(tokens[run[0]][0])
            keep = _is_acronym(first) or (first.lower() not in stop and first.lower() not in self.lower
                                          and (first in self.inside or len(run) > 1))
            if not keep:
                run = run[1:]
                while run and tokens[run[0]][0].lower() in _CONNECTORS:
                    run = run[1:]
        if not run:
            return None
        words = [_bare(tokens[k][0]) for k in run]
        if len(words) == 1 and not _is_acronym(words[0]) and (
                words[0].lower() in stop or len(words[0]) < 2 or words[0].lower() in self.lower):
            return None  # I; a word the campaign also writes in lower case (Black, black)
        start = tokens[run[0]][1]
        last, last_start = tokens[run[-1]]
        possessive = _POSSESSIVE.search(last)
        end = last_start + (possessive.start() if possessive and len(last) > 2 else len(last))
        return Entity(start, end, _kind(tokens, run, text[start:end]))


def _tokens(text: str) -> list[tuple[str, int]]:
    return [(m.group(), m.start()) for m in _TOKEN.finditer(text)]


def _bare(word: str) -> str:
    """The word without a possessive 's (Rip's is Rip)."""
    possessive = _POSSESSIVE.search(word)
    return word[:possessive.start()] if possessive and len(word) > 2 else word


def _possessive(word: str) -> bool:
    return bool(_POSSESSIVE.search(word)) and len(word) > 2


def _starts_sentence(tokens: list[tuple[str, int]], k: int) -> bool:
    """The first token, or one after a sentence's end (not after the full stop of a title: Sen.)."""
    if k == 0:
        return True
    previous = tokens[k - 1][0]
    if previous not in _SENTENCE_END:
        return False
    return not (previous == "." and k >= 2 and tokens[k - 2][0].lower() in _TITLES)


def _kind(tokens: list[tuple[str, int]], run: list[int], name: str) -> str:
    words = name.split()
    lower = [w.lower() for w in words]
    last = lower[lower.index("of") - 1] if "of" in lower[1:] else lower[-1]  # Bank of America: a bank
    if len(words) == 1 and _is_acronym(words[0]):
        return "acronym"
    for kind, cues in KINDS.items():
        if last in cues:
            return kind
    before = [tokens[k][0].lower() for k in range(max(0, run[0] - 2), run[0]) if tokens[k][0] != "."]
    if before and before[-1] in _TITLES:
        return "person"
    if len(words) == 1 and _DEMONYM.match(words[0]):
        return "demonym"
    if before and before[-1] in _PLACE_BEFORE:
        return "place"
    return "name"


def english_entities(text: str, gazetteer: Gazetteer | None = None) -> list[Entity]:
    return (gazetteer or Gazetteer.from_texts([text])).entities(text)


def entity_spans(text: str, lang: str, gazetteer: Gazetteer | None = None) -> list[Entity]:
    """The named entities of the text, in order: (start, end, kind). English uses `gazetteer`, the
    campaign's (Gazetteer.from_texts over all its text), or one of this text alone."""
    if lang in ("CS", "CT"):
        return chinese_entities(text, traditional=lang == "CT")
    if lang == "JA":
        return japanese_entities(text)
    return english_entities(text, gazetteer)
