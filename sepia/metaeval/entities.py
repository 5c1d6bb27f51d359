"""Named entities in a nugget's text, for the adversarial probes' entity swap: the spans a swap
replaces. Chinese (simplified, and traditional through the offset-keeping conversion the search
uses) by jieba's part-of-speech tags for person, place, organisation and other proper names
(nr*, ns, nt, nz; with jieba's HMM for names outside its dictionary); Japanese by Sudachi's 固有名詞 (proper noun); English by runs of capitalised
words, the text's first word only when a capitalised word follows it."""
from __future__ import annotations

import re
from functools import lru_cache

_PROPER_TAGS = ("nr", "ns", "nt", "nz")
_CAPITALISED = re.compile(r"\b[A-Z][\w'-]*(?:\s+(?:of\s+|the\s+|de\s+)?[A-Z][\w'-]*)*")


@lru_cache(maxsize=1)
def _chinese_pos():
    import jieba.posseg

    from sepia.search.chinese import jieba_tokenizer

    return jieba.posseg.POSTokenizer(jieba_tokenizer())


def chinese_entities(text: str, traditional: bool = False) -> list[tuple[int, int]]:
    from sepia.search.chinese import to_simplified

    simplified = to_simplified(text) if traditional else text
    spans, at = [], 0
    for pair in _chinese_pos().cut(simplified, HMM=True):  # the HMM finds names the dictionary lacks (刘伯明)
        start = simplified.find(pair.word, at)
        at = start + len(pair.word)
        if pair.flag.startswith(_PROPER_TAGS) and len(pair.word) > 1:
            spans.append((start, at))
    return spans


def japanese_entities(text: str) -> list[tuple[int, int]]:
    from sepia.search.japanese import sudachi_tokenizer

    return [(m.begin(), m.end()) for m in sudachi_tokenizer().tokenize(text)
            if m.part_of_speech()[1] == "固有名詞"]


def english_entities(text: str) -> list[tuple[int, int]]:
    spans = [(m.start(), m.end()) for m in _CAPITALISED.finditer(text)]
    if spans and spans[0][0] == len(text) - len(text.lstrip()) and " " not in text[slice(*spans[0])].strip():
        spans = spans[1:]  # a sentence's first word is capitalised anyway
    return spans


def entity_spans(text: str, lang: str) -> list[tuple[int, int]]:
    """(start, end) of each named entity of the text, in order."""
    if lang in ("CS", "CT"):
        return chinese_entities(text, traditional=lang == "CT")
    if lang == "JA":
        return japanese_entities(text)
    return english_entities(text)
