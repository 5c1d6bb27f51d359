"""`sepia metaeval simulate` (issue 36, item 1): the discretisation simulation against closed forms
of the bivariate normal, an exact computation from its cell probabilities, k -> infinity, and the
command's outputs."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner
from scipy.stats import multivariate_normal, norm

from sepia.cli import main
from sepia.metaeval.correlation import MEASURES
from sepia.metaeval.simulate import CONTINUOUS, Simulation, discretise, latent_scores, simulate

# Independent cells, many of them: the global measures are then close to their population values.
BIG = dict(system_share=0.0, input_share=0.0, systems=20, inputs=500, replicates=6)
TOLERANCE = 0.015  # about four standard errors of a mean over 6 x 10,000 cells


def test_discretise_cuts_at_the_normal_quantiles():
    assert discretise(np.array([-0.1, 0.1]), 2).tolist() == [0.0, 1.0]
    t = norm.ppf(1 / 3)  # -0.4307: three equally likely levels
    assert discretise(np.array([t - 1e-6, t + 1e-6, -t - 1e-6, -t + 1e-6]), 3).tolist() == [0.0, 0.5, 0.5, 1.0]
    levels = discretise(np.random.default_rng(1).standard_normal(100_000), 5)
    assert sorted(set(levels.tolist())) == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert np.allclose(np.bincount((levels * 4).astype(int)) / 100_000, 0.2, atol=0.005)


def test_continuous_scores_are_uniform():
    from sepia.metaeval.simulate import continuous

    scores = continuous(np.random.default_rng(2).standard_normal(100_000))
    assert scores.min() >= 0 and scores.max() <= 1
    assert np.allclose(np.histogram(scores, bins=4, range=(0, 1))[0] / 100_000, 0.25, atol=0.005)


def test_latent_scores_correlate_rho_in_every_cell_and_part():
    settings = Simulation(rho=0.6, systems=30, inputs=40, replicates=50, seed=3)
    human, metric = latent_scores(settings, np.random.default_rng(3))
    assert human.shape == metric.shape == (50, 30, 40)
    assert human.std() == pytest.approx(1, abs=0.02) and metric.std() == pytest.approx(1, abs=0.02)
    assert np.corrcoef(human.ravel(), metric.ravel())[0, 1] == pytest.approx(0.6, abs=0.02)


@pytest.mark.parametrize("rho", [0.3, 0.6])
def test_continuous_scores_give_the_population_values(rho):
    """Phi(H) and Phi(M) are uniform: their Pearson is the latents' Spearman, (6/pi) arcsin(rho/2)."""
    result = simulate(Simulation(rho=rho, levels=(2,), **BIG))
    assert result.mean(CONTINUOUS, "global/pearson") == pytest.approx(6 / math.pi * math.asin(rho / 2), abs=TOLERANCE)
    assert result.mean(CONTINUOUS, "global/spearman") == pytest.approx(6 / math.pi * math.asin(rho / 2), abs=TOLERANCE)
    assert result.mean(CONTINUOUS, "global/tau_b") == pytest.approx(2 / math.pi * math.asin(rho), abs=TOLERANCE)


def test_a_median_split_on_both_sides_gives_the_phi_coefficient():
    rho = 0.6
    phi = 2 / math.pi * math.asin(rho)  # P(both above the median) = 1/4 + arcsin(rho) / (2 pi)
    result = simulate(Simulation(rho=rho, levels=(2,), **BIG))
    for coefficient in ("pearson", "spearman", "tau_b"):  # on a 2 x 2 table all three are phi
        assert result.mean(2, f"global/{coefficient}") == pytest.approx(phi, abs=TOLERANCE)


def test_a_median_split_of_the_human_side_only():
    """corr(Phi(X), [Z > 0]): E[Phi(X) | Z > 0] = 2 P(X - W > 0, Z > 0) with W independent, and
    X - W correlates rho / sqrt(2) with Z; so cov = arcsin(rho / sqrt 2) / (2 pi), over sds 1/sqrt(12), 1/2."""
    rho = 0.6
    result = simulate(Simulation(rho=rho, levels=(2,), side="human", **BIG))
    expected = math.sqrt(12) * math.asin(rho / math.sqrt(2)) / math.pi
    assert result.mean(2, "global/pearson") == pytest.approx(expected, abs=TOLERANCE)


def test_three_levels_match_the_exact_pearson_of_the_discretised_normal():
    """A second computation: Pearson of the 3 x 3 table whose cell probabilities are bivariate normal
    rectangle probabilities."""
    rho, k = 0.6, 3
    cuts = [-np.inf, *norm.ppf(np.arange(1, k) / k), np.inf]
    cdf = multivariate_normal(mean=[0, 0], cov=[[1, rho], [rho, 1]]).cdf

    def box(a, b, c, d):  # P(a < X <= b, c < Y <= d), infinities clipped for the CDF
        clip = lambda v: np.clip(v, -12, 12)  # noqa: E731
        return cdf([clip(b), clip(d)]) - cdf([clip(a), clip(d)]) - cdf([clip(b), clip(c)]) + cdf([clip(a), clip(c)])

    p = np.array([[box(cuts[i], cuts[i + 1], cuts[j], cuts[j + 1]) for j in range(k)] for i in range(k)])
    values = np.arange(k) / (k - 1)
    mean = values @ p.sum(1)
    covariance = values @ p @ values - mean * mean
    variance = values ** 2 @ p.sum(1) - mean * mean
    exact = covariance / variance
    assert 0.45 < exact < rho  # three levels keep most of it
    result = simulate(Simulation(rho=rho, levels=(3,), **BIG))
    assert result.mean(3, "global/pearson") == pytest.approx(exact, abs=TOLERANCE)


def test_many_levels_recover_the_continuous_values_of_every_measure():
    settings = Simulation(rho=0.5, systems=8, inputs=30, levels=(2, 1_000_000), replicates=20, seed=4)
    result = simulate(settings)
    for level, coefficient in MEASURES:
        measure = f"{level}/{coefficient}"
        assert result.mean(1_000_000, measure) == pytest.approx(result.mean(CONTINUOUS, measure), abs=1e-3), measure
    # and a coarse scale does change them (the simulation is not blind to k)
    assert result.mean(2, "global/pearson") < result.mean(CONTINUOUS, "global/pearson") - 0.05


def test_the_same_seed_gives_the_same_numbers_and_bad_settings_are_refused():
    settings = Simulation(systems=5, inputs=10, replicates=4, levels=(3,), seed=9)
    assert simulate(settings).values == simulate(settings).values
    with pytest.raises(ValueError, match="share"):
        simulate(Simulation(system_share=0.7, input_share=0.5))
    with pytest.raises(ValueError, match="at least 2"):
        simulate(Simulation(levels=(1, 3)))


def test_cli_writes_table_tsv_json_and_chart(tmp_path):
    runner = CliRunner()
    base = ["metaeval", "simulate", "--systems", "5", "--inputs", "12", "--replicates", "5", "--levels", "2,5"]
    result = runner.invoke(main, [*base, "--plot", str(tmp_path / "sim")])
    assert result.exit_code == 0, result.output
    assert "MEASURE" in result.output and "continuous" in result.output and "change at k=2" in result.output
    assert sum(line.startswith(("system/", "input/", "item/", "global/")) for line in result.output.splitlines()) == 16
    assert f"wrote {tmp_path / 'sim.png'}" in result.output
    assert (tmp_path / "sim.png").stat().st_size > 0 and (tmp_path / "sim.svg").exists()
    tsv = runner.invoke(main, [*base, "--format", "tsv"]).stdout
    assert tsv.splitlines()[0] == "measure\tlevels\tmean\tsd" and len(tsv.splitlines()) == 1 + 3 * 16
    data = json.loads(runner.invoke(main, [*base, "--format", "json"]).stdout)
    assert data["settings"]["levels"] == [2, 5] and set(data["values"]) == {"2", "5", "continuous"}
    table = simulate(Simulation(systems=5, inputs=12, replicates=5, levels=(2, 5)))
    assert data["values"]["2"]["global/pearson"]["mean"] == round(table.mean(2, "global/pearson"), 4)
    bad = runner.invoke(main, ["metaeval", "simulate", "--levels", "1,x"])
    assert bad.exit_code == 2 and "level counts" in bad.output
