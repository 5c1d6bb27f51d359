"""Tokens, softmatch, the BINARIZED threshold and the other matchers."""
import pytest

from sepia.formats.model import Answer, Judgment
from sepia.matchers.binarized import BinarizedMatcher
from sepia.matchers.decisions import judged_matches
from sepia.matchers.exact import ExactMatcher
from sepia.matchers.human import HumanMatcher
from sepia.matchers.softmatch import SoftMatcher, softmatch
from sepia.text.tokenize import Tokenizer, char_length
from tests.helpers import nugget

tok = Tokenizer()


@pytest.mark.parametrize("text, tokens", [
    ("2008年Olympic Games在北京举行。", ["2008", "年", "olympic", "games", "在", "北", "京", "举", "行"]),
    ("選挙管理委員会", list("選挙管理委員会")),
    ("カタカナとひらがな・ＡＢＣ１２３", list("カタカナとひらがな") + ["abc123"]),
    ("한국어 text", ["한", "국", "어", "text"]),
    ("ラーメン", ["ラ", "ー", "メ", "ン"]),
    ("𠮷野家", ["𠮷", "野", "家"]),  # an astral-plane ideograph is one token
    ("don't stop-words_here", ["don", "t", "stop", "words", "here"]),
    ("。、！？ …", []),
])
def test_tokens(text, tokens):
    assert tok.tokens(text) == tokens


def test_normalisation_is_nfkc_then_lower_case():
    assert tok.tokens("ＡＢＣ Ｄｅｆ ｶﾀｶﾅ") == ["abc", "def", "カ", "タ", "カ", "ナ"]


def test_english_stemming_and_stop_words_are_options():
    assert Tokenizer(stem=True).tokens("running runs") == ["run", "run"]
    assert Tokenizer(stopwords=True).tokens("the cat and the hat") == ["cat", "hat"]


def test_character_length_ignores_white_space_and_counts_code_points():
    assert char_length(" 北 京\n\t𠮷 ab ") == 5


def test_softmatch_counts_a_bag_of_tokens():
    # nugget 北京北京 has four tokens; the response has 北 and 京 once each: 2 of 4
    assert softmatch("北京北京", "北京") == 0.5
    assert softmatch("北京北京", "北京", as_set=True) == 1.0
    assert softmatch("北京北京", "在北京和北京") == 1.0


def test_softmatch_mixed_scripts():
    # tokens of the nugget: 2008, 年, beijing, olympics -> the response has 2008, 年, beijing
    assert softmatch("2008年Beijing Olympics", "北京 2008年 (Beijing)") == 0.75


def test_binarized_needs_strictly_more_than_theta():
    n = [nugget("N1", "甲乙丙丁", 1, 1)]
    m = BinarizedMatcher(theta=0.5)
    assert m.best_scores(n, [Answer(1, "甲乙")]) == [0.5]
    assert m.scores("r", "t", n, [Answer(1, "甲乙")]) == [0.0]  # exactly theta: no match
    assert m.scores("r", "t", n, [Answer(1, "甲乙丙")]) == [1.0]
    assert BinarizedMatcher(theta=0.4).scores("r", "t", n, [Answer(1, "甲乙")]) == [1.0]


def test_softmatch_takes_the_best_response_per_nugget():
    n = [nugget("N1", "甲乙丙丁", 1, 1), nugget("N2", "子丑", 1, 1)]
    answers = [Answer(1, "甲乙"), Answer(2, "甲乙丙 子")]
    assert SoftMatcher().scores("r", "t", n, answers) == [0.75, 0.5]


def test_nugget_without_tokens_never_matches():
    assert softmatch("。。", "。。") == 0.0


def test_exact_matcher_normalises_both_sides():
    n = [nugget("N1", "ＷＨＯ 总干事", 1, 1), nugget("N2", "陈冯富珍", 1, 1)]
    assert ExactMatcher().scores("r", "t", n, [Answer(1, "世卫组织（who 总干事）陈冯")]) == [1.0, 0.0]


def test_human_judgments_majority_with_ties_as_match():
    js = [Judgment("T-CS-1", "R", 1, "N1", True, "a"), Judgment("T-CS-1", "R", 1, "N1", False, "b"),
          Judgment("T-CS-1", "R", 1, "N2", False, "a"), Judgment("T-CS-1", "R", 2, "N2", True, "a"),
          Judgment("T-CS-1", "R", 2, "N2", False, "b"), Judgment("T-CS-1", "R", 2, "N2", False, "c")]
    decisions = judged_matches(js)
    assert decisions[("R", "T-CS-1", 1, "N1")] == 1.0  # 1 of 2
    assert decisions[("R", "T-CS-1", 2, "N2")] == 0.0  # 1 of 3
    m = HumanMatcher(js)
    n = [nugget("N1", "x", 1, 1), nugget("N2", "y", 1, 1), nugget("N3", "z", 1, 1)]
    assert m.scores("R", "T-CS-1", n, [Answer(1, "..."), Answer(2, "...")]) == [1.0, 0.0, 0.0]
    assert m.unjudged("R", "T-CS-2") and not m.unjudged("R", "T-CS-1")
