"""One analyzer and one Whoosh schema per collection language."""
from __future__ import annotations

from typing import Callable, Iterable

from whoosh.analysis import CompositeAnalyzer, StemmingAnalyzer
from whoosh.fields import ID, TEXT, Schema
from whoosh.lang.porter2 import stem as snowball_english

from sepia.search.units import UnitTokenizer, split_compounds
from sepia.vocab import LANGUAGES

CJK = ("CS", "CT", "JA")


def analyzer_for(lang: str):
    """The Whoosh analyzer of a language: jieba for CS/CT, Sudachi for JA, stemming for EN
    (Snowball English: Whoosh's default Porter stems running to runn)."""
    lang = lang.upper()
    if lang == "EN":
        return StemmingAnalyzer(stemfn=snowball_english)
    if lang in ("CS", "CT"):
        from sepia.search.chinese import ChineseTokenizer

        return CompositeAnalyzer(ChineseTokenizer(traditional=(lang == "CT")))
    if lang == "JA":
        from sepia.search.japanese import JapaneseTokenizer

        return CompositeAnalyzer(JapaneseTokenizer())
    raise ValueError(f"unknown language {lang!r}; expected one of {', '.join(LANGUAGES)}")


def schema_for(lang: str) -> Schema:
    """docid, title, date, body; title and body are analysed, positioned (phrases) and stored
    (snippets and the full document come from the index, with the store's exact text)."""
    analyzer = analyzer_for(lang)
    # A CJK string without spaces that analyses to several words is meant as one phrase.
    multitoken = "phrase" if lang.upper() in CJK else "default"
    return Schema(
        docid=ID(stored=True, unique=True),
        title=TEXT(analyzer=analyzer, stored=True, multitoken_query=multitoken),
        date=ID(stored=True),
        body=TEXT(analyzer=analyzer, stored=True, multitoken_query=multitoken),
    )


def tokenize(lang: str, text: str) -> list[tuple[str, int, int, int]]:
    """(term, position, start, end) of every index token: what the index sees of `text`."""
    return list(index_units(lang)(text))


def index_units(lang: str) -> Callable[[str], Iterable[tuple[str, int, int, int]]]:
    """A function from text to its index tokens as (term, position, start, end): the analyzer's
    own units without Whoosh's Token objects where it has them (CJK), which is the same stream,
    cheaper; what the tantivy engine indexes and `tokenize` returns."""
    analyzer = analyzer_for(lang)
    items = getattr(analyzer, "items", ())
    if len(items) == 1 and isinstance(items[0], UnitTokenizer):
        return items[0].units

    def units(text: str):
        return ((t.text, t.pos, t.startchar, t.endchar)
                for t in analyzer(text, positions=True, chars=True, mode="index"))

    return units


def index_sequence(lang: str) -> Callable[[str], tuple[list[str], list[str]] | None]:
    """A function from text to its index terms as (finest units in position order, compounds),
    or None when its positions have a gap (see UnitTokenizer.sequence); the same terms as
    `index_units`, made directly where the analyzer can (CJK)."""
    analyzer = analyzer_for(lang)
    items = getattr(analyzer, "items", ())
    if len(items) == 1 and isinstance(items[0], UnitTokenizer):
        return items[0].sequence
    units = index_units(lang)
    return lambda text: split_compounds(units(text))


def plain_fold(lang: str) -> Callable[[str], str]:
    """How a text is folded to look for query terms in it as plain strings (for snippets): lower
    case, and for CT the simplified spelling the terms have (OpenCC, length kept)."""
    if lang.upper() == "CT":
        from sepia.search.chinese import to_simplified

        return lambda text: to_simplified(text).lower()
    return str.lower
