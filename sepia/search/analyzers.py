"""One analyzer and one Whoosh schema per collection language."""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable

from whoosh.analysis import CompositeAnalyzer, Filter, RegexTokenizer, StemFilter, StopFilter
from whoosh.fields import ID, TEXT, Schema

from sepia.search.units import Columns, UnitTokenizer, normalize_term, split_compounds, unit_columns
from sepia.text import english
from sepia.vocab import LANGUAGES

CJK = ("CS", "CT", "JA")

# Every analysis a language has had, oldest first. An index records the number (1, 2, ...) of the
# one it was built with in ANALYSIS_FILE, written when it is created; an index without the file
# predates it and has the first. One built with another than the last must be rebuilt: its terms
# are not what queries now look for.
ANALYSIS_FILE = "ANALYSIS"
ANALYSIS_HISTORY = {
    "CS": ("jieba",),
    "CT": ("OpenCC to simplified, then jieba",),
    "JA": ("SudachiPy short and long units",),
    "EN": ("Whoosh's porter2 stemmer and stop words", "Snowball English 3.1 (PyStemmer) and SEPIA's stop words",
           "NFKC, then Snowball English 3.1 (PyStemmer) and SEPIA's stop words"),
}


class NFKCLowercaseFilter(Filter):
    """Tokens NFKC-normalised and lower-cased, as scoring normalises text: a full-width ＷＨＯ is who.
    Offsets stay those of the original text."""

    def __call__(self, tokens):
        for token in tokens:
            token.text = normalize_term(token.text)
            yield token


def analyzer_for(lang: str):
    """The Whoosh analyzer of a language: jieba for CS/CT, Sudachi for JA, for EN words (NFKC, lower
    case) without SEPIA's stop words, stemmed by Snowball English (sepia.text.english, as scoring
    stems them)."""
    lang = lang.upper()
    if lang == "EN":
        return (RegexTokenizer() | NFKCLowercaseFilter() | StopFilter(stoplist=english.stop_words())
                | StemFilter(stemfn=english.stem))
    if lang in ("CS", "CT"):
        from sepia.search.chinese import ChineseTokenizer

        return CompositeAnalyzer(ChineseTokenizer(traditional=(lang == "CT")))
    if lang == "JA":
        from sepia.search.japanese import JapaneseTokenizer

        return CompositeAnalyzer(JapaneseTokenizer())
    raise ValueError(f"unknown language {lang!r}; expected one of {', '.join(LANGUAGES)}")


def record_analysis(index_path: Path, lang: str) -> None:
    """Write the number of the language's analysis into a new index at `index_path`."""
    (Path(index_path) / ANALYSIS_FILE).write_text(f"{len(ANALYSIS_HISTORY[lang.upper()])}\n", encoding="utf-8")


def analysis_mismatch(index_path: Path, lang: str) -> str | None:
    """Why the index at `index_path` cannot serve (it was built with an analysis of `lang` that
    SEPIA does not use), or None when it can."""
    lang = lang.upper()
    history = ANALYSIS_HISTORY[lang]
    try:
        number = (Path(index_path) / ANALYSIS_FILE).read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        number = "1"
    except OSError as exc:
        return f"cannot read {Path(index_path) / ANALYSIS_FILE}: {exc.strerror}"
    if number == str(len(history)):
        return None
    if number.isdigit() and 1 <= int(number) < len(history):
        return (f"the {lang} index in {index_path} was built with {history[int(number) - 1]}; SEPIA now "
                f"analyses {lang} with {history[-1]}")
    return (f"the {lang} index in {index_path} was built with {lang} analysis {number!r}, which this SEPIA "
            f"does not know (its latest is {len(history)})")


def schema_for(lang: str) -> Schema:
    """docid, title, date, body; title and body are analysed, positioned (phrases), with each
    token's character offsets (marks come from the index, not from analysing hits again) and
    stored (snippets and the full document come from the index, with the store's exact text)."""
    analyzer = analyzer_for(lang)
    # A CJK string without spaces that analyses to several words is meant as one phrase.
    multitoken = "phrase" if lang.upper() in CJK else "default"
    return Schema(
        docid=ID(stored=True, unique=True),
        title=TEXT(analyzer=analyzer, stored=True, chars=True, multitoken_query=multitoken),
        date=ID(stored=True),
        body=TEXT(analyzer=analyzer, stored=True, chars=True, multitoken_query=multitoken),
    )


def tokenize(lang: str, text: str) -> list[tuple[str, int, int, int]]:
    """(term, position, start, end) of every index token: what the index sees of `text`."""
    return list(index_units(lang)(text))


def load(langs: Iterable[str]) -> None:
    """Load these languages' analyzers and dictionaries now (each analyses a word), rather than
    while the first user to search waits: jieba's dictionary alone takes about a second of CPU."""
    for lang in langs:
        tokenize(lang, "SEPIA")


def index_units(lang: str) -> Callable[[str], Iterable[tuple[str, int, int, int]]]:
    """A function from text to its index tokens as (term, position, start, end): the analyzer's
    own units without Whoosh's Token objects where it has them (CJK), which is the same stream,
    cheaper; what the tantivy engine indexes and `tokenize` returns."""
    analyzer = analyzer_for(lang)
    own = _unit_tokenizer(analyzer)
    if own is not None:
        return own.units

    def units(text: str):
        return ((t.text, t.pos, t.startchar, t.endchar)
                for t in analyzer(text, positions=True, chars=True, mode="index"))

    return units


def index_sequence(lang: str) -> Callable[[str], tuple[list[str], list[str]] | None]:
    """A function from text to its index terms as (finest units in position order, compounds),
    or None when its positions have a gap (see UnitTokenizer.sequence); the same terms as
    `index_units`, made directly where the analyzer can (CJK)."""
    return _direct(lang, "sequence", split_compounds)


def index_columns(lang: str) -> Callable[[str], Columns]:
    """A function from text to its index tokens as columns (sepia.search.units.Columns): the same
    tokens as `index_units`, made in one pass without an object per token where the analyzer can
    (CJK)."""
    return _direct(lang, "columns", unit_columns)


def _direct(lang: str, method: str, from_units: Callable) -> Callable:
    """The analyzer's own UnitTokenizer `method` where it has one (CJK), else `from_units` over
    `index_units`."""
    own = _unit_tokenizer(analyzer_for(lang))
    if own is not None:
        return getattr(own, method)
    units = index_units(lang)
    return lambda text: from_units(units(text))


def _unit_tokenizer(analyzer) -> UnitTokenizer | None:
    """The analyzer's UnitTokenizer when that is all it is (CJK), else None."""
    items = getattr(analyzer, "items", [])
    if len(items) == 1 and isinstance(items[0], UnitTokenizer):
        return items[0]
    return None


def plain_fold(lang: str) -> Callable[[str], str]:
    """How a text is folded to look for query terms in it as plain strings (for snippets): lower
    case, and for CT the simplified spelling the terms have (OpenCC, length kept)."""
    if lang.upper() == "CT":
        from sepia.search.chinese import to_simplified

        return lambda text: to_simplified(text).lower()
    return str.lower
