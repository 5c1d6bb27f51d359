"""--numbers strict: a nugget whose numbers or dates a response lacks or states differently cannot match
that response (binarized and softmatch); the numbers after NFKC and CJK numerals."""
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.formats.model import Answer
from sepia.matchers.binarized import BinarizedMatcher
from sepia.matchers.softmatch import SoftMatcher
from sepia.text.numbers import Claim, cjk_value, claimed_numbers, numbers_in
from tests.helpers import nugget

CS = Path(__file__).resolve().parents[1] / "corpora" / "cs"


@pytest.mark.parametrize("text, numbers", [
    ("2007年10月24日", {"2007", "10", "24"}),
    ("二〇〇七年十月二十四日", {"2007", "10", "24"}),
    ("２００７年", {"2007"}),                                  # full-width digits, by NFKC
    ("1,234.50 yuan and 0.50", {"1234.5", "0.5"}),
    ("3万人，1.5亿元", {"30000", "150000000"}),
    ("三千五百万 一亿二千万", {"35000000", "120000000"}),
    ("两千 十五 一百零五", {"2000", "15", "105"}),
    ("统一 一起 第一 十分", set()),                          # lone numerals inside words state no number
    ("十月 一日", {"10", "1"}),                               # a lone numeral before 月 or 日 does
    ("launched on March 15, 2020", {"3", "15", "2020"}),
    ("15 May 2019", {"5", "15", "2019"}),
    ("you may go in March", set()),                          # a month name away from any number is a word
    ("2020-03-05", {"2020", "3", "5"}),
])
def test_numbers_in(text, numbers):
    assert numbers_in(text) == numbers


@pytest.mark.parametrize("numeral, value", [("二〇〇三", 2003), ("十", 10), ("十五", 15), ("二十", 20),
                                            ("一百零五", 105), ("三千五百万", 35_000_000), ("万", None),
                                            ("三四十", None)])
def test_cjk_value(numeral, value):
    assert cjk_value(numeral) == value


@pytest.mark.parametrize("text, required, periods", [
    ("Police killed 31 people in Austin from 2013-2019.", {"31", "2013", "2019"}, set()),
    ("Yogurt may reduce risk of type 2 diabetes", {"2"}, set()),           # a kind, not a name
    ("Cancer at Stage 3 spreads", set(), set()),                          # inside a name
    ("the act came after the September 11 attacks", set(), set()),       # a date naming an event
    ("after the 9/11 attacks", set(), set()),
    ("Since 9/11, about 5,000 Americans died", {"9", "11", "5000"}, set()),  # a date of the claim
    ("Veterans of World War 2 met in 1995", {"1995"}, set()),             # a capitalised word inside a sentence
    ("It launched on September 25, 2008", {"9", "25", "2008"}, set()),    # a month is no name
    ("In 2008 it flew", {"2008"}, set()),                                 # the sentence's first word is not either
    ("Minimalism became popular in the 1960s and 1970s", set(), {"1960", "1970"}),  # one decade of two is enough
    ("popular in the 1960s", {"1960"}, set()),                            # a lone decade is required
    ("2007年10月24日发射", {"2007", "10", "24"}, set()),
])
def test_claimed_numbers(text, required, periods):
    assert claimed_numbers(text) == Claim(frozenset(required), frozenset(periods))


def test_a_claim_is_held_by_every_required_number_and_one_period():
    claim = Claim(frozenset({"31"}), frozenset({"1960", "1970"}))
    assert claim.held_by(frozenset({"31", "1960"})) and claim.held_by(frozenset({"31", "1960", "1970", "5"}))
    assert not claim.held_by(frozenset({"1960", "1970"})) and not claim.held_by(frozenset({"31", "1980"}))
    assert Claim().held_by(frozenset()) and not Claim()


def test_strict_leaves_numbers_inside_names_and_asks_one_decade_of_several():
    diabetes = nugget("N1", "Yogurt may reduce risk of Type 2 diabetes", 1, 1)
    decades = nugget("N2", "Minimalism became popular in the 1960s and 1970s", 1, 1)
    # yogurt may risk of diabetes: 5 of 8 tokens; minimalism became popular in the 1960s: 6 of 8
    answers = [Answer(1, "Yogurt may lower the risk of diabetes. Minimalism became popular in the 1960s.")]
    strict = SoftMatcher(numbers="strict").scores("r", "t", [diabetes, decades], answers)
    assert strict == SoftMatcher().scores("r", "t", [diabetes, decades], answers) == [5 / 8, 6 / 8]
    changed = [Answer(1, "Minimalism became popular in the 1980s and 1990s.")]
    assert SoftMatcher(numbers="strict").scores("r", "t", [decades], changed) == [0.0]


NUGGET = nugget("N1", "2007年10月24日发射", 1, 1)  # tokens: 2007 年 10 月 24 日 发 射 (8)


def test_a_changed_date_cannot_match_under_strict():
    wrong = [Answer(1, "2008年10月24日发射")]                # 7 of 8 tokens
    assert SoftMatcher().scores("r", "t", [NUGGET], wrong) == [7 / 8]
    assert SoftMatcher(numbers="strict").scores("r", "t", [NUGGET], wrong) == [0.0]
    assert BinarizedMatcher().scores("r", "t", [NUGGET], wrong) == [1.0]
    assert BinarizedMatcher(numbers="strict").scores("r", "t", [NUGGET], wrong) == [0.0]


def test_strict_keeps_the_best_of_the_responses_that_state_the_numbers():
    answers = [Answer(1, "2008年10月24日发射"), Answer(2, "二〇〇七年十月二十四日")]
    # response 2 states 2007, 10, 24 in CJK numerals; its tokens share 年 月 日 with the nugget: 3/8
    assert SoftMatcher(numbers="strict").scores("r", "t", [NUGGET], answers) == [3 / 8]
    assert SoftMatcher().scores("r", "t", [NUGGET], answers) == [7 / 8]


def test_nuggets_without_numbers_score_as_before():
    plain = [nugget("N1", "西昌卫星发射中心", 1, 1), NUGGET]
    answers = [Answer(1, "在西昌卫星发射中心 2007年10月24日")]
    lenient = SoftMatcher().scores("r", "t", plain, answers)
    assert SoftMatcher(numbers="strict").scores("r", "t", plain, answers) == lenient == [1.0, 1.0]
    # a many-topic batch gives each topic's answers their own decisions
    many = SoftMatcher(numbers="strict").scores_many("r", [(plain, answers), (plain, [Answer(1, "2008年发射")])])
    assert many == [[1.0, 1.0], [2 / 8, 0.0]]


def test_evaluate_takes_numbers_strict_and_says_so():
    base = ["evaluate", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs"), "--format", "json"]
    strict = CliRunner().invoke(main, base + ["--numbers", "strict"])
    lenient = CliRunner().invoke(main, base)
    assert strict.exit_code == 0 and lenient.exit_code == 0, strict.output
    by_run = [{r["run_id"]: r for r in json.loads(o.stdout)["runs"]} for o in (strict, lenient)]
    assert all(by_run[0][r]["score"] <= by_run[1][r]["score"] + 1e-12 for r in by_run[1])  # it only takes matches away
    table = CliRunner().invoke(main, ["evaluate", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs"),
                                      "--numbers", "strict"])
    assert "(numbers strict)" in table.output


def test_strict_numbers_are_refused_for_a_matcher_without_a_number_rule():
    result = CliRunner().invoke(main, ["evaluate", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs"),
                                       "--matcher", "exact", "--numbers", "strict"])
    assert result.exit_code == 2
    assert "the exact matcher has no number rule (matchers that do: binarized, softmatch)" in result.output
