"""Model-selection experiments: the settings, and the gap table at small size."""

import dataclasses

import matplotlib
import numpy as np
import pytest

from statmechlearn.experiments import evaluate_checks, get, run_experiment
from statmechlearn.experiments.model_selection import _TRUE_K, simulate_setting

matplotlib.use("Agg")


@pytest.mark.parametrize("name", sorted(_TRUE_K))
def test_settings_have_the_documented_shapes(name):
    X = simulate_setting(name, np.random.default_rng(0))
    expected = {"null, 10-D uniform": (200, 10), "three clusters, 2-D": (100, 2)}
    assert X.shape == expected.get(name, (200, 2))
    assert np.all(np.isfinite(X))


def test_gap_table_runs_and_passes(tmp_path):
    base = get("selection-gap")
    quick = dict(base.settings["quick"], n_seeds=2, n_references=10)
    spec = dataclasses.replace(
        base, name="selection-gap-small", settings={"quick": quick, "full": quick}
    )
    ds = run_experiment(spec, "quick", out=tmp_path, progress=False).dataset
    spec.plot(ds)
    matplotlib.pyplot.close("all")
    results = evaluate_checks(spec, ds)
    assert results and all(r.passed for r in results if r.kind == "evidence")
