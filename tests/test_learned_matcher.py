"""The learned matcher (sepia/matchers/learned): its evidence features against hand-computed values
and second implementations, the honest cross-run protocol (a run's own judgments never reach its
score), saved models, and one-line errors for bad input."""
from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.formats.judgments import read_judgments
from sepia.formats.model import GoldStandard, Judgment
from sepia.formats.read import read_file
from sepia.matchers import learned
from sepia.scoring.evaluate import evaluate_runs
from sepia.matchers.learned.crossrun import cross_run_predictions
from sepia.matchers.learned.evidence import Text, numbers, sentences, squeezed
from sepia.text.numbers import cjk_value
from sepia.matchers.learned.context import CONTEXT_FEATURES, context_features
from sepia.matchers.learned.features import FEATURES, common_substring, pair_features, soft_credit, token_weights
from sepia.matchers.learned.model import fit_classifier, soft_rows
from sepia.matchers.learned.pairs import build_pairs
from sepia.matchers.learned.reuse import reuse_features, support_rates
from sepia.matchers.learned.trained import MODEL_VERSION, ModelError, load, train
from sepia.matchers.softmatch import softmatch

CORPORA = Path(__file__).resolve().parents[1] / "corpora"


def corpus(lang: str):
    folder = CORPORA / lang
    gold = read_file(folder / "gold.xml", "gold")
    runs = [read_file(p, "cclqa") for p in sorted((folder / "runs").glob("*.xml"))]
    return gold, runs, read_judgments(folder / "judgments.tsv")


# ------------------------------------------------------------------ evidence


@pytest.mark.parametrize("numeral, value", [("二〇〇八", 2008), ("三千五百", 3500), ("十二", 12), ("十", 10),
                                            ("两万", 20000), ("一亿二千万", 120_000_000), ("四十五", 45), ("万", None)])
def test_cjk_numerals(numeral, value):
    # the evidence reads CJK numerals with --numbers strict's reader
    assert cjk_value(numeral) == value
    assert numbers(numeral) == (frozenset() if value is None else {str(value)})


def test_numbers_and_dates_normalised_across_languages():
    assert {"2008", "5", "m3"} <= numbers("launched on March 5, 2008")
    assert {"2008", "5", "m3"} <= numbers("２００８年3月5日发射")
    assert {"2008", "m3"} <= numbers("二〇〇八年三月")
    assert numbers("1,000 people and 2.50 dollars") == {"1000", "2.5"}
    assert "m5" not in numbers("it may rain")  # the verb, not the month


def test_sentences():
    assert sentences("The rocket flew. It landed! 你好。再见") == ["The rocket flew.", "It landed!", "你好。", "再见"]
    assert sentences("") == []


def longest_common_substring(a: str, b: str) -> int:
    """The textbook dynamic programme, a second implementation for common_substring."""
    best, previous = 0, [0] * (len(b) + 1)
    for ca in a:
        current = [0] * (len(b) + 1)
        for j, cb in enumerate(b, 1):
            if ca == cb:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best


@pytest.mark.parametrize("a, b", [("abcdef", "xxcdeyy"), ("神舟七号飞船", "发射了神舟七号"), ("abc", "xyz"),
                                  ("", "abc"), ("aaaa", "aa"), ("thelaunchsite", "launchsitesofthe")])
def test_common_substring_against_dynamic_programme(a, b):
    assert common_substring(a, b) == longest_common_substring(a, b)


def test_features_hand_computed():
    nuggets = [Text("red apple tree"), Text("green apple")]
    weights = token_weights(nuggets)
    assert weights == pytest.approx({"red": math.log(3), "appl": math.log(2), "tree": math.log(3), "green": math.log(3)})
    response = Text("The red tree grows in May 2008. Nothing else here.")
    row = dict(zip(FEATURES, pair_features(nuggets[0], response, weights)))
    recall = 2 * math.log(3) / (2 * math.log(3) + math.log(2))
    assert row["recall"] == pytest.approx(recall)
    assert row["sentence_recall"] == pytest.approx(recall)
    assert row["rarest_missing"] == pytest.approx(math.log(2))
    assert row["softmatch"] == pytest.approx(softmatch("red apple tree", response.text)) == pytest.approx(2 / 3)
    assert row["binarized"] == 1.0
    # best sentence "the red tree grows in may 2008": content words red, tree, grow, may, 2008
    assert row["sentence_precision"] == pytest.approx(2 / 5)
    # "redappletree" and "theredtreegrowsinmay2008nothingelsehere" share "tree"
    assert row["common_substring"] == pytest.approx(len("tree") / len(squeezed("red apple tree")))
    assert row["nugget_has_numbers"] == 0.0 and row["numbers_found"] == 1.0
    assert row["response_sentences"] == 2.0 and row["nugget_words"] == 3.0


def test_numbers_feature_tells_a_changed_date():
    nugget = Text("Shenzhou 7 launched on 25 September 2008")
    weights = token_weights([nugget])
    right = dict(zip(FEATURES, pair_features(nugget, Text("It launched on 25 September 2008."), weights)))
    wrong = dict(zip(FEATURES, pair_features(nugget, Text("It launched on 12 October 2005."), weights)))
    # the nugget states 7, 25, September (m9) and 2008; the right response all but the 7 of "Shenzhou 7"
    assert right["numbers_found"] == pytest.approx(3 / 4)
    assert wrong["numbers_found"] == 0.0


def test_reuse_features_hand_computed():
    sims = np.array([[0.2, 0.9, 0.5]])
    labels = np.array([1.0, 0.0, 1.0])
    usable = np.array([[True, True, False]])  # the third is the pair's own run
    target = np.array([[0.5, 0.5, 0.5, 0.5]])  # RATE_FEATURES values: sentence_recall, recall, window, softmatch
    references = np.array([[0.6, 0.5, 0.5, 0.5], [0.3, 0.5, 0.5, 0.5], [0.5, 0.5, 0.5, 0.5]])
    row = reuse_features(sims, labels, usable, target, references)[0]
    prior, count, support, nonsupport, vote, by_sentence, by_recall, by_window, by_softmatch = row
    assert prior == pytest.approx((1 + 0.5) / (2 + 1))
    assert count == pytest.approx(math.log1p(2))
    assert support == pytest.approx(0.2) and nonsupport == pytest.approx(0.9)
    assert vote == pytest.approx((0.9 * 0 + 0.2 * 1) / 1.1)
    # the supporting reference is 0.1 away in sentence recall (weight e^-1), the other 0.2 (e^-2);
    # the third, of the pair's own run, would weigh most (distance 0) and is never counted
    assert by_sentence == pytest.approx(math.exp(-1) / (math.exp(-1) + math.exp(-2)))
    assert by_recall == by_window == by_softmatch == pytest.approx(1 / 2)


def test_support_rate_without_usable_references_is_the_prior():
    rates = support_rates(np.array([[0.4]]), np.array([[0.4]]), np.array([1.0]), np.array([[False]]), np.array([0.3]))
    assert rates.tolist() == [[0.3]]


def test_soft_recall_and_nugget_weight_hand_computed():
    assert soft_credit("protest", frozenset({"protesting"}), {"prote": ["protesting"]}) == pytest.approx(7 / 10)
    assert soft_credit("captiv", frozenset({"captur"}), {"captu": ["captur"]}) == 0.0  # "capt": shorter than five
    assert soft_credit("war", frozenset({"war"}), {"war": ["war"]}) == 1.0
    nuggets = [Text("protesters organised marches"), Text("marches")]
    weights = token_weights(nuggets)  # protest ln 3, organis ln 3, march ln 2
    assert set(weights) == {"protest", "organis", "march"}
    row = dict(zip(FEATURES, pair_features(nuggets[0], Text("The protesting students organised."), weights)))
    # protest -> "protest" (stemmed "protesting"): same word; organis found; march missing
    assert row["soft_recall"] == pytest.approx(2 * math.log(3) / (2 * math.log(3) + math.log(2)))
    assert row["nugget_weight"] == pytest.approx(math.log1p(2 * math.log(3) + math.log(2)))
    nuggets = [Text("economy grew"), Text("prices grew")]
    weights = token_weights(nuggets)  # economi ln 3, grew ln 2
    row = dict(zip(FEATURES, pair_features(nuggets[0], Text("The economic news."), weights)))
    # "economy" stems to "economi", "economic" to "econom": 6 of 7 characters shared; "grew" missing
    assert row["soft_recall"] == pytest.approx(6 / 7 * math.log(3) / (math.log(3) + math.log(2)))
    assert row["recall"] == 0.0


def test_context_features_hand_computed():
    recall, sentence = FEATURES.index("recall"), FEATURES.index("sentence_recall")
    keys = [("A", "T1", 1, "N1"), ("A", "T1", 1, "N2"), ("A", "T2", 1, "N1"), ("B", "T1", 1, "N1")]
    features = np.zeros((4, len(FEATURES)))
    features[:, recall] = [0.2, 0.6, 1.0, 0.5]
    features[:, sentence] = [0.1, 0.3, 0.4, 0.5]
    out = dict(zip(CONTEXT_FEATURES, context_features(keys, features).T))
    assert out["response_recall"] == pytest.approx([0.4, 0.4, 1.0, 0.5])
    assert out["recall_over_response"] == pytest.approx([-0.2, 0.2, 0.0, 0.0])
    assert out["response_sentence_recall"] == pytest.approx([0.2, 0.2, 0.4, 0.5])
    assert out["sentence_recall_over_response"] == pytest.approx([-0.1, 0.1, 0.0, 0.0])


def test_classifier_is_scikit_learns_logistic_regression():
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(1)
    x = rng.normal(size=(200, 3))
    labels = np.clip(np.round(x[:, 0] + rng.normal(scale=0.5, size=200)), 0, 1) * 1.0
    labels[:10] = 0.5
    ours = fit_classifier(x, labels)
    rows, y, w = soft_rows(x, labels)
    assert len(rows) == 210  # a partial support twice, a decided pair once
    assert w[y == 1].sum() == pytest.approx(labels.sum()) and w[y == 0].sum() == pytest.approx((1 - labels).sum())
    pipe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    pipe.fit(rows, y, standardscaler__sample_weight=w, logisticregression__sample_weight=w)
    assert ours.probabilities(x) == pytest.approx(pipe.predict_proba(x)[:, 1], abs=1e-6)


# ------------------------------------------------------------------ the honest protocol


def flipped(judgments: list[Judgment], run_id: str) -> list[Judgment]:
    """The same judgments with every decision on `run_id`'s answers turned round."""
    return [replace(j, match=1.0 - j.match) if j.run_id == run_id else j for j in judgments]


@pytest.mark.parametrize("holdout", ["run", "team"])
def test_a_runs_own_judgments_never_reach_its_score(holdout):
    gold, runs, judgments = corpus("cs")
    target = "TEAMB-CS-CS-01-T"
    before = cross_run_predictions(build_pairs(gold, runs, judgments), holdout)
    pairs = build_pairs(gold, runs, flipped(judgments, target))
    after = cross_run_predictions(pairs, holdout)
    own = np.array([k[0] == target for k in pairs.keys])
    assert np.array_equal(before[own], after[own])
    assert not np.allclose(before[~own], after[~own])  # the others' scores do see them: the test can fail


def test_team_holdout_also_hides_the_other_runs_of_the_team():
    gold, runs, judgments = corpus("cs")
    team = runs[0]  # TEAMA-CS-CS-01-T, and its twin submitted as run 02 of the same team
    twin = replace(team, metadata=replace(team.metadata, run_id="TEAMA-CS-CS-02-T"))
    twin_judgments = [replace(j, run_id=twin.run_id) for j in judgments if j.run_id == team.run_id]
    everything = judgments + twin_judgments
    for holdout, hidden in (("team", True), ("run", False)):
        before = cross_run_predictions(build_pairs(gold, runs + [twin], everything), holdout)
        pairs = build_pairs(gold, runs + [twin], flipped(everything, twin.run_id))
        after = cross_run_predictions(pairs, holdout)
        own = np.array([k[0] == team.run_id for k in pairs.keys])
        assert np.array_equal(before[own], after[own]) is hidden


def test_cross_run_scores_through_the_evaluator():
    gold, runs, judgments = corpus("cs")
    matcher = learned.cross_run(gold, runs, judgments)
    results = evaluate_runs(gold, runs, matcher=matcher)
    assert {r.matcher for r in results} == {"learned"}
    assert all(0 <= t.f <= 1 for r in results for t in r.topics)
    assert len(matcher.probabilities) == len(build_pairs(gold, runs))
    human = {r.run_id: r.score for r in evaluate_runs(gold, runs, matcher="human", judgments=judgments)}
    scores = {r.run_id: r.score for r in results}
    assert max(scores, key=scores.get) == max(human, key=human.get)


@pytest.mark.parametrize("lang", ["cs", "ct", "ja"])
def test_every_sample_language(lang):
    gold, runs, judgments = corpus(lang)
    pairs = build_pairs(gold, runs, judgments)
    p = cross_run_predictions(pairs)
    assert len(pairs) and np.all((p >= 0) & (p <= 1))
    judged = ~np.isnan(pairs.labels)
    # better than chance at telling the judged matches from the misses
    assert p[judged & (pairs.labels == 1)].mean() > p[judged & (pairs.labels == 0)].mean() + 0.3


def test_english():
    from tests.helpers import gold as make_gold, nugget, run, topic

    gold = make_gold("EN", topic("T-EN-0001", "OTHER", nugget("N1", "The rocket launched in 2008", 1, 1),
                                 nugget("N2", "Three astronauts flew", 1, 1)))
    texts = ["The rocket launched in 2008. Three astronauts flew on board.", "The rocket launched in 2008.",
             "Three astronauts flew.", "Nothing about it."]
    runs = [run(f"T{i}-EN-EN-01-T", {"T-EN-0001": [t]}) for i, t in enumerate(texts * 2)]
    truth = [(1, 1), (1, 0), (0, 1), (0, 0)] * 2
    judgments = [Judgment("T-EN-0001", r.run_id, 1, n, float(v[k]), "a")
                 for r, v in zip(runs, truth) for k, n in enumerate(("N1", "N2"))]
    matcher = learned.cross_run(gold, runs, judgments, threshold=0.5)
    decided = [[matcher.probabilities[(r.run_id, "T-EN-0001", 1, n)] >= 0.5 for n in ("N1", "N2")] for r in runs]
    assert decided == [[bool(a), bool(b)] for a, b in truth]


# ------------------------------------------------------------------ saved models and bad input


def test_saved_model_round_trip_and_digest(tmp_path):
    gold, runs, judgments = corpus("ja")
    model = train(gold, runs, judgments)
    model.save(tmp_path / "m.json")
    again = load(tmp_path / "m.json")
    assert again.probabilities(gold, runs) == pytest.approx(model.probabilities(gold, runs))
    assert again.training["digest"] == train(gold, list(reversed(runs)), list(reversed(judgments))).training["digest"]
    first = judgments[0]
    same = (first.topic_id, first.run_id, first.answer_rank, first.nugget_id)
    changed = [replace(j, match=1 - j.match) if (j.topic_id, j.run_id, j.answer_rank, j.nugget_id) == same else j
               for j in judgments]
    assert train(gold, runs, changed).training["digest"] != model.training["digest"]
    assert set(again.versions) == {"sepia", "scikit-learn", "numpy"}


def test_saved_model_never_reuses_a_runs_own_judgments():
    gold, runs, judgments = corpus("cs")
    target = runs[1].run_id
    model = train(gold, runs, judgments)
    reversed_reuse = replace(model, references={
        topic: {n: dict(ref, judged=[[w, 1 - v if r == target else v, r, e] for w, v, r, e in ref["judged"]])
                for n, ref in nuggets.items()} for topic, nuggets in model.references.items()})
    before, after = model.probabilities(gold, runs), reversed_reuse.probabilities(gold, runs)
    own = [k for k in before if k[0] == target]
    assert [before[k] for k in own] == [after[k] for k in own]
    assert any(before[k] != after[k] for k in before if k[0] != target)


def test_bad_model_files(tmp_path):
    gold, runs, judgments = corpus("cs")
    path = tmp_path / "m.json"
    train(gold, runs, judgments).save(path)
    document = json.loads(path.read_text())
    document["model_version"] = MODEL_VERSION + 1
    path.write_text(json.dumps(document))
    with pytest.raises(ModelError, match="another version") as caught:
        load(path)
    assert "\n" not in str(caught.value)
    path.write_text("{not json")
    with pytest.raises(ModelError, match="not a learned matcher model"):
        load(path)
    path.write_text(json.dumps({"format": "sepia-learned-matcher", "model_version": MODEL_VERSION,
                                "features": document["features"], "classifier": {"mean": [1]}}))
    with pytest.raises(ModelError, match="damaged"):
        load(path)
    document["model_version"] = MODEL_VERSION
    topic = next(iter(document["references"]))
    nugget = next(iter(document["references"][topic]))
    document["references"][topic][nugget]["judged"][0] = "words"
    path.write_text(json.dumps(document))
    with pytest.raises(ModelError, match="damaged"):
        load(path)


def test_bad_training_input():
    gold, runs, judgments = corpus("cs")
    with pytest.raises(ModelError, match="lacks: SEPIA-CS-0001 N999"):
        train(gold, runs, judgments + [Judgment("SEPIA-CS-0001", runs[0].run_id, 1, "N999", 1.0, "a")])
    empty = GoldStandard(gold.lang, [replace(t, nuggets=[]) for t in gold.topics])
    with pytest.raises(ModelError, match="no nuggets"):
        train(empty, runs, [])
    with pytest.raises(ModelError, match="no judgment names an answer"):
        train(gold, runs, [j for j in judgments if j.run_id == "nobody"])


def test_cli_train_and_apply(tmp_path):
    cs = CORPORA / "cs"
    runner = CliRunner()
    model = tmp_path / "model.json"
    common = ["--gold", str(cs / "gold.xml"), "--run", str(cs / "runs")]
    trained = runner.invoke(main, ["matcher", "train", *common, "--judgments", str(cs / "judgments.tsv"),
                                   "--out", str(model)])
    assert trained.exit_code == 0, trained.output
    assert "training data sha256" in trained.output
    applied = runner.invoke(main, ["evaluate", *common, "--matcher", "learned", "--matcher-option", f"model={model}",
                                   "--matcher-option", "threshold=0.5"])
    assert applied.exit_code == 0, applied.output
    assert "not estimates for unjudged runs" in applied.output
    assert f"F3 with the LEARNED matcher (model {model}) (threshold 0.5)" in applied.output
    honest = runner.invoke(main, ["evaluate", *common, "--matcher", "learned", "--judgments",
                                  str(cs / "judgments.tsv"), "--matcher-option", "holdout=team", "--format", "json"])
    assert honest.exit_code == 0, honest.output
    assert "not estimates" not in honest.output
    assert json.loads(honest.output)["settings"]["options"] == {"holdout": "team"}
    unknown = runner.invoke(main, ["evaluate", *common, "--matcher", "learned", "--matcher-option", "holdout=topic",
                                   "--judgments", str(cs / "judgments.tsv")])
    assert unknown.exit_code == 1 and "holdout is run or team" in unknown.output
    missing = runner.invoke(main, ["evaluate", *common, "--matcher", "learned"])
    assert missing.exit_code == 1 and "needs a model (--matcher-option model=MODEL" in missing.output
    model.write_text(json.dumps({"format": "sepia-learned-matcher", "model_version": 0}))
    old = runner.invoke(main, ["evaluate", *common, "--matcher", "learned", "--matcher-option", f"model={model}"])
    assert old.exit_code == 1 and old.output.strip().count("\n") == 0 and "another version" in old.output
    one_run = tmp_path / "one-run.tsv"
    one_run.write_text("".join(line for line in (cs / "judgments.tsv").read_text().splitlines(keepends=True)
                               if "TEAMB" not in line and "TEAMC" not in line and "TEAMX" not in line))
    lonely = runner.invoke(main, ["evaluate", *common, "--matcher", "learned", "--judgments", str(one_run)])
    assert lonely.exit_code == 0 and "run TEAMA-CS-CS-01-T: no other run's judgments to learn from" in lonely.output
    same = tmp_path / "all-match.tsv"
    same.write_text("topic_id\trun_id\tanswer_rank\tnugget_id\tmatch\tassessor\n"
                    "SEPIA-CS-0001\tTEAMA-CS-CS-01-T\t1\tN001\t1\ta\n")
    for command in (["evaluate", *common, "--matcher", "learned", "--judgments", str(same)],
                    ["matcher", "train", *common, "--judgments", str(same), "--out", str(model)]):
        result = runner.invoke(main, command)
        assert result.exit_code == 1 and "only one decision" in result.output, result.output
    bad = tmp_path / "bad.tsv"
    bad.write_text("topic_id\trun_id\tanswer_rank\tnugget_id\tmatch\tassessor\n"
                   "SEPIA-CS-0001\tTEAMA-CS-CS-01-T\t1\tN999\t1\ta\n")
    refused = runner.invoke(main, ["matcher", "train", *common, "--judgments", str(bad), "--out", str(model)])
    assert refused.exit_code == 1 and "lacks: SEPIA-CS-0001 N999" in refused.output


def test_adapter_takes_the_best_answer_and_scores_as_the_human_matcher():
    from sepia.formats.model import Answer
    from sepia.matchers.learned.matcher import LearnedMatcher
    from sepia.matchers.decisions import judged_matches

    probabilities = {("R", "T", 1, "N1"): 0.3, ("R", "T", 2, "N1"): 0.6, ("R", "T", 1, "N2"): 0.2}
    answers = [Answer(1, "a"), Answer(2, "b")]
    nuggets = [replace(n, nugget_id=i) for n, i in zip(read_file(CORPORA / "cs" / "gold.xml", "gold").topics[0].nuggets,
                                                         ("N1", "N2", "N3"))]
    assert LearnedMatcher(probabilities).scores("R", "T", nuggets, answers) == [0.6, 0.2, 0.0]
    assert LearnedMatcher(probabilities, 0.5).scores("R", "T", nuggets, answers) == [1.0, 0.0, 0.0]
    # the human decisions given as probabilities score exactly as the human matcher (partial 0.5 kept)
    gold, runs, judgments = corpus("ct")
    as_matcher = LearnedMatcher(judged_matches(judgments))
    ours = {r.run_id: r.score for r in evaluate_runs(gold, runs, matcher=as_matcher)}
    human = {r.run_id: r.score for r in evaluate_runs(gold, runs, matcher="human", judgments=judgments)}
    assert ours == pytest.approx(human, abs=1e-12)


def test_report_on_the_sample_campaign_matches_docs():
    """docs/measurements.md shows what tools/learned_report.py prints for the sample campaign: its columns
    of the table (the last six) and its notes. The whole report, TREC RAG 2024 included, takes
    minutes: `tools/learned_report.py --check` compares that one."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("learned_report", CORPORA.parent / "tools" / "learned_report.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    sets = [tool.sample(lang) for lang in tool.SAMPLES]
    docs = tool.DOCS.read_text(encoding="utf-8")
    start = docs.index("| matcher | TREC RAG 2024")
    shown = docs[start:].split("\n\n", 1)[0].splitlines()
    ours = tool.table(sets)
    assert len(shown) == len(ours)
    for mine, theirs in zip(ours, shown):
        cells, their_cells = mine.strip("|").split("|"), theirs.strip("|").split("|")
        assert cells[0] == their_cells[0] and cells[1:] == their_cells[-len(cells) + 1:], (mine, theirs)
    for data in sets:
        assert data.notes in docs
