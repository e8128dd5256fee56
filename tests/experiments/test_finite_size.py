"""The finite-size ladder: seeds per rung, the a + b N^-p fit, its checks and the runner."""

import math

import numpy as np
import pytest

from statmechlearn.experiments import FigureSpec, run_experiment
from statmechlearn.experiments._finite_size import (
    FORMS,
    extrapolate,
    extrapolate_dataset,
    ladder_checks,
    seeds_for,
)

LADDER = (50, 100, 200, 400, 800)


def test_seeds_for_keeps_the_standard_error_comparable():
    assert [seeds_for(n, n_seeds=8, n_ref=800) for n in LADDER] == [8, 8, 8, 8, 8]
    assert [seeds_for(n, n_seeds=64, n_ref=50) for n in LADDER] == [64, 32, 16, 8, 4]
    assert seeds_for(10_000, n_seeds=4, n_ref=50) == 2
    with pytest.raises(ValueError, match="n_seeds >= 2"):
        seeds_for(50, n_seeds=1, n_ref=50)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_symmetric_runs_give_the_exact_intercept(form):
    n = np.array(LADDER, dtype=float)
    exact = 0.7 - 3.0 * n ** -FORMS[form]
    delta = np.array([0.01, -0.01, 0.02, -0.02])
    ext = extrapolate(n, exact[:, None] + delta[None, :], form=form)
    assert ext.value == pytest.approx(0.7, abs=1e-12)
    assert ext.slope == pytest.approx(-3.0, abs=1e-9)
    assert ext.chi2 == pytest.approx(0.0, abs=1e-12) and ext.dof == 3


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_intercept_is_unbiased_with_honest_errors(seed):
    # a + b/N with noise of variance 1/N and seeds_for(): z over many ladders ~ N(0, 1)
    rng = np.random.default_rng(seed)
    n = np.array(LADDER)
    z, p = [], []
    for _ in range(300):
        runs = [seeds_for(k, n_seeds=40, n_ref=50) for k in n]
        values = np.full((n.size, max(runs)), np.nan)
        for i, (k, r) in enumerate(zip(n, runs, strict=True)):
            values[i, :r] = 0.5 + 2.0 / k + rng.standard_normal(r) / math.sqrt(k)
        ext = extrapolate(n, values)
        z.append((ext.value - 0.5) / ext.se)
        p.append(ext.p_value)
    z = np.array(z)
    # 300 ladders: the mean of z is within 4/sqrt(300) of 0; the Birge inflation and
    # the estimated errors keep the spread near (not above) one
    assert abs(z.mean()) < 4 / math.sqrt(300)
    assert 0.8 < z.std() < 1.25
    assert 0.35 < np.mean(p) < 0.65


@pytest.mark.parametrize("seed", [0, 1])
def test_a_wrong_form_is_rejected(seed):
    rng = np.random.default_rng(seed)
    n = np.array(LADDER, dtype=float)
    values = 0.5 + 5.0 / np.sqrt(n)[:, None] + 1e-3 * rng.standard_normal((n.size, 50))
    assert extrapolate(n, values, form="1/N").p_value < 1e-6
    assert extrapolate(n, values, form="1/sqrt(N)").p_value > 1e-4


def test_too_few_rungs_is_an_error():
    with pytest.raises(ValueError, match="two or more rungs"):
        extrapolate([50, 100], [[1.0, np.nan], [1.0, 2.0]])
    with pytest.raises(ValueError, match="shape"):
        extrapolate([50, 100, 200], np.ones((2, 3)))
    with pytest.raises(ValueError, match="form must be one of"):
        extrapolate([50, 100, 200], np.ones((3, 3)), form="1/N^2")


def _ladder_simulation(point, settings, rng):
    n = point["n_features"]
    return {"sim_value": 0.25 + 1.5 / n + rng.standard_normal() / math.sqrt(n)}


def _ladder_seeds(point, settings):
    return seeds_for(point["n_features"], n_seeds=settings["n_seeds"], n_ref=LADDER[0])


def _ladder_spec(theory):
    return FigureSpec(
        name="test-ladder",
        paper="test",
        citation="",
        figure="",
        caption="",
        grid={"n_features": LADDER},
        settings={"quick": {"n_seeds": 48}, "full": {"n_seeds": 48}},
        outputs={"sim_value": ()},
        coords=lambda s: {},
        plot=lambda ds, ax=None: ax,
        checks=lambda s: ladder_checks("value", "sim_value", theory=theory),
        simulation=_ladder_simulation,
        seeds=_ladder_seeds,
    )


def test_runner_runs_each_rungs_seeds_and_the_checks_can_fail(tmp_path):
    spec = _ladder_spec(0.25)
    summary = run_experiment(spec, "quick", out=tmp_path, progress=False)
    done = summary.dataset["sim_done"].sum("seed").values.tolist()
    assert done == [48, 24, 12, 6, 3]
    assert summary.n_cells == sum(done) and summary.n_computed == sum(done)
    ext = extrapolate_dataset(summary.dataset, "sim_value")
    assert ext.n_runs.tolist() == done
    right, fit, slope = (c.evaluate(summary.dataset) for c in spec.checks({}))
    assert right.passed and fit.passed and slope.kind == "reported"
    # the same ladder against a theory off by 20 standard errors of the intercept
    wrong = ladder_checks("value", "sim_value", theory=0.25 + 20 * ext.se)[0]
    assert wrong.evaluate(summary.dataset).passed is False
    again = run_experiment(spec, "quick", out=tmp_path, progress=False)
    assert again.n_computed == 0 and again.n_cached == sum(done)


def test_seeds_out_of_range_is_an_error(tmp_path):
    import dataclasses

    spec = dataclasses.replace(_ladder_spec(0.25), seeds=lambda p, s: 99)
    with pytest.raises(ValueError, match="seeds\\(\\) gave 99"):
        run_experiment(spec, "quick", out=tmp_path, progress=False)
