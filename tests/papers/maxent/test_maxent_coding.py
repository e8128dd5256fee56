"""The coding figure (capacity, rate–distortion, separation, histogram spreading) at small size."""

import dataclasses
import math

import matplotlib
import numpy as np
import pytest

from statmechlearn.experiments import evaluate_checks, get, run_experiment
from statmechlearn.papers.maxent.coding import binary_entropy, capacity_closed_form, planted_bumps

matplotlib.use("Agg")


def test_closed_forms_at_their_ends():
    for name in ("BSC", "BEC", "Z"):
        assert float(capacity_closed_form(name, 0.0)) == pytest.approx(1.0, abs=1e-15)
    assert float(capacity_closed_form("BSC", 0.5)) == pytest.approx(0.0, abs=1e-15)
    assert float(capacity_closed_form("Z", 0.5)) == pytest.approx(math.log2(1.25), rel=1e-14)
    assert float(binary_entropy(0.0)) == 0.0 and float(binary_entropy(0.5)) == 1.0
    with pytest.raises(ValueError, match="channel"):
        capacity_closed_form("AWGN", 0.1)


def test_planted_bumps_are_sparse_histograms_of_three_clusters():
    X, labels, bumps = planted_bumps(np.random.default_rng(0), 4, 5)
    assert X.shape == (12, 30) and np.all(X.sum(axis=1) == 5)
    assert np.bincount(labels).tolist() == [4, 4, 4]
    np.testing.assert_allclose(bumps.sum(axis=1), 1.0)
    # neighbouring bumps three bins apart on an ordered axis
    np.testing.assert_array_equal(np.diff(np.argmax(bumps, axis=1)), [3, 3])


def test_figure_runs_and_passes_its_checks(tmp_path):
    base = get("maxent-coding")
    quick = dict(base.settings["quick"], n_seeds=3, n_per_cluster=12)
    spec = dataclasses.replace(
        base, name="maxent-coding-small", settings={"quick": quick, "full": quick}
    )
    ds = run_experiment(spec, "quick", out=tmp_path, progress=False).dataset
    spec.plot(ds)
    matplotlib.pyplot.close("all")
    results = evaluate_checks(spec, ds)
    evidence = [r for r in results if r.kind == "evidence"]
    assert len(evidence) >= 5 and all(r.passed for r in evidence)
    assert all(r.passed is not False for r in results)
