"""The query language's common forms read without Whoosh's parser (sepia.search.simple_query) give
the parser's own tree: equal queries, the same text; every other form is left to the parser."""
from __future__ import annotations

import random

import pytest
from whoosh.qparser import MultifieldParser

from sepia.search.base import cached_schema, parse_query
from sepia.search.natural import FIELD_BOOSTS
from sepia.search.simple_query import simple_query

# The forms the search tests use, and what a generated query looks like.
READ = {
    "JA": ["裁判員", "裁判員制度", '"裁判員 制度"', "裁判員 候補者", "裁判員 OR 選挙", "委員会", '"委員会"', "付属病院",
           "𠮷野家", '"はやぶさの打ち上げ"', '"公開された"', '"打ち上げの受賞者"', '"選挙" OR "裁判員制度"',
           "発生 AND トロピカル", "。、！", "東京\u3000選挙"],
    "CS": ["禽流感疫苗", '"疫苗 流感"', "流感疫苗", "人民共和国", "奥运 OR 北京", "中国 经济", '"北京 奥运"',
           '"获得" OR "诺贝尔物理学奖"', "委员会 AND 疫苗3", "的"],
    "CT": ["禽流感疫苗", "臺灣", '"資訊科技產業"', "台灣 OR 臺北", "總統 選舉"],
    "EN": ["elections", "vaccine OR turnout", '"new york"', '"york new"', "the", "new", '"vicarious trauma"',
           "bird vaccine", "e-mail", "a-a b", "the OR of", '"the of"', "ＳＡＲＳ AND influenza"],
}
LEFT = ["vaccine NOT influenza", "title:vaccine", "commis*", "influenza^3 OR vaccine", "election ANDNOT vaccine",
        "vacc?ne", '"commissions turnout"~2', "docid:EN-NEWS-0002", "(vaccine OR election) AND NOT (avian OR percent)",
        "a OR b c", "a AND b OR c", "AND a", "a OR", "a AND OR b", '"unclosed', 'a"b"', '"a"b', '""', "", "  ",
        "NOT a", "a [b TO c]", "it's", "*:*", "a\\b", "new-york AND vaccine"]


def whoosh_parse(schema, text):
    return MultifieldParser(["title", "body"], schema, fieldboosts=FIELD_BOOSTS).parse(text)


def same(schema, text):
    mine, theirs = simple_query(schema, text), whoosh_parse(schema, text)
    return mine == theirs and repr(mine) == repr(theirs) and str(mine) == str(theirs)


@pytest.mark.parametrize("lang, text", [(lang, text) for lang, texts in READ.items() for text in texts])
def test_common_forms_give_the_parsers_tree(lang, text):
    schema = cached_schema(lang)
    assert simple_query(schema, text) is not None
    assert same(schema, text), (simple_query(schema, text), whoosh_parse(schema, text))
    assert parse_query(schema, text) == whoosh_parse(schema, text)


@pytest.mark.parametrize("text", LEFT)
def test_other_forms_are_left_to_the_parser(text):
    schema = cached_schema("EN")
    assert simple_query(schema, text) is None
    if text.strip():
        assert str(parse_query(schema, text)) == str(whoosh_parse(schema, text))


WORDS = {"JA": ["裁判員制度", "はやぶさ", "打ち上げ", "の", "ＳＵＤＡＣＨＩ", "internet", "a*b", "x?y", "ab:c", "(選挙", "a'b", "^2"],
         "CS": ["禽流感疫苗", "疫苗", "的", "中华人民共和国", "奥运"],
         "EN": ["the", "election", "york", "e-mail", "a-a", "running", "US", "x", "ＳＡＲＳ", "~2"]}


@pytest.mark.parametrize("lang", WORDS)
def test_random_queries_give_the_parsers_tree_or_are_left_to_it(lang):
    """Words (some with syntax), phrases (some unclosed), every operator, odd white space."""
    rng = random.Random(lang)
    schema = cached_schema(lang)
    read = 0
    for _ in range(300):
        parts = []
        for _word in range(rng.randint(1, 4)):
            word = rng.choice(WORDS[lang])
            kind = rng.random()
            parts.append(f'"{word}"' if kind < 0.3 else f'"{word} {rng.choice(WORDS[lang])}"' if kind < 0.4
                         else f'"{word}' if kind < 0.45 else word)
            parts.append(rng.choice([" AND ", " OR ", " ", "  ", "\u3000", " AND ", " OR ", " NOT ", " ANDNOT "]))
        text = "".join(parts[:-1] if rng.random() < 0.9 else parts)
        if simple_query(schema, text) is not None:
            read += 1
            assert same(schema, text), text
    assert read > 50
