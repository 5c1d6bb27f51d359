"""Cross-fitted learned predictions in judging plans: no judged pair's prediction comes from a model
that saw its judgment, the light model is scikit-learn's, the stacked reuse features are the
per-block ones, the item estimator on each run's own sample against a direct computation, coverage
by simulation, and bad input."""
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from sepia.cli import main
from sepia.formats.judgments import read_judgments
from sepia.formats.read import read_file
from sepia.metaeval.items import TopicItems, item_lambda, plan_sums, satterthwaite_half
from sepia.metaeval.learned_plans import ActiveDesign, PlanData, simulate_plans
from sepia.matchers.learned.crossfit import CrossFitError, CrossFitter, StackedSimilarities, unit_folds
from sepia.matchers.learned.crossrun import BlockSimilarities
from sepia.matchers.learned.model import fit_classifier, fit_newton
from sepia.matchers.learned.pairs import PAIR_FEATURES, Pairs, build_pairs
from sepia.matchers.learned.reuse import REUSE_FEATURES

CS = Path(__file__).resolve().parents[1] / "corpora" / "cs"


def _synthetic(runs=8, topics=12, K=6, seed=0):
    """Pairs whose features tell the human decision apart (noisily), one answer per run and topic,
    and the topics' items with a noisy BINARIZED-like matcher."""
    rng = np.random.default_rng(seed)
    keys, features, aligned, labels, blocks = [], [], [], [], {}
    items = []
    words = [f"w{i}" for i in range(30)]
    for t in range(topics):
        human = (rng.random((runs, K)) < rng.uniform(0.2, 0.7)).astype(float)
        for n in range(K):
            for r in range(runs):
                blocks.setdefault((f"T{t}", f"N{n}"), []).append(len(keys))
                keys.append((f"R{r}", f"T{t}", 1, f"N{n}"))
                signal = human[r, n] + rng.normal(0, 0.6)
                features.append(np.concatenate([[np.clip(signal, 0, 1)] * 4, rng.normal(size=len(PAIR_FEATURES) - 4)]))
                chosen = rng.choice(len(words), 4, replace=False) + (10 if human[r, n] else 0)
                aligned.append(frozenset(words[i % 30] for i in chosen))
                labels.append(human[r, n])
        automatic = np.where(rng.random((runs, K)) < 0.7, human, 1 - human)
        items.append(TopicItems(f"T{t}", np.ones(K), 60.0, rng.uniform(50, 400, runs), np.ones(runs, bool), human,
                                automatic, tuple(f"N{n}" for n in range(K))))
    columns = [PAIR_FEATURES.index(name) for name in ("sentence_recall", "recall", "window_recall", "softmatch")]
    matrix = np.zeros((len(keys), len(PAIR_FEATURES)))
    raw = np.array(features)
    matrix[:, columns] = raw[:, :4]
    matrix[:, [i for i in range(len(PAIR_FEATURES)) if i not in columns]] = raw[:, 4:]
    return Pairs(keys, matrix, aligned, np.array(labels), blocks), items


def test_newton_fit_is_scikit_learns_model():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(600, 8))
    x[:, 5] = 2.0                                                    # a constant column, as scikit-learn scales it
    labels = (x[:, 0] - x[:, 1] + rng.normal(size=600) > 0).astype(float)
    labels[:40] = 0.5                                                # partial supports: soft labels
    reference = fit_classifier(x, labels)
    fitted, solution = fit_newton(x, labels)
    assert fitted.coefficients == pytest.approx(reference.coefficients, abs=1e-3)
    assert fitted.intercept == pytest.approx(reference.intercept, abs=1e-3)
    assert fitted.mean == pytest.approx(reference.mean) and fitted.scale == pytest.approx(reference.scale)
    warm, _ = fit_newton(x, labels, solution * 0.5 + 0.1)            # another start, the same minimum
    assert warm.coefficients == pytest.approx(fitted.coefficients, abs=1e-6)


def test_no_judged_pairs_prediction_comes_from_a_model_that_saw_its_judgment():
    pairs, _ = _synthetic(runs=6, topics=6)
    rng = np.random.default_rng(2)
    judged = rng.random(len(pairs)) < 0.5
    folds = unit_folds(np.arange(len(pairs)), judged, rng)
    before = CrossFitter(pairs).predict(judged, folds)
    for k in range(5):
        flipped = Pairs(pairs.keys, pairs.features, pairs.aligned, pairs.labels.copy(), pairs.blocks)
        fold = judged & (folds == k)
        flipped.labels[fold] = 1 - flipped.labels[fold]
        after = CrossFitter(flipped).predict(judged, folds)
        assert np.array_equal(after[fold], before[fold])             # to the last bit
        assert not np.allclose(after[judged & (folds != k)], before[judged & (folds != k)])
        assert not np.allclose(after[~judged], before[~judged])      # the unjudged: every fold's model


def test_a_refit_candidates_prediction_never_depends_on_its_folds_draws_or_judgments():
    """The refit after a Poisson wave (`predict_after`): a candidate's prediction is the same to the last
    bit whatever its fold's draws and judgments (so not its own inclusion), and moves with the others'."""
    pairs, _ = _synthetic(runs=6, topics=6)
    rng = np.random.default_rng(4)
    earlier = rng.random(len(pairs)) < 0.3
    groups = unit_folds(np.arange(len(pairs)), earlier, rng)
    folds = unit_folds(np.arange(len(pairs)), ~earlier, rng)           # dealt over every candidate, drawn or not
    judged = ~earlier & (rng.random(len(pairs)) < 0.4)
    before = CrossFitter(pairs).predict_after(earlier, groups, judged, folds)
    for k in range(5):
        fold = folds == k
        flipped = Pairs(pairs.keys, pairs.features, pairs.aligned, pairs.labels.copy(), pairs.blocks)
        flipped.labels[judged & fold] = 1 - flipped.labels[judged & fold]
        redrawn = np.where(fold, ~earlier & (rng.random(len(pairs)) < 0.4), judged)
        for labels, drawn in ((flipped, judged), (pairs, redrawn)):
            after = CrossFitter(labels).predict_after(earlier, groups, drawn, folds)
            assert np.array_equal(after[fold], before[fold])             # to the last bit
            assert not np.allclose(after[~earlier & ~fold], before[~earlier & ~fold])
    changed = Pairs(pairs.keys, pairs.features, pairs.aligned, pairs.labels.copy(), pairs.blocks)
    changed.labels[earlier] = 1 - changed.labels[earlier]               # the earlier waves train every fold
    after = CrossFitter(changed).predict_after(earlier, groups, judged, folds)
    assert not np.allclose(after[folds == 0], before[folds == 0])


def test_a_runs_held_out_predictions_never_depend_on_its_judgments():
    """`predict_held_out` by runs' folds (the shrunk estimates' anchor): flipping every judgment of a
    fold's runs leaves their predictions the same to the last bit, and moves the other runs'."""
    pairs, _ = _synthetic(runs=10, topics=6)
    rng = np.random.default_rng(6)
    judged = rng.random(len(pairs)) < 0.5
    run = np.array([int(k[0][1:]) for k in pairs.keys])
    groups = (rng.permutation(10) % 5)[run]
    before = CrossFitter(pairs).predict_held_out(judged, groups)
    for k in range(5):
        own = groups == k
        flipped = Pairs(pairs.keys, pairs.features, pairs.aligned, pairs.labels.copy(), pairs.blocks)
        flipped.labels[own & judged] = 1 - flipped.labels[own & judged]
        after = CrossFitter(flipped).predict_held_out(judged, groups)
        assert np.array_equal(after[own], before[own])
        assert not np.allclose(after[~own], before[~own])


def test_unjudged_pairs_get_the_mean_of_the_folds_models():
    pairs, _ = _synthetic(runs=5, topics=4)
    rng = np.random.default_rng(3)
    judged = rng.random(len(pairs)) < 0.6
    folds = unit_folds(np.arange(len(pairs)), judged, rng, folds=3)
    predictions = CrossFitter(pairs).predict(judged, folds)
    similarities = BlockSimilarities(pairs)
    groups = np.where(judged, folds, -1)
    expected = np.zeros(len(pairs))
    for k in range(3):                                               # scikit-learn, fold by fold
        reference = judged & (groups != k)
        x = np.hstack([pairs.features, similarities.reuse(groups, reference)])
        p = fit_classifier(x[reference], pairs.labels[reference]).probabilities(x)
        expected[groups == k] = p[groups == k]
        expected[~judged] += p[~judged] / 3
    assert predictions == pytest.approx(expected, abs=5e-3)          # lbfgs stops short of the minimum


def test_stacked_reuse_features_are_the_blocks_ones():
    gold, judgments = read_file(CS / "gold.xml"), read_judgments(CS / "judgments.tsv")
    runs = [read_file(p) for p in sorted((CS / "runs").glob("*.xml"))]
    pairs = build_pairs(gold, runs, judgments)
    rng = np.random.default_rng(4)
    judged = ~np.isnan(pairs.labels) & (rng.random(len(pairs)) < 0.7)
    groups = np.where(judged, rng.integers(0, 3, len(pairs)), -1)
    stacked, blocks = StackedSimilarities(pairs).reuse(groups, judged), BlockSimilarities(pairs).reuse(groups, judged)
    vote = REUSE_FEATURES.index("neighbour_vote")
    others = [c for c in range(len(REUSE_FEATURES)) if c != vote]
    assert np.allclose(stacked[:, others], blocks[:, others])
    # the five nearest differ only where equally similar references tie for fifth place
    assert np.isclose(stacked[:, vote], blocks[:, vote]).mean() > 0.99


def test_item_estimator_on_each_runs_own_sample_by_hand():
    human = np.array([[1.0, 0.0, 1.0, 0.5], [0.0, 0.0, 1.0, 1.0]])
    automatic = np.array([[0.8, 0.2, 0.6, 0.4], [0.1, 0.3, 0.7, 0.9]])
    weights = np.array([2.0, 1.0, 1.0, 1.0])
    topic = TopicItems("T", weights, 1000.0, np.array([10.0, 10.0]), np.array([True, True]), human, automatic,
                       ("a", "b", "c", "d"))
    samples = np.array([[[0, 2]], [[1, 3]]])                         # run 0 judged a, c; run 1 b, d
    lam = 0.5
    (estimate, half), (d_estimate, d_half) = plan_sums([topic], [samples], 3.0, 0.95, np.array([[0, 1]]), lam)
    # precision is 1 (long allowance), so F3 = 10 R / (9 + R) with R the estimated weighted recall
    f3 = lambda r: 10 * min(max(r, 0), 1) / (9 + min(max(r, 0), 1))  # noqa: E731
    expected, variances = [], []
    for run, sample in enumerate(([0, 2], [1, 3])):
        def sums(kept, run=run):
            residual = sum(weights[n] * (human[run, n] - lam * automatic[run, n]) for n in kept)
            return (lam * weights @ automatic[run] + 4 / len(kept) * residual) / weights.sum()
        expected.append(f3(sums(sample)))
        replicates = [f3(sums([n for n in sample if n != drop])) for drop in sample]
        variances.append((1 - 2 / 4) * (2 - 1) / 2 * sum((r - np.mean(replicates)) ** 2 for r in replicates))
    assert estimate[:, 0] == pytest.approx(expected)
    assert half[:, 0] == pytest.approx(satterthwaite_half(np.array(variances), np.array(variances) ** 2, 0.95))
    assert d_estimate[0, 0] == pytest.approx(expected[0] - expected[1])   # independent samples: variances add
    total = sum(variances)
    assert d_half[0, 0] == pytest.approx(satterthwaite_half(np.array([total]), np.array([sum(v * v for v in variances)]),
                                                            0.95)[0])


def test_item_lambda_is_the_within_sample_regression_slope():
    rng = np.random.default_rng(5)
    topics, samples = [], []
    cov = var = 0.0
    for _ in range(3):
        human = rng.random((4, 7))
        automatic = np.clip(human + rng.normal(0, 0.4, (4, 7)), 0, 1)
        topics.append(TopicItems("T", np.ones(7), 50.0, np.ones(4), np.ones(4, bool), human, automatic))
        sample = np.argsort(rng.random((4, 1, 7)), axis=2)[:, :, :3]
        samples.append(sample)
        for run in range(4):
            y, f = human[run, sample[run, 0]], automatic[run, sample[run, 0]]
            cov += np.cov(y, f)[0, 1] * 2
            var += np.var(f, ddof=1) * 2
    assert item_lambda(topics, samples)[0] == pytest.approx(np.clip(cov / var, 0, 1))


def test_coverage_by_simulation():
    pairs, topics = _synthetic(runs=12)
    data = PlanData.build([f"R{r}" for r in range(12)], topics, pairs)
    (_, topic_learned, _, items_learned, active, shrunk) = simulate_plans(data, [50], 40, seed=0)
    for plan in (items_learned, active, shrunk):
        assert plan["fallbacks"] == 0
        assert 0.88 <= plan["means"]["coverage"] <= 1
        assert 0.88 <= plan["differences"]["coverage"] <= 1
        assert plan["correlation"] > 0.5                             # the features tell the decisions apart
    # the active plan takes the item-level plan's judgments, in expectation (its second wave is random)
    assert active["judgments"] == pytest.approx(items_learned["judgments"], rel=0.05)


@pytest.mark.parametrize("design", [ActiveDesign(2, refit=False), ActiveDesign(3)])
def test_active_designs_cover_by_simulation(design):
    """The active plan with the model fixed after the first wave, and in three waves refitted after
    each: 88% coverage or more, the item-level plan's judgments in expectation."""
    pairs, topics = _synthetic()
    data = PlanData.build([f"R{r}" for r in range(8)], topics, pairs)
    (*_, items_learned, active, _) = simulate_plans(data, [50], 60, seed=0, design=design)
    assert active["fallbacks"] == 0
    assert 0.88 <= active["means"]["coverage"] <= 1 and 0.88 <= active["differences"]["coverage"] <= 1
    assert active["judgments"] == pytest.approx(items_learned["judgments"], rel=0.05)


def test_bad_input_is_refused_in_one_line():
    pairs, _ = _synthetic(runs=3, topics=2)
    fitter = CrossFitter(pairs)
    judged = np.zeros(len(pairs), bool)
    judged[:8] = True
    with pytest.raises(CrossFitError, match="judged pairs: a cross-fitted model needs at least"):
        fitter.predict(judged, unit_folds(np.arange(len(pairs)), judged, np.random.default_rng(0)))
    one = Pairs(pairs.keys, pairs.features, pairs.aligned, np.ones(len(pairs)), pairs.blocks)
    everything = np.ones(len(pairs), bool)
    with pytest.raises(CrossFitError, match="one decision only"):
        CrossFitter(one).predict(everything, unit_folds(np.arange(len(pairs)), everything, np.random.default_rng(0)))
    with pytest.raises(CrossFitError, match="two folds"):
        fitter.predict(everything, np.zeros(len(pairs), int))


def test_budget_command_json_has_one_object_per_plan_kind_and_budget():
    result = CliRunner().invoke(main, ["metaeval", "budget", "--gold", str(CS / "gold.xml"), "--runs",
                                       str(CS / "runs"), "--judgments", str(CS / "judgments.tsv"), "--matcher",
                                       "learned", "--budgets", "50", "--trials", "3", "--format", "json"])
    assert result.exit_code == 0, result.output
    plans = json.loads(result.stdout)["plans"]
    cs = [p for p in plans if p["language_pair"] == "CS-CS"]
    assert {(p["plan"], p["matcher"]) for p in cs} == {("topics", "binarized"), ("topics", "learned"),
                                                       ("items", "binarized"), ("items", "learned"),
                                                       ("active", "learned"), ("shrunk", "learned")}
    for plan in cs:
        assert plan["budget"] == 50 and set(plan["means"]) == {"coverage", "width", "tau", "decided"}
        assert set(plan["differences"]) == {"coverage", "width", "tau", "decided"}
    text = CliRunner().invoke(main, ["metaeval", "budget", "--gold", str(CS / "gold.xml"), "--runs", str(CS / "runs"),
                                     "--judgments", str(CS / "judgments.tsv"), "--matcher", "learned", "--budgets",
                                     "30", "--trials", "2"]).output
    assert "items learned" in text and "active learned" in text and "active shrunk" in text and max(len(line) for line in text.splitlines()) <= 100
    assert "in one more wave, the model refitted on every judgment after it." in text


def test_budget_command_draws_the_active_plans_waves_asked_for():
    command = ["metaeval", "budget", "--gold", str(CS / "gold.xml"), "--runs", str(CS / "runs"), "--judgments",
               str(CS / "judgments.tsv"), "--matcher", "learned", "--budgets", "50", "--trials", "2"]
    text = CliRunner().invoke(main, [*command, "--waves", "3"]).output
    assert "in 2 more waves, the model refitted on every judgment after each." in text and "active learned" in text
    refused = CliRunner().invoke(main, [*command, "--waves", "1"])
    assert refused.exit_code == 2 and "--waves" in refused.output


def _sample_file(tmp_path, keep, name) -> str:
    lines = (CS / "judgments.tsv").read_text(encoding="utf-8").splitlines()
    path = tmp_path / name
    path.write_text("\n".join([lines[0]] + [x for x in lines[1:] if keep(x.split("\t"))]) + "\n", encoding="utf-8")
    return str(path)


def _planned_topics(runner, topics: int) -> set[str]:
    """Builds topic plan p on CS with seed 3 and returns the topics it plans."""
    assert runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--lang", "CS", "--topics", str(topics),
                                "--seed", "3"]).exit_code == 0
    status = json.loads(runner.invoke(main, ["pool", "plan", "p", "--format", "json"]).stdout)
    return {t["topic_id"] for s in status["by_stratum"] for t in s["topics"]}


def test_topic_plan_in_the_store_equals_the_calibrated_files(plan_campaign, tmp_path):
    runner = CliRunner()
    planned = _planned_topics(runner, 4)
    sample = _sample_file(tmp_path, lambda x: x[0] in planned, "sample.tsv")
    assert runner.invoke(main, ["import", sample]).exit_code == 0
    stored = runner.invoke(main, ["evaluate", "--store", "--plan", "p", "--matcher", "learned", "--format", "json"])
    assert stored.exit_code == 0, stored.output
    runs = [str(p) for p in sorted((CS / "runs").glob("*.xml"))]
    files = runner.invoke(main, ["evaluate", "--gold", str(CS / "gold.xml"), *[a for r in runs for a in ("--run", r)],
                                 "--matcher", "learned", "--calibrate", sample, "--format", "json"])
    assert files.exit_code == 0, files.output
    got_groups, want_groups = (json.loads(r.stdout)["language_pairs"] for r in (stored, files))
    assert [g["language_pair"] for g in got_groups] == [g["language_pair"] for g in want_groups]
    for got, want in zip(got_groups, want_groups):
        assert got["judged_topics"] == want["judged_topics"]
        for a, b in zip(got["runs"] + got["pairs"], want["runs"] + want["pairs"]):
            assert (a["estimate"], a["raw_low"], a["raw_high"], a["lambda"]) == pytest.approx(
                (b["estimate"], b["raw_low"], b["raw_high"], b["lambda"]), abs=1e-6)
    assert json.loads(stored.stdout)["matcher"] == "learned"


def test_item_plan_in_the_store_is_cross_fitted_on_the_planned_items(plan_campaign, tmp_path):
    from sepia.metaeval.item_estimates import Drawn, estimate_items
    from sepia.scoring.evaluate import Settings
    from sepia.matchers.learned import cross_fitted

    runner = CliRunner()
    assert runner.invoke(main, ["pool", "build", "p", "--kind", "cclqa", "--budget", "60%", "--unit", "items",
                                "--seed", "2"]).exit_code == 0
    status = json.loads(runner.invoke(main, ["pool", "plan", "p", "--format", "json"]).stdout)
    planned = {t["topic_id"]: {r: {label: Drawn(0, d["probability"]) for label, d in drawn.items()}
                               for r, drawn in t["samples"].items()} for s in status["by_stratum"] for t in s["topics"]}
    assert runner.invoke(main, ["import", str(CS / "judgments.tsv")]).exit_code == 0
    stored = runner.invoke(main, ["evaluate", "--store", "--plan", "p", "--matcher", "learned", "--format", "json"])
    assert stored.exit_code == 0, stored.output
    # each response's own planned nuggets' judgments only: the model learns from nothing else
    only = read_judgments(_sample_file(tmp_path, lambda x: x[3] in planned.get(x[0], {}).get(x[1], ()), "planned.tsv"))
    gold = read_file(str(CS / "gold.xml"), "gold")
    runs = [read_file(str(p), "cclqa") for p in sorted((CS / "runs").glob("*.xml"))]
    files = estimate_items(gold, runs, only, Settings(matcher="learned"), planned, 0.95,
                           cross_fitted(gold, runs, only, "item"), tuned=True)
    for group, expected in zip(json.loads(stored.stdout)["language_pairs"], files["language_pairs"]):
        for got, want in zip(group["runs"], expected["runs"]):
            assert (got["estimate"], got["raw_low"], got["raw_high"]) == pytest.approx(
                (want["estimate"], want["raw_low"], want["raw_high"]), abs=1e-6)
            assert 0 <= got["lambda"] <= 1


def test_a_plan_too_small_to_train_on_is_one_line(plan_campaign, tmp_path):
    runner = CliRunner()
    planned = _planned_topics(runner, 2)
    # every planned pair judged "no match": one decision only
    lines = (CS / "judgments.tsv").read_text(encoding="utf-8").splitlines()
    rows = [x.split("\t") for x in lines[1:]]
    path = tmp_path / "none.tsv"
    path.write_text("\n".join([lines[0]] + ["\t".join(r[:4] + ["0"] + r[5:]) for r in rows
                                            if r[0] in planned]) + "\n", encoding="utf-8")
    assert runner.invoke(main, ["import", str(path)]).exit_code == 0
    result = runner.invoke(main, ["evaluate", "--store", "--plan", "p", "--matcher", "learned"])
    assert result.exit_code == 1 and "one decision only" in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_web_estimates_offer_the_cross_fitted_learned_matcher(app, web_store):
    import re

    from sqlalchemy import select
    from test_web_plans import campaign
    from web_helpers import browser_for

    from sepia.store.models import Nugget, NuggetJudgment, PlanTopic, Response, RunTopic

    campaign(web_store)
    org = browser_for(app, "org")
    org.post("/pools/", {"name": "planned", "kind": "cclqa", "lang": "CS", "budget": "3", "seed": "2"})
    pool_id = re.findall(r'id="pool-(\d+)"', org.get("/pools/").get_data(as_text=True))[-1]
    assert 'option value="learned"' in org.get(f"/pools/{pool_id}/estimates").get_data(as_text=True)
    with web_store.transaction() as session:
        planned = set(session.scalars(select(PlanTopic.topic_id)))
        rows = session.execute(select(Response.id, Nugget.id).join(RunTopic)
                               .join(Nugget, Nugget.topic_id == RunTopic.topic_id)
                               .where(RunTopic.topic_id.in_(planned))).all()
        for response_id, nugget_id in rows:            # every planned pair "no match": nothing to learn from
            session.add(NuggetJudgment(response_id=response_id, nugget_id=nugget_id, assessor="as1", match=0.0))
    assert org.post(f"/pools/{pool_id}/estimates", {"matcher": "learned"}).status_code == 302
    page = org.get(f"/pools/{pool_id}/estimates").get_data(as_text=True)
    assert "learned matcher" in page and ("one decision only" in page or "a cross-fitted model needs" in page)
    assert org.post(f"/pools/{pool_id}/estimates", {"matcher": "exact; drop"}).status_code == 400


def test_an_automatic_assessor_is_a_feature_of_the_learned_model(tmp_path):
    common = ["metaeval", "budget", "--gold", str(CS / "gold.xml"), "--runs", str(CS / "runs"), "--judgments",
              str(CS / "judgments.tsv"), "--matcher", "learned", "--budgets", "60", "--trials", "4", "--format", "json"]
    alone = CliRunner().invoke(main, common)
    # the human judgments themselves as an "assessor": the model learns to follow them
    oracle = _sample_file(tmp_path, lambda x: x[5] == "cs-a1", "oracle.tsv")
    helped = CliRunner().invoke(main, [*common, "--auto-judgments", f"oracle={oracle}"])
    assert alone.exit_code == 0 and helped.exit_code == 0, helped.output
    assert json.loads(helped.stdout)["feature"] == "oracle"

    def correlation(result):
        return next(p["correlation"] for p in json.loads(result.stdout)["plans"]
                    if (p["language_pair"], p["plan"], p["matcher"]) == ("CS-CS", "items", "learned"))
    assert correlation(helped) > max(0.9, correlation(alone))
