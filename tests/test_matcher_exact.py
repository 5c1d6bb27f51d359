"""exact on tokens (SPEC section 3): the nugget's token sequence occurs contiguously in a response's."""
import pytest

from sepia.formats.model import Answer
from sepia.matchers.exact import ExactMatcher
from sepia.scoring.evaluate import evaluate_runs
from sepia.text.tokenize import Tokenizer
from tests.helpers import gold, nugget, run, topic


def _found(nugget_text: str, *responses: str, tokenizer: Tokenizer | None = None) -> float:
    matcher = ExactMatcher(tokenizer or Tokenizer())
    return matcher.scores("r", "t", [nugget("N1", nugget_text, 1, 1)],
                          [Answer(i + 1, text) for i, text in enumerate(responses)])[0]


@pytest.mark.parametrize("nugget_text, response, expected", [
    ("GDP 增长", "今年GDP增长很快", 1.0),                       # white space inside the nugget is not a token
    ("GDP增长", "今年 GDP 增长 很快", 1.0),                     # nor in the response
    ("\n        张三\n      是 局长\n    ", "据报道，张三是局长。", 1.0),  # a nugget with XML indentation
    ("世卫组织（WHO）", "世卫组织 who 总干事", 1.0),            # punctuation never decides
    ("增长 GDP", "GDP增长", 0.0),                              # the order counts
    ("张三局长", "张三是局长", 0.0),                             # contiguous: nothing may come between
    ("cat", "a category of things", 0.0),                      # a word token matches whole words only
    ("Olympic Games", "the olympic games in Beijing", 1.0),
    ("games olympic", "the olympic games", 0.0),
    ("。。", "。。", 0.0),                                       # a nugget without tokens never matches
    ("北京", "", 0.0),
])
def test_exact_is_a_contiguous_token_run(nugget_text, response, expected):
    assert _found(nugget_text, response) == expected


def test_any_response_may_hold_it_but_not_two_together():
    assert _found("张三局长", "张三", "局长") == 0.0
    assert _found("张三局长", "张三", "前张三局长") == 1.0


def test_tokens_follow_the_tokenizer_settings():
    stemmed = Tokenizer(stem=True)
    assert _found("launched rockets", "they launch rocket") == 0.0
    assert _found("launched rockets", "they launch rocket", tokenizer=stemmed) == 1.0


def test_evaluate_scores_the_spacing_cases_as_matches():
    g = gold("CS", topic("X-CS-0001", "DEFINITION", nugget("N1", "GDP 增长", 1, 1), nugget("N2", "通货 膨胀", 1, 1)))
    [result] = evaluate_runs(g, [run("T1-CS-CS-01-T", {"X-CS-0001": ["GDP增长"]})], matcher="exact")
    assert result.topics[0].matched == 1
    # hand: recall 1/2; L = 5, allowance C * a with C = mean nugget length (5 + 4) / 2 = 4.5: precision 4.5/5
    p, r = 4.5 / 5, 0.5
    assert result.topics[0].f == pytest.approx(10 * p * r / (9 * p + r))
