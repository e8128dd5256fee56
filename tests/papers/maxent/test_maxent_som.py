"""maxent-som: the exact fixed points it checks against, and the figure at small size."""

import dataclasses
import math

import matplotlib
import numpy as np
import pytest
from scipy import integrate

from statmechlearn.experiments import evaluate_checks, get, run_experiment
from statmechlearn.papers.maxent.som import (
    _chain_quantization_error,
    _corner_integral,
    chain_fixed_point,
    square_quantization_error,
)

matplotlib.use("Agg")


def test_corner_integral_is_the_integral_of_the_distance():
    for a, b in ((1.0, 1.0), (0.3, 0.7), (2.0, 0.1)):
        ref, _ = integrate.dblquad(lambda y, x: math.hypot(x, y), 0, a, 0, b, epsabs=1e-12)
        assert _corner_integral(a, b) == pytest.approx(ref, rel=1e-9)
    # mean distance from a corner of the unit square (a classical constant)
    assert _corner_integral(1.0, 1.0) == pytest.approx(
        (math.sqrt(2) + math.log(1 + math.sqrt(2))) / 3, rel=1e-14
    )


def test_equal_cells_give_the_optimal_quantisers_errors():
    k = 7
    y = (np.arange(k) + 0.5) / k
    assert _chain_quantization_error(y) == pytest.approx(1 / (4 * k), rel=1e-14)
    # a side-a square cell about its centre: a (sqrt 2 + ln(1 + sqrt 2)) / 6
    side = 5
    u = (np.arange(side) + 0.5) / side
    expected = (math.sqrt(2) + math.log(1 + math.sqrt(2))) / 6 / side
    assert square_quantization_error(u) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("rule", ["KohonenSOM", "TopologicalVQ"])
def test_fixed_points(rule):
    # a vanishing neighbourhood is plain k-means on the uniform density: equal cells
    k = 6
    np.testing.assert_allclose(
        chain_fixed_point(k, 0.05, rule), (np.arange(k) + 0.5) / k, rtol=0, atol=1e-12
    )
    # a neighbourhood pulls the end units inwards, symmetrically
    y = chain_fixed_point(10, 1.0, rule)
    assert y[0] > 0.05 and np.all(np.diff(y) > 0)
    np.testing.assert_allclose(y, 1.0 - y[::-1], rtol=0, atol=1e-12)


def test_fixed_point_is_the_mean_of_its_cells_under_the_neighbourhood():
    """Monte Carlo on the density: the batch map leaves the exact fixed point in place."""
    k, s = 8, 1.0
    y = chain_fixed_point(k, s, "KohonenSOM")
    x = np.random.default_rng(0).uniform(0, 1, 400_000)
    c = np.argmin(np.abs(x[:, None] - y[None]), axis=1)
    g = np.arange(k, dtype=float)
    H = np.exp(-((g[:, None] - g[None]) ** 2) / (2 * s * s))[c]
    moved = (H * x[:, None]).sum(0) / H.sum(0)
    # Monte Carlo error of a weighted mean over ~n/k points of spread 1/sqrt(12): ~1e-3 / k
    np.testing.assert_allclose(moved, y, rtol=0, atol=2e-3)


def test_figure_runs_and_passes_its_checks(tmp_path):
    base = get("maxent-som")
    small = dict(
        base.settings["quick"], n_seeds=4, n_chain=500, n_square=400, n_zero=1500, n_test=5000
    )
    spec = dataclasses.replace(
        base, name="maxent-som-small", settings={"quick": small, "full": small}
    )
    ds = run_experiment(spec, "quick", out=tmp_path, progress=False).dataset
    spec.plot(ds)
    matplotlib.pyplot.close("all")
    results = evaluate_checks(spec, ds)
    evidence = [r for r in results if r.kind == "evidence"]
    assert evidence and all(r.passed for r in evidence), [
        (r.quantity, r.observed, r.expected) for r in evidence if not r.passed
    ]
