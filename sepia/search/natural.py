"""Natural-language queries: text typed as one would say it (はやぶさの打ち上げ, 谁获得了诺贝尔奖,
why has olive oil increased in price) rather than in the query language.

A CS, CT or JA query without any operator is split into the language's words (Sudachi's middle
units, jieba's words), function words dropped (particles, auxiliaries, pronouns, question words),
and searched as any of them: each word the term or phrase of its finest units as analysed in the
query's context, in title (x2) and body, ORed, so BM25 ranks first the documents with the most and
rarest words and a document missing one is still found; the documents with all the words score
again ALL_WORDS_BOOST times, so that they come first. Text with an operator ("phrase", OR, NOT,
field:, prefix*, ...) is the query language as before; so is EN text, whose words are separated
anyway, unless it is a question. A question (`is_question`: it ends with a question mark, opens with
an English question word, or holds a CJK question word or ending) is read as words in every
language, its quotation marks and other syntax characters as text, its question words dropped;
only the Boolean operators in capitals or a field make a question the query language. A search that
finds nothing is offered the any-term query of its words (`any_term_query`).
"""
from __future__ import annotations

import re
from typing import NamedTuple

from whoosh import query as wq

from sepia.search.analyzers import CJK, analyzer_for
from sepia.search.querygen import MAX_TERMS, generate_query
from sepia.search.units import is_word, normalize_term

FIELD_BOOSTS = {"title": 2.0, "body": 1.0}  # as the query language weighs a word without a field
# BM25 alone may rank a document with one frequent word above one with all the words (はやぶさの
# 打ち上げ: rocket launches above the 4 articles on Hayabusa's): those with all score again, x10.
ALL_WORDS_BOOST = 10.0


class Word(NamedTuple):
    surface: str             # as written in the text
    terms: tuple[str, ...]   # its index terms, finest units, as analysed in the text's context


# What makes text the query language (Whoosh's default parser): double quotes, a field, an operator
# word in capitals, a prefix or wildcard (* next to a word, ? inside a Latin word), a boost or a
# slop. Parentheses and a ? elsewhere are the punctuation of natural text (再発見(タイ), 関与か?).
_OPERATOR = re.compile(r"""\"|\b(?:title|body|docid|date):|(?<!\S)(?:AND|OR|NOT|ANDNOT|ANDMAYBE)(?!\S)"""
                       r"""|\w\*|\*\w|[A-Za-z0-9]\?[A-Za-z0-9]|\^\d|~\d""")
# Everything the query language may read as syntax.
_SYNTAX = re.compile(r"""\b(?:title|body|docid|date):|["'()\[\]{}^~*?:]|(?<!\S)(?:AND|OR|NOT|ANDNOT|ANDMAYBE)(?!\S)""")
_NEGATED = re.compile(r"(?<!\S)NOT\s+(?:\w+:)?(?:\"[^\"]*\"|\S+)")

# Sudachi's parts of speech that carry no content of their own (punctuation is no word anyway; an
# unknown ideograph such as 𠮷 is a symbol to Sudachi, yet a word).
_JA_FUNCTION = frozenset({"助詞", "助動詞", "代名詞", "接頭辞", "接尾辞", "連体詞"})
# Verbs that follow に as parts of a compound particle: について, に対する, に関する, による, における.
_JA_PARTICLE_VERBS = frozenset({"つく", "就く", "対する", "関する", "よる", "依る", "因る", "おく", "於く"})
# What else makes a question, by normalised form: question adverbs (なぜ, どう), the formal nouns of
# とはどういうことか and どういうものか; adnominals (どういう, どのような, この) are dropped by part of speech.
_JA_QUESTION_WORDS = frozenset({"何故", "どう", "如何", "どうして", "いかが", "こと", "事", "もの", "物"})
# Chinese function and question words (simplified; CT text is converted before segmentation).
_ZH_FUNCTION = frozenset(
    "的 地 得 了 着 过 是 在 和 与 及 或 而 并 也 都 就 还 又 被 把 将 对 于 从 向 为 以 由 之 其 这 那 这个 那个 "
    "这些 那些 哪 哪个 哪些 哪里 什么 谁 何 几 多少 怎么 怎样 如何 为什么 吗 呢 吧 啊 呀 个 些 有关 关于 "
    "我 你 他 她 它 我们 你们 他们 有 没有 请 问 时候 是否 为何 哪儿 多久".split())
# English words that only ask, where a question opens with them (can someone ..., explain how ...):
# elsewhere can, may and will are words ("May 2024", "a tin can"). Question words (what, how, ...)
# are SEPIA's English stop words already.
_EN_ASKING = frozenset("can could should would will shall may might must explain describe define tell".split())
_EN_ASKING_SPAN = 2  # the first two words of a question: "can ...", "what would ..."

# What makes text a question. EN: it opens with a question word or a form of be, do or have (a
# modal opens a question only with a question mark: "May 2024 elections", "Will Smith"); JA: a final か
# (かな, かしら), a final とは, or a question word; CS/CT: a final 吗/呢 or a question word. In
# every language: a final question mark.
_QUOTED = re.compile(r'"[^"]*"')
_QUESTION_MARK = re.compile(r"[?？]\s*$")
_EN_QUESTION = re.compile(r"^\W*(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|am|do|does|did|"
                          r"has|have|had|explain|describe)\b", re.IGNORECASE)
_JA_QUESTION = re.compile(r"(?:か|かな|かしら|とは)[。．！!]*\s*$|何|誰|どこ|いつ|なぜ|何故|どう|どの|どれ|どちら|どんな|いくつ|いくら")
_ZH_QUESTION = re.compile(r"[吗嗎呢][。！!]*\s*$|什么|什麼|甚麼|谁|誰|哪|怎么|怎麼|怎样|怎樣|为什么|為什麼|为何|為何|如何|多少|是否")
_QUESTION_BY_LANGUAGE = {"EN": _EN_QUESTION, "JA": _JA_QUESTION, "CS": _ZH_QUESTION, "CT": _ZH_QUESTION}
# What still makes a question the query language: a field or a Boolean operator in capitals.
_QUERY_LANGUAGE = re.compile(r"""\b(?:title|body|docid|date):|(?<!\S)(?:AND|OR|NOT|ANDNOT|ANDMAYBE)(?!\S)""")


def has_operators(text: str) -> bool:
    """Whether `text` uses the query language's syntax (then it is parsed as it is)."""
    return bool(_OPERATOR.search(text))


def is_question(lang: str, text: str) -> bool:
    """Whether `text` is a question: it ends with a question mark, or opens with an English question
    word (what, how, does, ...), or holds a CJK question word or ending (何, とはどういうことか, 吗,
    什么), and it uses neither a field nor a Boolean operator in capitals (which ask for the query
    language). What asks is looked for outside quotation marks ("谁获得了诺贝尔奖" is a phrase);
    a question's quotation marks are then text."""
    pattern = _QUESTION_BY_LANGUAGE.get(lang.upper())
    outside = _QUOTED.sub(" ", text)
    asks = bool(_QUESTION_MARK.search(outside) or pattern and pattern.search(outside))
    return asks and not _QUERY_LANGUAGE.search(text)


def is_natural(lang: str, text: str) -> bool:
    """Whether `text` is searched as any of its words: a question in any language, CJK text without
    operators."""
    return lang.upper() in CJK and not has_operators(text) or is_question(lang, text)


def content_words(lang: str, text: str, question: bool = False) -> list[Word]:
    """The words of `text` that carry content, in order, each with its index terms as analysed in
    the text's own context (Sudachi reads 打ち上げ before が as one noun, at the end of a text as the
    verb 打つ + 上げる); all its words when none carries content (a query of function words still
    searches for them). Of a `question` in English, the words that only ask (can ..., explain ...)
    are dropped too."""
    lang = lang.upper()
    if lang == "JA":
        words, everything = _japanese_words(text)
    elif lang in ("CS", "CT"):
        words, everything = _chinese_words(text, traditional=(lang == "CT"))
    else:
        words = everything = _english_words(text, question)
    return words or everything


def natural_query(lang: str, text: str) -> tuple[wq.Query, str]:
    """The query tree of CJK text without operators: any of its content words, each a term or a
    phrase of its units in title (x2) and body, as the query language would write it (in JA also
    the word as written, as one term); the documents with all of them score their sum again
    ALL_WORDS_BOOST times, so they come first. And that query written out ('"w1" OR "w2"'), to
    show. (NullQuery, '') when it has no word. Characters of the query language are text here
    (a question's quotation marks)."""
    groups, shown, seen = [], [], set()
    for word in content_words(lang, words_only(text), is_question(lang, text)):
        if word.terms in seen:
            continue
        seen.add(word.terms)
        shown.append(f'"{word.surface}"')
        # Sudachi may read the same characters otherwise in a document (打ち上げ: a verb of two
        # units at the end of a query, one noun before が): the written word as one term too.
        whole = normalize_term(word.surface)
        readings = [word.terms] + ([(whole,)] if lang.upper() == "JA" and (whole,) != word.terms else [])
        groups.append(wq.Or([wq.Term(field, terms[0], boost=boost) if len(terms) == 1
                             else wq.Phrase(field, list(terms), boost=boost)
                             for terms in readings for field, boost in FIELD_BOOSTS.items()]))
        if len(shown) == MAX_TERMS:
            break
    if not groups:
        return wq.NullQuery, ""
    if len(groups) == 1:
        return groups[0], shown[0]
    return wq.Or([wq.And(groups, boost=ALL_WORDS_BOOST), *groups]), " OR ".join(shown)


def words_only(text: str) -> str:
    """`text` without the query language's syntax, so that it is read as words whatever it holds
    (a topic's question: 什么是"禽流感"? marks 禽流感 as any question without quotes would)."""
    return _SYNTAX.sub(" ", text)


def any_term_query(lang: str, text: str) -> str:
    """The query that finds documents with any content word of `text` (operators and negated
    parts left out): '"w1" OR "w2" ...', '' when there is no word to search."""
    plain = words_only(_NEGATED.sub(" ", text))
    return generate_query(lang.upper(), [word.surface for word in content_words(lang, plain)])


def _japanese_words(text: str) -> tuple[list[Word], list[Word]]:
    """Sudachi's middle units (split mode B: 裁判員制度 is 裁判員 + 制度, 選挙管理委員会 選挙 + 管理 +
    委員会), each with its short units (mode A) as terms, as the index has them."""
    from sudachipy import SplitMode

    from sepia.search.japanese import chunks, sudachi_tokenizer

    tokenizer = sudachi_tokenizer()
    words, everything, previous = [], [], ""
    for _base, piece in chunks(text):
        for morpheme in tokenizer.tokenize(piece):
            surface = morpheme.surface()
            if is_word(surface):
                particle_verb = previous == "に" and morpheme.normalized_form() in _JA_PARTICLE_VERBS
                for middle in morpheme.split(SplitMode.B) or [morpheme]:
                    units = [unit for unit in middle.split(SplitMode.A) or [middle] if is_word(unit.surface())]
                    if not units:
                        continue
                    word = Word(middle.surface(), tuple(normalize_term(unit.normalized_form()) for unit in units))
                    everything.append(word)
                    pos = middle.part_of_speech()
                    if not (particle_verb or pos[0] in _JA_FUNCTION or "非自立可能" in pos[:3]
                            or middle.normalized_form() in _JA_QUESTION_WORDS):
                        words.append(word)
            previous = surface
    return words, everything


def _chinese_words(text: str, traditional: bool) -> tuple[list[Word], list[Word]]:
    from sepia.search.chinese import decompose, jieba_tokenizer, to_simplified

    simplified = to_simplified(text) if traditional else text  # the same length: offsets carry over
    words, everything, start = [], [], 0
    for word in jieba_tokenizer().cut(simplified, HMM=False):
        end = start + len(word)
        if is_word(word):
            finest = tuple(normalize_term(word[s:e]) for s, e, fine in decompose(word) if fine)
            found = Word(text[start:end], finest)
            everything.append(found)
            if word not in _ZH_FUNCTION:
                words.append(found)
        start = end
    return words, everything


def _english_words(text: str, question: bool) -> list[Word]:
    """The index terms of `text` (stop words dropped, stemmed), each a word of its own; of a
    question, without the words that only ask among its first two (can ..., explain ...)."""
    opening = [m.end() for m in re.finditer(r"\w+", text)][:_EN_ASKING_SPAN]
    asking_until = opening[-1] if opening and question else 0
    words = []
    for token in analyzer_for("EN")(text, mode="query", chars=True):
        surface = text[token.startchar:token.endchar]
        if not (token.startchar < asking_until and surface.lower() in _EN_ASKING):
            words.append(Word(surface, (token.text,)))
    return words
