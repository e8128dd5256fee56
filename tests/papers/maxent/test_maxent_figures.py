"""Maximum-entropy clustering experiments: their helpers, and the figures at small size."""

import dataclasses
import math

import matplotlib
import numpy as np
import pytest

from statmechlearn.experiments import evaluate_checks, get, run_experiment
from statmechlearn.papers.maxent.critical import _step_on_grid
from statmechlearn.papers.maxent.texture import texture_mosaic
from statmechlearn.papers.shared import matched_accuracy

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
    assert matched_accuracy(truth, np.array([2, 2, 0, 0, 1, 1])) == 1.0
    assert matched_accuracy(truth, np.array([2, 2, 0, 1, 1, 1])) == pytest.approx(5 / 6)


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


def test_critical_temperature_limit_is_continuous_at_the_bbp_threshold():
    from statmechlearn.papers.maxent.finite_size import critical_temperature_limit

    gamma = 0.5
    at = math.sqrt(gamma)
    edge = 2.0 * (1.0 + at) ** 2
    assert critical_temperature_limit(at * (1 + 1e-9), gamma) == pytest.approx(edge, rel=1e-8)
    assert critical_temperature_limit(at * (1 - 1e-9), gamma) == edge
    # far above the threshold the sample spike tends to the population one as gamma -> 0
    assert critical_temperature_limit(2.0, 1e-9) == pytest.approx(6.0, rel=1e-8)


def test_critical_temperature_ladder_extrapolates_to_random_matrix_theory():
    # exact eigenvalues of many samples at two sizes: the 1/N fit's intercept is 7.5
    from statmechlearn.experiments._finite_size import extrapolate
    from statmechlearn.papers.maxent.finite_size import critical_temperature_limit

    rng = np.random.default_rng(11)
    sizes = (40, 80, 160)
    runs = 160
    values = np.empty((len(sizes), runs))
    for i, n in enumerate(sizes):
        mu = np.zeros(n)
        mu[0] = math.sqrt(2.0)
        for j in range(runs):
            X = rng.standard_normal((2 * n, n)) + rng.choice([-1.0, 1.0], 2 * n)[:, None] * mu
            values[i, j] = 2.0 * np.linalg.eigvalsh(np.cov(X, rowvar=False, bias=True))[-1]
    ext = extrapolate(sizes, values)
    z = (ext.value - critical_temperature_limit(2.0, 0.5)) / ext.se
    assert abs(z) < 5.0
