"""Entropy-constrained and parametric distributional clustering: references and small figures."""

import dataclasses
import itertools

import matplotlib
import numpy as np
import pytest

from statmechlearn.experiments import evaluate_checks, get, run_experiment
from statmechlearn.papers.maxent.phase import (
    _one_small_cell_gain,
    _staircase,
    _transitions,
    optimal_partition,
)

matplotlib.use("Agg")


def test_optimal_partition_matches_brute_force():
    """The dynamic programme against every partition of 9 points into intervals."""
    rng = np.random.default_rng(3)
    x = np.sort(rng.uniform(size=9))
    lam = 0.01
    best = np.inf
    for mask in range(2 ** (x.size - 1)):
        cuts = [0] + [i + 1 for i in range(x.size - 1) if mask >> i & 1] + [x.size]
        cost = 0.0
        for a, b in itertools.pairwise(cuts):
            seg = x[a:b]
            cost += np.sum((seg - seg.mean()) ** 2) - lam * seg.size * np.log(seg.size / x.size)
        best = min(best, cost / x.size)
    cost, sizes = optimal_partition(x, lam)
    assert cost == pytest.approx(best, rel=1e-12)
    assert sizes.sum() == x.size


def test_optimal_partition_validates():
    with pytest.raises(ValueError, match="x"):
        optimal_partition([], 0.1)
    with pytest.raises(ValueError, match="entropy_weight"):
        optimal_partition([0.0, 1.0], -1.0)


def test_staircase_transitions_are_the_crossings():
    lam_k = _transitions(1.0, 6)
    below, _ = _staircase(lam_k * (1 - 1e-9), 1.0)
    above, _ = _staircase(lam_k * (1 + 1e-9), 1.0)
    np.testing.assert_array_equal(below, np.arange(2, 8))
    np.testing.assert_array_equal(above, np.arange(1, 7))


def test_equal_cells_beat_one_smaller_cell():
    assert _one_small_cell_gain(np.geomspace(1e-3, 0.3, 50), 1.0) <= 1e-12


@pytest.mark.parametrize("name", ["maxent-entropy-constrained", "maxent-parametric"])
def test_figures_run_and_pass_their_checks(tmp_path, name):
    base = get(name)
    quick = dict(base.settings["quick"])
    if name == "maxent-entropy-constrained":
        quick.update(n_lam=6, n_points=60, lam_min=8e-3)
    spec = dataclasses.replace(base, name=f"{name}-small", settings={"quick": quick, "full": quick})
    ds = run_experiment(spec, "quick", out=tmp_path, progress=False).dataset
    spec.plot(ds)
    matplotlib.pyplot.close("all")
    results = evaluate_checks(spec, ds)
    evidence = [r for r in results if r.kind == "evidence"]
    assert evidence and all(r.passed for r in results if r.passed is not None)
