"""Randomised Tukey HSD against the exact permutation distribution, enumerated by brute force."""
from itertools import permutations, product

import numpy as np
import pytest

from sepia.metaeval.tukey import randomised_tukey_hsd


def exact_pvalues(matrix):
    """Every combination of row permutations, counted one by one."""
    topics, runs = matrix.shape
    means = matrix.mean(axis=0)
    rows = [[row[list(p)] for p in permutations(range(runs))] for row in matrix]
    maxima = []
    for choice in product(*rows):
        m = np.mean(choice, axis=0)
        maxima.append(m.max() - m.min())
    maxima = np.array(maxima)
    return {(i, j): float(np.mean(maxima >= abs(means[i] - means[j]) - 1e-12))
            for i in range(runs) for j in range(i + 1, runs)}


def test_randomised_pvalues_approach_the_exact_ones():
    rng = np.random.default_rng(3)
    matrix = np.round(rng.random((4, 3)) + np.array([0.5, 0.2, 0.0]), 2)
    names = ["A", "B", "C"]
    exact = exact_pvalues(matrix)
    trials = 20000
    result = randomised_tukey_hsd({n: matrix[:, i] for i, n in enumerate(names)}, trials=trials, seed=1)
    order = {n: names.index(n) for n in result.runs}
    assert len(result.pairs) == 3
    for pair in result.pairs:
        i, j = sorted((order[pair.a], order[pair.b]))
        p = exact[i, j]
        assert pair.pvalue == pytest.approx(p, abs=4 * np.sqrt(p * (1 - p) / trials) + 2 / trials), (pair, p)
        assert pair.difference == pytest.approx(matrix[:, order[pair.a]].mean() - matrix[:, order[pair.b]].mean())
    assert {p for p in exact.values()} != {1.0}  # the data do separate some pair


def test_pvalue_counts_the_observed_arrangement():
    # identical runs: every trial reaches the observed difference of 0, p = (n + 1) / (n + 1)
    same = randomised_tukey_hsd({"A": [0.1, 0.5], "B": [0.1, 0.5]}, trials=50, seed=0)
    assert same.pairs[0].pvalue == 1.0
    # one topic, two runs: the swap reaches the observed difference half the time; never below 1 / (n + 1)
    far = randomised_tukey_hsd({"A": [1.0] * 8, "B": [0.0] * 8}, trials=99, seed=0)
    assert far.pairs[0].pvalue >= 1 / 100 and far.runs == ["A", "B"]
    with pytest.raises(ValueError):
        randomised_tukey_hsd({"A": [1.0]})


def test_same_seed_same_pvalues():
    scores = {"A": [0.3, 0.6, 0.9, 0.2], "B": [0.1, 0.5, 0.4, 0.2], "C": [0.2, 0.2, 0.3, 0.1]}
    assert randomised_tukey_hsd(scores, 500, seed=4) == randomised_tukey_hsd(scores, 500, seed=4)


def test_command_tests_each_language_pair_and_plots(tmp_path):
    import json

    from click.testing import CliRunner

    from sepia.cli import main
    from sepia.resources import resource_dir

    cs = resource_dir("corpora") / "cs"
    result = CliRunner().invoke(main, ["metaeval", "tukey", "--gold", str(cs / "gold.xml"), "--run", str(cs / "runs"),
                                       "--trials", "300", "--seed", "2", "--format", "json",
                                       "--plot", str(tmp_path / "p.png")])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)["language_pairs"]
    assert set(data) == {"CS-CS"}  # EN-CS has one run only
    evaluated = json.loads(CliRunner().invoke(main, ["evaluate", "--gold", str(cs / "gold.xml"), str(cs / "runs"),
                                                     "--format", "json"]).stdout)["runs"]
    f = {r["run_id"]: {t["topic_id"]: t["f"] for t in r["topics"]} for r in evaluated if "-CS-CS-" in r["run_id"]}
    expected = randomised_tukey_hsd({r: [v[t] for t in sorted(v)] for r, v in f.items()}, 300, seed=2)
    assert data["CS-CS"]["pairs"] == [p.as_dict() for p in expected.pairs]
    assert (tmp_path / "p.png").stat().st_size > 1000
