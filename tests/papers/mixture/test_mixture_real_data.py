"""DA on real data: the critical-temperature measurement and the experiment at small size."""

import dataclasses

import matplotlib
import numpy as np
import pytest

from statmechlearn.experiments import evaluate_checks, get, run_experiment
from statmechlearn.papers.shared import measured_critical_temperature
from statmechlearn.theory.annealing import critical_temperature

matplotlib.use("Agg")


@pytest.mark.parametrize("seed", [0, 1])
def test_measured_critical_temperature_is_twice_the_top_eigenvalue(seed):
    # the bifurcation of two code vectors' fixed point, found on a temperature scan of the
    # estimator itself, sits at 2 lambda_max whatever the data's distribution (skewed here)
    rng = np.random.default_rng(seed)
    X = rng.exponential(size=(300, 5)) @ rng.standard_normal((5, 5))
    expected = critical_temperature(np.cov(X, rowvar=False, bias=True))
    assert measured_critical_temperature(X, rng) == pytest.approx(expected, rel=1e-3)


def test_measured_critical_temperature_does_not_use_the_predicted_value(monkeypatch):
    # nearly degenerate top eigenvalues, and every eigen-solver lying by a factor 3: the
    # measurement still lands on the true 2 lambda_max (the fixed point alone decides)
    rng = np.random.default_rng(2)
    X = rng.standard_normal((400, 4)) * np.array([1.0, 0.999, 0.5, 0.2])
    expected = critical_temperature(np.cov(X, rowvar=False, bias=True))
    eigvalsh, eigh = np.linalg.eigvalsh, np.linalg.eigh
    monkeypatch.setattr(np.linalg, "eigvalsh", lambda a, *k, **kw: 3.0 * eigvalsh(a, *k, **kw))
    monkeypatch.setattr(
        np.linalg, "eigh", lambda a, *k, **kw: (lambda w, v: (3.0 * w, v))(*eigh(a, *k, **kw))
    )
    assert measured_critical_temperature(X, rng) == pytest.approx(expected, rel=1e-3)


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
    for name in ("iris", "wine"):
        tc = next(r for q, r in results.items() if q.startswith(f"{name}: T_c measured"))
        assert tc.passed and tc.kind == "evidence", tc
    iris = next(r for q, r in results.items() if q.startswith("iris: mass-constrained"))
    assert abs(iris.simulation) < 1e-9
    worst = next(r for q, r in results.items() if q.startswith("iris and wine: unconstrained"))
    assert worst.passed and worst.simulation <= 1e-9, worst
