"""Least-angle, planted-partition and constant-shift experiments: helpers and small runs."""

import dataclasses
import itertools

import matplotlib
import numpy as np
import pytest

from statmechlearn.cluster import least_angle_cost
from statmechlearn.experiments import evaluate_checks, get, run_experiment
from statmechlearn.papers.maxent.least_angle import _least_angle_enumerated, planted_directions
from statmechlearn.papers.maxent.planted_partition import stochastic_block_model

matplotlib.use("Agg")


def test_planted_directions_are_unit_vectors_around_a_simplex():
    rng = np.random.default_rng(0)
    E, y = planted_directions(rng, [50, 30, 20], 0.0, n_features=4)
    np.testing.assert_allclose(np.linalg.norm(E, axis=1), 1.0, rtol=1e-14)
    assert np.bincount(y).tolist() == [50, 30, 20]
    means = np.array([E[y == k][0] for k in range(3)])
    # without noise every object is its direction; the directions meet at cos = -1/(k-1)
    np.testing.assert_allclose(means @ means.T, 1.5 * np.eye(3) - 0.5, atol=1e-14)


@pytest.mark.parametrize(
    ("kwargs", "word"),
    [({"noise": -1.0}, "noise"), ({"noise": np.nan}, "noise"), ({"n_features": 2}, "n_features")],
)
def test_planted_directions_rejects_bad_arguments(kwargs, word):
    args = {"sizes": [5, 5, 5], "noise": 0.1} | kwargs
    with pytest.raises(ValueError, match=word):
        planted_directions(np.random.default_rng(0), **args)


def test_enumerated_minimum_is_the_least_angle_cost_of_the_best_labeling():
    rng = np.random.default_rng(1)
    E, _ = planted_directions(rng, [2, 2, 2], 0.8)
    costs = [least_angle_cost(E, np.array(lab)) for lab in itertools.product(range(3), repeat=6)]
    assert _least_angle_enumerated(E, 3) == pytest.approx(min(costs), rel=1e-13)


def test_block_model_realises_its_signal_to_noise_ratio():
    """Edges within and between blocks, counted over graphs, give back a and b (SNR's inputs)."""
    rng = np.random.default_rng(2)
    n, c, snr = 200, 20.0, 4.0
    gap = np.sqrt(snr * 4 * c)
    a, b = c + gap / 2, c - gap / 2
    within, between = [], []
    for _ in range(20):
        A, y = stochastic_block_model(rng, (100, 100), c, snr)
        assert np.array_equal(A, A.T) and not A.diagonal().any()
        same = y[:, None] == y[None, :]
        within.append(A[same].sum() / (same.sum() - n))
        between.append(A[~same].mean())
    # binomial counts: relative SE ~ 1 / sqrt(edges) ~ 0.5 %
    assert np.mean(within) * n == pytest.approx(a, rel=0.03)
    assert np.mean(between) * n == pytest.approx(b, rel=0.03)


@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"sizes": (10,)}, "sizes"),
        ({"mean_degree": 0.0}, "mean_degree"),
        ({"snr": -1.0}, "snr"),
        ({"snr": 1e6}, "snr"),
    ],
)
def test_block_model_rejects_bad_arguments(kwargs, word):
    args = {"sizes": (10, 10), "mean_degree": 4.0, "snr": 1.0} | kwargs
    with pytest.raises(ValueError, match=word):
        stochastic_block_model(np.random.default_rng(0), **args)


_SMALL = {
    "maxent-least-angle": ({"noise": (0.2, 0.8)}, {"n_seeds": 2}),
    "maxent-planted-partition": (
        {"balance": ("equal", "unequal"), "snr": (0.25, 16.0)},
        {"n_seeds": 3, "seed_plan": {"equal@0.25": 3, "equal@16": 2, "unequal@16": 3}},
    ),
    "maxent-constant-shift": ({"noise": (0.0, 0.5)}, {"n_seeds": 2}),
}


@pytest.mark.parametrize("name", list(_SMALL))
def test_figures_run_and_pass_their_checks(tmp_path, name):
    base = get(name)
    grid, changes = _SMALL[name]
    quick = dict(base.settings["quick"], **changes)
    spec = dataclasses.replace(
        base,
        name=f"{name}-small",
        grid={k: grid.get(k, v) for k, v in base.grid.items()},
        settings={"quick": quick, "full": quick},
    )
    ds = run_experiment(spec, "quick", out=tmp_path, progress=False).dataset
    spec.plot(ds)
    matplotlib.pyplot.close("all")
    results = evaluate_checks(spec, ds)
    evidence = [r for r in results if r.kind == "evidence"]
    assert evidence and all(r.passed for r in evidence), [
        (r.quantity, r.observed) for r in evidence if not r.passed
    ]
