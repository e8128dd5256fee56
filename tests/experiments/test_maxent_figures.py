"""Maximum-entropy clustering experiments: their helpers, and the figures at small size."""

import dataclasses

import matplotlib
import numpy as np
import pytest

from statmechlearn.experiments import evaluate_checks, get, run_experiment
from statmechlearn.experiments.maxent_clustering import (
    _accuracy,
    _step_on_grid,
    texture_mosaic,
)

matplotlib.use("Agg")


def test_mosaic_is_a_latin_square_of_the_three_textures():
    image, truth = texture_mosaic(np.random.default_rng(0), tile=32)
    assert image.shape == truth.shape == (96, 96) and image.dtype == np.uint8
    tiles = truth[::32, ::32]
    assert sorted(np.unique(tiles)) == [0, 1, 2]
    for k in range(3):
        assert np.all(np.sort(tiles[k]) == [0, 1, 2]) and np.all(np.sort(tiles[:, k]) == [0, 1, 2])


def test_accuracy_matches_labels_up_to_renaming():
    truth = np.array([0, 0, 1, 1, 2, 2])
    assert _accuracy(truth, np.array([2, 2, 0, 0, 1, 1])) == 1.0
    assert _accuracy(truth, np.array([2, 2, 0, 1, 1, 1])) == pytest.approx(5 / 6)


def test_path_read_on_a_grid_holds_the_last_value_above():
    temps, values = np.array([4.0, 2.0, 1.0]), np.array([1, 2, 3])
    got = _step_on_grid(temps, values, np.array([5.0, 3.0, 2.0, 1.5, 0.5]))
    np.testing.assert_array_equal(got[1:], [1, 2, 2, 3])
    assert np.isnan(got[0])


@pytest.mark.parametrize("name", ["maxent-critical-temperature", "maxent-texture", "maxent-peers"])
def test_figures_run_and_pass_their_checks(tmp_path, name):
    base = get(name)
    quick = dict(base.settings["quick"], n_seeds=2)  # the paired ARI check needs two
    spec = dataclasses.replace(base, name=f"{name}-small", settings={"quick": quick, "full": quick})
    ds = run_experiment(spec, "quick", out=tmp_path, progress=False).dataset
    spec.plot(ds)
    matplotlib.pyplot.close("all")
    results = evaluate_checks(spec, ds)
    assert results and all(r.passed for r in results if r.kind == "evidence")
