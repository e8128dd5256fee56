"""Sampling and mean-field experiments: their helpers, and the cheap figures at small size."""

import dataclasses

import matplotlib
import numpy as np
import pytest

from statmechlearn.experiments import evaluate_checks, get, run_experiment
from statmechlearn.papers.sampling.mean_field import _regions, horse_image

matplotlib.use("Agg")


def test_horse_and_regions():
    pytest.importorskip("skimage")
    horse = horse_image()
    assert horse.shape == (328, 400) and horse.dtype == bool
    assert 0.2 < horse.mean() < 0.5  # the horse is the smaller, True part
    truth = _regions()
    assert truth.shape == (164, 200)
    counts = np.bincount(truth.ravel())
    assert counts.size == 3 and counts.min() > 2000


@pytest.mark.parametrize("name", ["sampling-exactness", "sampling-sa-vs-da"])
def test_figures_run_and_pass_their_checks(tmp_path, name):
    base = get(name)
    quick = dict(base.settings["quick"], n_seeds=3)
    spec = dataclasses.replace(base, name=f"{name}-small", settings={"quick": quick, "full": quick})
    ds = run_experiment(spec, "quick", out=tmp_path, progress=False).dataset
    spec.plot(ds)
    matplotlib.pyplot.close("all")
    results = evaluate_checks(spec, ds)
    assert results and all(r.passed for r in results if r.kind == "evidence")
