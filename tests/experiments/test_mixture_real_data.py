"""DA on real data: the critical-temperature measurement and the experiment at small size."""

import dataclasses

import matplotlib
import numpy as np
import pytest

from statmechlearn.experiments import evaluate_checks, get, run_experiment
from statmechlearn.experiments.mixture_real_data import measured_critical_temperature
from statmechlearn.theory.annealing import critical_temperature

matplotlib.use("Agg")


@pytest.mark.parametrize("seed", [0, 1])
def test_measured_critical_temperature_is_twice_the_top_eigenvalue(seed):
    # the growth of a small split under the DA update is (2/T) lambda_max to
    # first order, whatever the data's distribution (here skewed, correlated)
    rng = np.random.default_rng(seed)
    X = rng.exponential(size=(400, 6)) @ rng.standard_normal((6, 6))
    expected = critical_temperature(np.cov(X, rowvar=False, bias=True))
    assert measured_critical_temperature(X, rng) == pytest.approx(expected, rel=1e-6)


def test_measured_critical_temperature_needs_the_power_iteration():
    # the measurement uses only the update, no eigen-solver: one pass from a
    # random direction is visibly off when the top two eigenvalues are close
    rng = np.random.default_rng(2)
    X = rng.standard_normal((500, 4)) * np.array([1.0, 0.999, 0.5, 0.2])
    expected = critical_temperature(np.cov(X, rowvar=False, bias=True))
    rough = measured_critical_temperature(X, np.random.default_rng(0), n_passes=1)
    assert abs(rough / expected - 1) > 1e-6


def test_real_data_experiment_runs_and_checks(tmp_path):
    base = get("mixture-real-data")
    quick = dict(base.settings["quick"], n_seeds=1)
    spec = dataclasses.replace(
        base,
        name="mixture-real-data-small",
        grid={"dataset": ("iris", "wine")},
        settings={"quick": quick, "full": quick},
    )
    ds = run_experiment(spec, "quick", out=tmp_path, progress=False).dataset
    spec.plot(ds)
    matplotlib.pyplot.close("all")
    results = {r.quantity: r for r in evaluate_checks(spec, ds)}
    assert all(r.passed for r in results.values() if not r.reported)
    iris = next(r for q, r in results.items() if q.startswith("iris: mass-constrained"))
    assert abs(iris.simulation) < 1e-9
